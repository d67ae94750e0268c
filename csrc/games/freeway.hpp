// ALE 0.12.1 src/ale/games/supported/Freeway.cpp
// cule-game: freeway Freeway
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Freeway : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 103);
    int r = score - v.score;
    v.reward = r < 0 ? 0 : (r > 1 ? 1 : r);
    v.score = score;
    v.terminal = ram_at(c, 22) == 1;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 1); }
};

}}  // namespace cule::games
