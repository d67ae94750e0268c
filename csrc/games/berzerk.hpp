// ALE 0.12.1 src/ale/games/supported/Berzerk.cpp
// cule-game: berzerk Berzerk
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Berzerk : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xDF, 0xDE, 0xDD);
    update_score(v, score);
    int b = ram_at(c, 0xDA);
    v.terminal = b == 0xFF;
    v.lives = b + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // 20 NOOP steps (act(): sticky actions and frame counters included) before selecting.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    for (int i = 0; i < 20; ++i) env.act(0);
    select_until_ram_equals(env, 0x80, mode, 2);
  }
};

}}  // namespace cule::games
