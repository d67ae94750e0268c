// ALE 0.12.1 src/ale/games/supported/Krull.cpp
// cule-game: krull Krull
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0x9E/0x9D/0x9C; lives byte 0x9F.  Game over: no lives, 0xA2 == 3 and
// 0x80 == 0x80.
struct Krull : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x9E, 0x9D, 0x9C);
    update_score(v, score);
    int b = ram_at(c, 0x9F);
    v.terminal = (b == 0 && ram_at(c, 0xA2) == 0x03 && ram_at(c, 0x80) == 0x80);
    v.lives = (b & 7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
