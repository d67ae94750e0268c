// ALE 0.12.1 src/ale/games/supported/DarkChambers.cpp
// cule-game: darkchambers DarkChambers
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

// GameVars::aux[0]: the level ($D5) seen last.  The level only goes up; a lower one,
// a score that wrapped, or health 0 ends the game (the terminal flag is never cleared
// by step()).
struct DarkChambers : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; v.aux[0] = 0; v.score = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    v.reward = 0;
    int level = ram_at(c, 0xD5);
    if (level < v.aux[0]) {
      v.terminal = 1;
      return;
    }
    v.aux[0] = level;
    int score = decimal_score(c, 0xCC, 0xCF) * 10;
    if (score < v.score) {
      v.terminal = 1;
    } else {
      update_score(v, score);
    }
    if ((ram_at(c, 0xCA) & 0x1F) == 0) v.terminal = 1;   // health (top 3 bits are items)
  }
  // The boot animation ignores input for about 8 seconds.
  CULE_HD static int starting_actions(uint8_t* out) {
    for (int i = 0; i < 486; ++i) out[i] = action::NOOP;
    return 486;
  }
};

}}  // namespace cule::games
