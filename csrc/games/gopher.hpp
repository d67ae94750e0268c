// ALE 0.12.1 src/ale/games/supported/Gopher.cpp
// cule-game: gopher Gopher
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Gopher : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xB2, 0xB1, 0xB0);
    update_score(v, score);
    // One bit a carrot left; lives = carrots standing.
    int carrots = ram_at(c, 0xB4) & 0x7;
    v.terminal = carrots == 0;
    v.lives = (carrots & 1) + ((carrots >> 1) & 1) + ((carrots >> 2) & 1);
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
  // A soft reset first, then SELECT (5 frames a press) until 0xD3 holds the mode.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.soft_reset();
    select_until_ram_equals(env, 0xD3, mode, 5);
  }
};

}}  // namespace cule::games
