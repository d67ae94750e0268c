// ALE 0.12.1 src/ale/games/supported/Enduro.cpp
// cule-game: enduro Enduro
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Enduro : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // The counter shows cars still to pass: 200 on day 1, 300 on every later day.
    int score = 0;
    int level = ram_at(c, 0xAD);
    if (level != 0) {
      int left = decimal_score(c, 0xAB, 0xAC);
      int passed = (level == 1 ? 200 : 300) - left;
      if (level >= 2) score = 200 + (level - 2) * 300;
      score += passed;
    }
    update_score(v, score);
    v.terminal = ram_at(c, 0xAF) == 0xFF;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
};

}}  // namespace cule::games
