// ALE 0.12.1 src/ale/games/supported/Entombed.cpp
// cule-game: entombed Entombed
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Entombed : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = ram_at(c, 0xE3);   // depth reached, binary
    update_score(v, score);
    v.terminal = (ram_at(c, 0xC7) & 0x03) == 0;
  }
  // FIRE, then 5 NOOPs.
  CULE_HD static int starting_actions(uint8_t* out) {
    out[0] = 1;
    for (int i = 1; i < 6; ++i) out[i] = 0;
    return 6;
  }
};

}}  // namespace cule::games
