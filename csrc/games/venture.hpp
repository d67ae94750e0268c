// ALE 0.12.1 src/ale/games/supported/Venture.cpp
// cule-game: venture Venture
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0xC8 (low) / 0xC7 (high) in hundreds.  Lives byte 0xC6; game over
// when it is 0, the sound byte 0xCD is 0xFF and bit 7 of 0xBF is set.
struct Venture : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xC8, 0xC7) * 100;
    update_score(v, score);
    int n = ram_at(c, 0xC6);
    v.terminal = (n == 0 && ram_at(c, 0xCD) == 0xFF && (ram_at(c, 0xBF) & 0x80));
    v.lives = (n & 7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
