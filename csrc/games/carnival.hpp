// ALE 0.12.1 src/ale/games/supported/Carnival.cpp
// cule-game: carnival Carnival
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Carnival : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 10 * decimal_score(c, 0xAE, 0xAD);
    update_score(v, score);
    v.terminal = ram_at(c, 0x83) < 1;   // out of ammunition
  }
  CULE_HD static int lives(const Console&) { return 0; }
};

}}  // namespace cule::games
