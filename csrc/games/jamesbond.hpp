// ALE 0.12.1 src/ale/games/supported/JamesBond.cpp
// cule-game: jamesbond JamesBond
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct JamesBond : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 6; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xDC, 0xDD, 0xDE);
    update_score(v, score);
    int lives_byte = ram_at(c, 0x86) & 0xF;
    int screen = ram_at(c, 0x8C);          // $68 while the death sequence runs
    v.terminal = lives_byte == 0 && screen == 0x68;
    v.lives = lives_byte + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Modes 0 and 1: $8C holds the mode (plus $48 on the title screen).
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    int cur = env.ram(0x8C);
    while (cur != mode && cur != mode + 0x48) {
      env.press_select(20);
      cur = env.ram(0x8C);
    }
    env.soft_reset();
  }
};

}}  // namespace cule::games
