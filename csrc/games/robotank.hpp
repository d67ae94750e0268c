// ALE 0.12.1 src/ale/games/supported/RoboTank.cpp
// cule-game: robotank RoboTank
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score: enemy tanks destroyed, 12 a squadron ($B6) plus the current count ($B5).
struct RoboTank : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = ram_at(c, 0xB6) * 12 + ram_at(c, 0xB5);
    update_score(v, score);
    int lives_byte = ram_at(c, 0xA8);
    v.terminal = lives_byte == 0 && ram_at(c, 0xB4) == 0xFF;
    v.lives = (lives_byte & 0xF) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
