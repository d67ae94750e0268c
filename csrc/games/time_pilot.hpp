// ALE 0.12.1 src/ale/games/supported/TimePilot.cpp
// cule-game: time_pilot TimePilot
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0x8D (low) / 0x8F (high) in hundreds; 0xA0 non-zero is game over.
// Lives (low 3 bits of 0x8B, plus one) are only read while the screen byte's low
// nibble (0x80) is 2, otherwise the last value is kept.
struct TimePilot : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x8D, 0x8F) * 100;
    update_score(v, score);
    int n = ram_at(c, 0x8B) & 7;
    int screen = ram_at(c, 0x80) & 0xF;
    v.terminal = ram_at(c, 0xA0) != 0;
    if (screen == 2) v.lives = n + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
