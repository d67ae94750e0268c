// ALE 0.12.1 src/ale/games/supported/Pitfall.cpp
// cule-game: pitfall Pitfall
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xD7/0xD6/0xD5, starting at 2,000.  High nibble of 0x80: 0xA three lives,
// 0x8 two, else one; 0 with the logo timer 0x9E running is game over.
struct Pitfall : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 2000; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xD7, 0xD6, 0xD5);
    update_score(v, score);
    int n = ram_at(c, 0x80) >> 4;
    v.terminal = (n == 0 && ram_at(c, 0x9E) != 0);
    v.lives = n == 0xA ? 3 : (n == 0x8 ? 2 : 1);
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 2; return 1; }   // UP
};

}}  // namespace cule::games
