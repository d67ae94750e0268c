// ALE 0.12.1 src/ale/games/supported/Bowling.cpp
// cule-game: bowling Bowling
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Bowling : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA1, 0xA6);
    update_score(v, score);
    v.terminal = ram_at(c, 0xA4) > 0x10;   // past the tenth frame
  }
  CULE_HD static int lives(const Console&) { return 0; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x82, mode, 2); }
};

}}  // namespace cule::games
