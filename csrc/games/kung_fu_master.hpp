// ALE 0.12.1 src/ale/games/supported/KungFuMaster.cpp
// cule-game: kung_fu_master KungFuMaster
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0x9A/0x99/0x98; lives byte 0x9D (0xFF = game over).
struct KungFuMaster : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x9A, 0x99, 0x98);
    update_score(v, score);
    int b = ram_at(c, 0x9D);
    v.terminal = (b == 0xFF);
    v.lives = (b & 7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
