// ALE 0.12.1 src/ale/games/supported/Frogger.cpp
// cule-game: frogger Frogger
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Frogger : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xCE, 0xCC);
    update_score(v, score);
    v.lives = ram_at(c, 0xD0);
    v.terminal = v.lives == 0xFF;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Mode m is game number 2m + 1 in RAM 0xDD.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xDD, 1 + 2 * mode, 2); }
};

}}  // namespace cule::games
