// ALE 0.12.1 src/ale/games/supported/Earthworld.cpp
// cule-game: earthworld Earthworld
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Earthworld : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA7);
    update_score(v, score);
    v.terminal = score == 10;
  }
};

}}  // namespace cule::games
