// ALE 0.12.1 src/ale/games/supported/ElevatorAction.cpp
// cule-game: elevator_action ElevatorAction
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct ElevatorAction : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x89, 0x88, 0x87);
    update_score(v, score);
    v.lives = ram_at(c, 0x83);
    bool start_screen = ram_at(c, 0x81) == 0x00;
    v.terminal = v.lives == 0 && !start_screen;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) {
    for (int i = 0; i < 16; ++i) out[i] = action::FIRE;
    return 16;
  }
};

}}  // namespace cule::games
