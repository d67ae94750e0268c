// ALE 0.12.1 src/ale/games/supported/Kangaroo.cpp
// cule-game: kangaroo Kangaroo
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0xA8 (low) / 0xA7 (high), in hundreds.  Lives byte 0xAD: 0xFF after the
// last life, otherwise (low 3 bits) + 1 lives.
struct Kangaroo : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA8, 0xA7) * 100;
    update_score(v, score);
    int b = ram_at(c, 0xAD);
    v.terminal = (b == 0xFF);
    v.lives = (b & 7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Mode byte 0xBA may carry bit 7.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    for (;;) {
      int b = env.ram(0xBA);
      if (b == mode || b == mode + 0x80) break;
      env.press_select(2);
    }
    env.soft_reset();
  }
};

}}  // namespace cule::games
