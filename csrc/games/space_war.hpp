// ALE 0.12.1 src/ale/games/supported/SpaceWar.cpp
// cule-game: space_war SpaceWar
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Ends at 10 points or when the 10-minute timer ($80, counting up from $74 every 256
// frames) wraps to 0.  The game number shown at $A7 doubles as the mode (6..17).
struct SpaceWar : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA7);
    update_score(v, score);
    v.terminal = score == 10 || ram_at(c, 0x80) == 0;
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (decimal_score(env.m.c, 0xA7) != mode) env.press_select(2);
    env.soft_reset();
  }
};

}}  // namespace cule::games
