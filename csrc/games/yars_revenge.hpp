// ALE 0.12.1 src/ale/games/supported/YarsRevenge.cpp
// cule-game: yars_revenge YarsRevenge
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xE2/0xE1/0xE0; lives = high nibble of 0x9E (0 = game over).
// Modes 0x00, 0x20, 0x40, 0x60 (0xE3): one 2-frame SELECT press first, then 1-frame
// presses.
struct YarsRevenge : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xE2, 0xE1, 0xE0);
    update_score(v, score);
    int n = ram_at(c, 0x9E) >> 4;
    v.terminal = n == 0;
    v.lives = n;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.press_select(2);
    select_until_ram_equals(env, 0xE3, mode, 1);
  }
};

}}  // namespace cule::games
