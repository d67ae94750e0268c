// ALE 0.12.1 src/ale/games/supported/Kaboom.cpp
// cule-game: kaboom Kaboom
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xA5/0xA4/0xA3; the game ends with no buckets left (0xA1 == 0) or at
// the maximum score 999,999.
struct Kaboom : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA5, 0xA4, 0xA3);
    update_score(v, score);
    v.terminal = (ram_at(c, 0xA1) == 0 || score == 999999);
  }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
};

}}  // namespace cule::games
