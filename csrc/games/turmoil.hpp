// ALE 0.12.1 src/ale/games/supported/Turmoil.cpp
// cule-game: turmoil Turmoil
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score: BCD 0x89 (low) / 0x8A (high) plus the binary byte 0xD3, x10.  Lives 0xB9;
// game over when they are 0 and 0xC5 == 1.  Modes 0..8 (mode byte 0xEA).
struct Turmoil : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = (decimal_score(c, 0x89, 0x8A) + ram_at(c, 0xD3)) * 10;
    update_score(v, score);
    int n = ram_at(c, 0xB9);
    v.terminal = (n == 0 && ram_at(c, 0xC5) == 0x01);
    v.lives = n;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xEA, mode, 2); }
};

}}  // namespace cule::games
