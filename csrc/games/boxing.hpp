// ALE 0.12.1 src/ale/games/supported/Boxing.cpp
// cule-game: boxing Boxing
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Boxing : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // 0xC0 in a score byte is the knock-out display (100 points).
    int mine = ram_at(c, 0x92) == 0xC0 ? 100 : decimal_score(c, 0x92);
    int theirs = ram_at(c, 0x93) == 0xC0 ? 100 : decimal_score(c, 0x93);
    int score = mine - theirs;
    update_score(v, score);
    if (mine == 100 || theirs == 100) {
      v.terminal = 1;
    } else {
      int minutes = ram_at(c, 0x90) >> 4;
      int t = ram_at(c, 0x91);
      int seconds = (t & 0xF) + (t >> 4) * 10;
      v.terminal = minutes == 0 && seconds == 0;
    }
  }
  CULE_HD static int lives(const Console&) { return 0; }
};

}}  // namespace cule::games
