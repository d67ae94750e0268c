// ALE 0.12.1 src/ale/games/supported/RoadRunner.cpp
// cule-game: road_runner RoadRunner
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Four score digits in the low nibbles of 0xC9..0xCC (least significant first; 0xA
// is a blank, read as 0), in hundreds.  Lives: low 3 bits of 0xC4, plus one; game
// over when they are 0 and the death animation runs (0xB9 or 0xBD non-zero).
struct RoadRunner : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 0, mult = 1;
    for (int d = 0; d < 4; ++d) {
      int x = ram_at(c, 0xC9 + d) & 0xF;
      if (x == 0xA) x = 0;
      score += mult * x;
      mult *= 10;
    }
    score *= 100;
    update_score(v, score);
    int n = ram_at(c, 0xC4) & 7;
    v.terminal = (n == 0 && (ram_at(c, 0xB9) != 0 || ram_at(c, 0xBD) != 0));
    v.lives = n + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
