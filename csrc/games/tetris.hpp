// ALE 0.12.1 src/ale/games/supported/Tetris.cpp
// cule-game: tetris Tetris
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xF1 (low) / 0xF2 (high); only increases are rewarded.  Bit 7 of 0xF3
// is game over, which also clears the remembered score.  Lives are always 0.
struct Tetris : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.lives = 0; v.terminal = 0; v.started = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x71, 0x72);
    v.reward = score > v.score ? score - v.score : 0;
    v.score = score;
    v.started = 1;
    v.terminal = v.started && (ram_at(c, 0x73) & 0x80);
    if (v.terminal) {
      v.score = 0;
      v.started = 0;
    }
  }
  CULE_HD static int lives(const Console&) { return 0; }
};

}}  // namespace cule::games
