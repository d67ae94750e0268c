// ALE 0.12.1 src/ale/games/supported/Galaxian.cpp
// cule-game: galaxian Galaxian
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Galaxian : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xAE, 0xAD, 0xAC);
    v.reward = score - v.score;
    if (v.reward < 0) v.reward = (1000000 - v.score) + score;   // rolled over at 1,000,000
    v.score = score;
    v.terminal = (ram_at(c, 0xBF) & 0x80) != 0;
    v.lives = v.terminal ? 0 : ram_at(c, 0xB9) + 1;   // 0xB9: reserve ships shown
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (env.ram(0xB3) != mode) env.press_select(1);
    env.soft_reset();
  }
};

}}  // namespace cule::games
