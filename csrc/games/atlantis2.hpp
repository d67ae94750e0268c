// ALE 0.12.1 src/ale/games/supported/Atlantis2.cpp
// cule-game: atlantis2 Atlantis2
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Atlantis2 : GameBase {
  // ALE leaves the lives counter alone on reset (every step rewrites it).
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    v.lives = ram_at(c, 0xF1);
    v.terminal = v.lives == 0xFF;
    if (v.terminal) {
      v.reward = 0;
    } else {
      int score = decimal_score(c, 0xA1, 0xA2, 0xA3);
      update_score(v, score);
    }
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
