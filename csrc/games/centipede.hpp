// ALE 0.12.1 src/ale/games/supported/Centipede.cpp
// cule-game: centipede Centipede
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Centipede : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xF6, 0xF5, 0xF4);
    update_score(v, score);
    if (v.reward < 0) v.reward = 0;
    v.lives = ((ram_at(c, 0xED) >> 4) & 0x7) + 1;
    v.terminal = (ram_at(c, 0xA6) & 0x40) != 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xA7, mode, 2); }
};

}}  // namespace cule::games
