// ALE 0.12.1 src/ale/games/supported/RiverRaid.cpp
// cule-game: riverraid RiverRaid
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Six score digits at 0xCD (most significant), 0xCF, ..., 0xD7, each stored as
// digit * 8 (a sprite offset); any other value counts as 0.  The lives byte 0xC0
// (kept in aux[0]) going 0x59 -> 0x58 is game over.
struct RiverRaid : GameBase {
  CULE_HD static int digit(const Console& c, int offset) {
    int b = ram_at(c, offset);
    return (b % 8 == 0 && b <= 72) ? b / 8 : 0;
  }
  CULE_HD static void reset(GameVars& v) { v.lives = 0; v.reward = 0; v.score = 0; v.terminal = 0; v.aux[0] = 0x58; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = digit(c, 87) + 10 * digit(c, 85) + 100 * digit(c, 83) + 1000 * digit(c, 81) +
                10000 * digit(c, 79) + 100000 * digit(c, 77);
    update_score(v, score);
    int b = ram_at(c, 0xC0);
    v.terminal = (b == 0x58 && v.aux[0] == 0x59);
    v.aux[0] = b;
  }
  CULE_HD static int lives(const Console& c) {
    if (c.game.terminal) return 0;
    int b = c.game.aux[0];
    return b == 0x58 ? 4 : (b == 0x59 ? 1 : b / 8 + 1);
  }
};

}}  // namespace cule::games
