// ALE 0.12.1 src/ale/games/supported/LaserGates.cpp
// cule-game: laser_gates LaserGates
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct LaserGates : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x82, 0x81, 0x80);
    update_score(v, score);
    v.terminal = ram_at(c, 0x83) == 0x00;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::RESET; return 1; }
};

}}  // namespace cule::games
