// ALE 0.12.1 src/ale/games/supported/Phoenix.cpp
// cule-game: phoenix Phoenix
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score: BCD 0xC8 (low) / 0xC9 (high), then the high nibble of 0xC7 as one more
// digit, then x10.  0xCC == 0x80 is game over; lives = low 3 bits of 0xCB.
struct Phoenix : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xC8, 0xC9) * 10;
    score += ram_at(c, 0xC7) >> 4;
    score *= 10;
    update_score(v, score);
    v.terminal = ram_at(c, 0xCC) == 0x80;
    v.lives = ram_at(c, 0xCB) & 7;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
