// ALE 0.12.1 src/ale/games/supported/Assault.cpp
// cule-game: assault Assault
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Assault : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x82, 0x81, 0x80);
    update_score(v, score);
    v.lives = ram_at(c, 0xE5);
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
