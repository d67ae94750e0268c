// ALE 0.12.1 src/ale/games/supported/Othello.cpp
// cule-game: othello Othello
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = white discs (BCD 0xCE) - black discs (BCD 0xD0).  The game is over once
// 0xC0 has read 0 for more than 50 frames in a row (aux[0] counts them).
struct Othello : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.aux[0] = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = bcd_byte(c, 0xCE) - bcd_byte(c, 0xD0);
    update_score(v, score);
    if (ram_at(c, 0xC0) == 0) v.aux[0]++;
    else v.aux[0] = 0;
    v.terminal = v.aux[0] > 50;
  }
  // 0xDE holds the mode + 1.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while ((uint8_t)(env.ram(0xDE) - 1) != mode) env.press_select(2);
    env.soft_reset();
  }
};

}}  // namespace cule::games
