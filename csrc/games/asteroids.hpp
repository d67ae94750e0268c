// ALE 0.12.1 src/ale/games/supported/Asteroids.cpp
// cule-game: asteroids Asteroids
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Asteroids : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 10 * decimal_score(c, 0xBE, 0xBD);
    v.reward = score - v.score;
    if (v.reward < 0) v.reward += 100000;   // the displayed score rolls over at 100,000
    v.score = score;
    v.lives = ram_at(c, 0xBC) >> 4;
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Modes 0..31 and 0x80 (children's version) are the mode byte itself.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 2); }
};

}}  // namespace cule::games
