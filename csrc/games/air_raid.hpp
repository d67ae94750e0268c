// ALE 0.12.1 src/ale/games/supported/AirRaid.cpp
// cule-game: air_raid AirRaid
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct AirRaid : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xAA, 0xA9, 0xA8);
    update_score(v, score);
    v.terminal = ram_at(c, 0xA7) == 0xFF;
  }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::FIRE; return 1; }
  // Modes 1..8: SELECT 20 frames opens the selection, then 10 frames a press until
  // $AA holds the mode.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.press_select(20);
    while (env.ram(0xAA) != mode) env.press_select(10);
    env.soft_reset();
  }
};

}}  // namespace cule::games
