// ALE 0.12.1 src/ale/games/supported/UpNDown.cpp
// cule-game: up_n_down UpNDown
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0x82/0x81/0x80; lives = low nibble of 0x86, plus one; game over when it
// is 0 and the death timer 0x94 is past 0x40.
struct UpNDown : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x82, 0x81, 0x80);
    update_score(v, score);
    int n = ram_at(c, 0x86) & 0xF;
    v.terminal = (ram_at(c, 0x94) > 0x40 && n == 0);
    v.lives = n + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
};

}}  // namespace cule::games
