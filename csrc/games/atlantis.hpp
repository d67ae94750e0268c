// ALE 0.12.1 src/ale/games/supported/Atlantis.cpp
// cule-game: atlantis Atlantis
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Atlantis : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 6; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 100 * decimal_score(c, 0xA2, 0xA3, 0xA1);
    int previous = v.score;
    update_score(v, score);
    v.lives = ram_at(c, 0xF1);
    v.terminal = v.lives == 0xFF;
    if (v.terminal) {   // the score is cleared at game over: keep the last one, no reward
      v.reward = 0;
      v.score = previous;
    }
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x8D, mode, 2); }
};

}}  // namespace cule::games
