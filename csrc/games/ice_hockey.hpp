// ALE 0.12.1 src/ale/games/supported/IceHockey.cpp
// cule-game: ice_hockey IceHockey
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Goal difference (player 0x8A minus computer 0x8B, BCD); a step's reward is capped
// at +1.  The game ends when the clock (minutes 0x87, seconds 0x86) reaches 0:00.
struct IceHockey : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int mine = bcd_byte(c, 0x8A), theirs = bcd_byte(c, 0x8B);
    if (mine < 0) mine = 0;
    if (theirs < 0) theirs = 0;
    int score = mine - theirs;
    int r = score - v.score;
    v.reward = r > 1 ? 1 : r;
    v.score = score;
    v.terminal = (ram_at(c, 0x87) == 0 && ram_at(c, 0x86) == 0);
  }
  CULE_HD static int lives(const Console&) { return 0; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 2); }
};

}}  // namespace cule::games
