// ALE 0.12.1 src/ale/games/supported/Casino.cpp
// cule-game: casino Casino
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Casino : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x95, 0x8C);
    if (ram_at(c, 0xD4) == 3) {
      // Stud poker: the game ends once the pot has been paid out (0x9E == 0xAA).
      v.reward = score - v.score;
      v.terminal = score > 0 && ram_at(c, 0x9E) == 0xAA;
    } else {
      bool input_disabled = (ram_at(c, 0xD3) & 0x80) != 0;
      if (!input_disabled) v.reward = score - v.score;   // else the last reward stays
      int bet = decimal_score(c, 0x9E);
      v.terminal = score == 0 || (bet > 0 && input_disabled);
    }
    v.score = score;
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xD4, mode, 2); }
  // 60 NOOPs, then FIRE twice.
  CULE_HD static int starting_actions(uint8_t* out) {
    for (int i = 0; i < 60; ++i) out[i] = 0;
    out[60] = out[61] = 1;
    return 62;
  }
};

}}  // namespace cule::games
