// ALE 0.12.1 src/ale/games/supported/Breakout.cpp
// cule-game: breakout Breakout
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Breakout : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.lives = 5; v.terminal = 0; v.started = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int x = ram_at(c, 77), y = ram_at(c, 76);
    int score = (x & 0x0F) + 10 * ((x & 0xF0) >> 4) + 100 * (y & 0x0F);
    update_score(v, score);
    int lives = ram_at(c, 57);
    if (!v.started && lives == 5) v.started = 1;
    v.terminal = v.started && lives == 0;
    v.lives = lives;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xB2, mode, 1); }
};

}}  // namespace cule::games
