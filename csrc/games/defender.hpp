// ALE 0.12.1 src/ale/games/supported/Defender.cpp
// cule-game: defender Defender
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Defender : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // Six digits, lowest first, one a byte in the low nibble; 0xA is a blank.
    int score = 0, mult = 1;
    for (int i = 0; i < 6; ++i) {
      int d = ram_at(c, 0x9C + i) & 0xF;
      if (d == 0xA) d = 0;
      score += d * mult;
      mult *= 10;
    }
    update_score(v, score);
    v.lives = ram_at(c, 0xC2);
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x9B, mode, 2); }
};

}}  // namespace cule::games
