// ALE 0.12.1 src/ale/games/supported/FlagCapture.cpp
// cule-game: flag_capture FlagCapture
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct FlagCapture : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xEA);
    update_score(v, score);
    v.terminal = decimal_score(c, 0xEB) == 0;   // the clock ran out
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xD6, mode, 2); }
};

}}  // namespace cule::games
