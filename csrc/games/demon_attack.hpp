// ALE 0.12.1 src/ale/games/supported/DemonAttack.cpp
// cule-game: demon_attack DemonAttack
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// GameVars.started is ALE's m_level_change: set by setMode, it masks the game-over
// test for the next step only.
struct DemonAttack : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; v.started = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x85, 0x83, 0x81);
    // 0xEA 0xCD 0xAB in the score bytes is the attract-mode pattern: no score.
    if (ram_at(c, 0x81) == 0xAB && ram_at(c, 0x83) == 0xCD && ram_at(c, 0x85) == 0xEA) score = 0;
    update_score(v, score);
    int shown = ram_at(c, 0xF2);
    int flag = ram_at(c, 0xF1);
    v.terminal = shown == 0 && flag == 0xBD && !v.started;
    v.lives = shown + 1;
    v.started = 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (env.ram(0xEA) != mode) env.press_select(1);
    env.m.c.game.started = 1;
    env.soft_reset();
  }
};

}}  // namespace cule::games
