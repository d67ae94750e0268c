// ALE 0.12.1 src/ale/games/supported/Pong.cpp
// cule-game: pong Pong
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Pong : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int cpu = ram_at(c, 13), player = ram_at(c, 14);
    int score = player - cpu;
    update_score(v, score);
    v.terminal = (cpu == 21 || player == 21);
  }
  CULE_HD static int lives(const Console&) { return 0; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x96, mode, 2); }
};

}}  // namespace cule::games
