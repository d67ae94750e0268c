// ALE 0.12.1 src/ale/games/supported/Crossbow.cpp
// cule-game: crossbow Crossbow
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Crossbow : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x8D, 0x8C, 0x8B);
    update_score(v, score);
    v.terminal = ram_at(c, 0xE7) == 0x82;
  }
  // The mode byte 0x8D holds the mode + 1 (as an 8-bit value).
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (((env.ram(0x8D) - 1) & 0xFF) != mode) env.press_select(2);
    env.soft_reset();
  }
};

}}  // namespace cule::games
