// ALE 0.12.1 src/ale/games/supported/PrivateEye.cpp
// cule-game: private_eye PrivateEye
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xCA/0xC9/0xC8, starting at 1,000.  The game is over when the copyright
// timer 0xC2 is neither 0 nor 1.
struct PrivateEye : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 1000; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xCA, 0xC9, 0xC8);
    update_score(v, score);
    int t = ram_at(c, 0xC2);
    v.terminal = (t != 0 && t != 1);
  }
  CULE_HD static int lives(const Console&) { return 0; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 2; return 1; }   // UP
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 2); }
};

}}  // namespace cule::games
