// ALE 0.12.1 src/ale/games/supported/CrazyClimber.cpp
// cule-game: crazy_climber CrazyClimber
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct CrazyClimber : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // One decimal digit a byte, in hundreds.
    int score = 100 * (ram_at(c, 0x82) + 10 * ram_at(c, 0x83) + 100 * ram_at(c, 0x84) +
                       1000 * ram_at(c, 0x85));
    v.reward = score - v.score;
    if (v.reward < 0) v.reward = 0;
    v.score = score;
    v.lives = ram_at(c, 0xAA);
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 2); }
};

}}  // namespace cule::games
