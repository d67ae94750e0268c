// ALE 0.12.1 src/ale/games/supported/WizardOfWor.cpp
// cule-game: wizard_of_wor WizardOfWor
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0x86 (low) / 0x88 (high), less 8000 when it is 8000 or more (a flag
// digit), in hundreds.  Lives = low nibble of 0x8D, only taken while bit 0 of 0xD7
// is clear; game over when they are 0 and 0xF4 == 0xF8.
struct WizardOfWor : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x86, 0x88);
    if (score >= 8000) score -= 8000;
    score *= 100;
    update_score(v, score);
    int n = ram_at(c, 0x8D) & 15;
    bool waiting = (ram_at(c, 0xD7) & 1) == 0;
    v.terminal = (n == 0 && ram_at(c, 0xF4) == 0xF8);
    if (waiting) v.lives = n;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
