// ALE 0.12.1 src/ale/games/supported/QBert.cpp
// cule-game: qbert QBert
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Lives byte 0x88 (signed): 0xFE is game over, so is 2 right after -1 (a new game
// after the last life).  A life is lost whenever the byte drops by exactly one;
// aux[0] holds its last value.  Score BCD 0xDB/0xDA/0xD9, not counted on the
// terminal frame.
struct QBert : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.aux[0] = 2; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int b = ram_at(c, 0x88);
    v.terminal = (b == 0xFE) || (b == 0x02 && v.aux[0] == -1);
    int now = (int)(int8_t)b;
    if (v.aux[0] - 1 == now) v.lives--;
    v.aux[0] = now;
    if (!v.terminal) {
      int score = decimal_score(c, 0xDB, 0xDA, 0xD9);
      update_score(v, score);
    } else {
      v.reward = 0;
    }
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
