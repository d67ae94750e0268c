// ALE 0.12.1 src/ale/games/supported/SpaceInvaders.cpp
// cule-game: space_invaders SpaceInvaders
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct SpaceInvaders : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xE8, 0xE6);
    v.reward = score - v.score;
    if (v.reward < 0) v.reward = (10000 - v.score) + score;   // the score wraps at 10,000
    v.score = score;
    v.lives = ram_at(c, 0xC9);
    v.terminal = (ram_at(c, 0x98) & 0x80) || v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xDC, mode, 2); }
};

}}  // namespace cule::games
