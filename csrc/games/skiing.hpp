// ALE 0.12.1 src/ale/games/supported/Skiing.cpp
// cule-game: skiing Skiing
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// The score is the elapsed time (minutes 0xE8, centiseconds BCD 0xEA/0xE9), so the
// reward is its decrease.  0x91 == 0xFF ends the run.  FIRE actions are illegal.
struct Skiing : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = ram_at(c, 0xE8) * 6000 + decimal_score(c, 0xEA, 0xE9);
    v.reward = v.score - score;
    v.score = score;
    v.terminal = ram_at(c, 0x91) == 0xFF;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  // FIRE is action 1 and the direction+FIRE actions are 10..17.
  CULE_HD static bool legal(uint8_t a) { return !(a == 1 || (a >= 10 && a <= 17)); }
  CULE_HD static int starting_actions(uint8_t* out) {   // 16 DOWN
    for (int i = 0; i < 16; ++i) out[i] = 5;
    return 16;
  }
};

}}  // namespace cule::games
