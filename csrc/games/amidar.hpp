// ALE 0.12.1 src/ale/games/supported/Amidar.cpp
// cule-game: amidar Amidar
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Amidar : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xD9, 0xDA, 0xDB);
    update_score(v, score);
    int b = ram_at(c, 0xD6);
    v.terminal = b == 0x80;
    v.lives = b & 0xF;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
