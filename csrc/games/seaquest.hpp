// ALE 0.12.1 src/ale/games/supported/Seaquest.cpp
// cule-game: seaquest Seaquest
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Seaquest : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xBA, 0xB9, 0xB8);
    update_score(v, score);
    v.terminal = ram_at(c, 0xA3) != 0;
    v.lives = ram_at(c, 0xBB) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
