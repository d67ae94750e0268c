// ALE 0.12.1 src/ale/games/supported/JourneyEscape.cpp
// cule-game: journey_escape JourneyEscape
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Cash in BCD at 0x92/0x91/0x90; the jump of exactly 50,000 when the starting cash
// appears is not a reward.  The game ends when the clock (0x95:0x96) reads 0:00.
struct JourneyEscape : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x92, 0x91, 0x90);
    int r = score - v.score;
    v.reward = r == 50000 ? 0 : r;
    v.score = score;
    v.terminal = (ram_at(c, 0x95) == 0 && ram_at(c, 0x96) == 0);
  }
  CULE_HD static int lives(const Console&) { return 0; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
};

}}  // namespace cule::games
