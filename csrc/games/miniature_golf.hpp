// ALE 0.12.1 src/ale/games/supported/MiniatureGolf.cpp
// cule-game: miniature_golf MiniatureGolf
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// When the hole number (BCD 0xAF) changes, the reward is par minus the strokes taken
// on the hole just finished; hole 0 ends the game.  0x87 counts strokes (it restarts,
// so totals are accumulated), 0x88 is non-zero while it shows the hole's par.
// Variables: aux[0] hole number, aux[1] par, aux[2] accumulated strokes,
// aux[3] last stroke count, score = strokes at the start of the hole.
struct MiniatureGolf : GameBase {
  CULE_HD static void reset(GameVars& v) {
    v.reward = 0; v.terminal = 0;
    v.aux[0] = 0; v.aux[1] = 0; v.aux[2] = 0; v.aux[3] = 0; v.score = 0;
  }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int& level = v.aux[0];
    int& par = v.aux[1];
    int& hits = v.aux[2];
    int& left = v.aux[3];
    int& hits_at_start = v.score;
    v.reward = 0;
    int left_now = bcd_byte(c, 0x87);
    int right_now = bcd_byte(c, 0x88);
    int level_now = bcd_byte(c, 0xAF);
    if (level_now != level) {
      int taken = left + hits - hits_at_start;
      if (taken > 0) v.reward = par - taken;
      if (level_now == 0) v.terminal = 1;
      level = level_now;
      hits = 0;
      hits_at_start = left;
    }
    if (right_now != 0) {
      par = right_now;
    } else {
      if (left_now < left) hits += left;
      left = left_now;
    }
  }
};

}}  // namespace cule::games
