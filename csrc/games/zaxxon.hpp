// ALE 0.12.1 src/ale/games/supported/Zaxxon.cpp
// cule-game: zaxxon Zaxxon
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0xE9 (low) / 0xE8 (high) in hundreds; lives = low 3 bits of 0xEA
// (0 = game over).  Modes 0, 8, 16, 24 (0x82), SELECT held 10 frames a press.
struct Zaxxon : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xE9, 0xE8) * 100;
    update_score(v, score);
    int n = ram_at(c, 0xEA) & 7;
    v.terminal = n == 0;
    v.lives = n;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x82, mode, 10); }
};

}}  // namespace cule::games
