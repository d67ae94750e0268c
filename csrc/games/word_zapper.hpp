// ALE 0.12.1 src/ale/games/supported/WordZapper.cpp
// cule-game: word_zapper WordZapper
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Only while the clock (BCD 0xCF) runs: score = 2 - (signed) 0xDC; the game ends at
// score 3 or when the time left (BCD 0xDE) is 0.  While the clock is stopped nothing
// is updated, so the last reward repeats.  Modes 0..23 (0xDB).
struct WordZapper : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    if (bcd_byte(c, 0xCF) > 0) {
      int score = 2 - (int)(int8_t)ram_at(c, 0xDC);
      update_score(v, score);
      v.terminal = (score == 3 || bcd_byte(c, 0xDE) == 0);
    }
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xDB, mode, 2); }
  CULE_HD static int starting_actions(uint8_t* out) {   // 486 NOOP, FIRE, 2 NOOP
    for (int i = 0; i < 489; ++i) out[i] = 0;
    out[486] = 1;
    return 489;
  }
};

}}  // namespace cule::games
