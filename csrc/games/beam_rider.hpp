// ALE 0.12.1 src/ale/games/supported/BeamRider.cpp
// cule-game: beam_rider BeamRider
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct BeamRider : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x89, 0x8A, 0x8B);
    update_score(v, score);
    // A lost life only counts once the death sequence flag (0x8C == 1) is up.
    int lives = ram_at(c, 0x85) + 1;
    if (lives == v.lives - 1) {
      if (ram_at(c, 0x8C) == 0x01) v.lives = lives;
    } else {
      v.lives = lives;
    }
    v.terminal = ram_at(c, 0x85) == 0xFF;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 3; return 1; }   // RIGHT
};

}}  // namespace cule::games
