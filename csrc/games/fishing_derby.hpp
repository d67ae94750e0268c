// ALE 0.12.1 src/ale/games/supported/FishingDerby.cpp
// cule-game: fishing_derby FishingDerby
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct FishingDerby : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xBD) - decimal_score(c, 0xBE);
    update_score(v, score);
    v.terminal = ram_at(c, 0xBD) == 0x99 || ram_at(c, 0xBE) == 0x99;
  }
  CULE_HD static int lives(const Console&) { return 0; }
};

}}  // namespace cule::games
