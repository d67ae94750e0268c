// ALE 0.12.1 src/ale/games/supported/ChopperCommand.cpp
// cule-game: chopper_command ChopperCommand
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct ChopperCommand : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; v.started = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 100 * decimal_score(c, 0xEE, 0xEC);
    update_score(v, score);
    v.lives = ram_at(c, 0xE4) & 0xF;
    // The chopper faces left (0xC2 bit 0 clear) until a game has begun: zero lives
    // only end the episode after that.
    v.started |= ram_at(c, 0xC2) & 0x1;
    v.terminal = v.started && v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xE0, mode, 2); }
};

}}  // namespace cule::games
