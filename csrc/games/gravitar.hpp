// ALE 0.12.1 src/ale/games/supported/Gravitar.cpp
// cule-game: gravitar Gravitar
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Gravitar : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 6; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x89, 0x88, 0x87);
    update_score(v, score);
    int screen = ram_at(c, 0x81);
    v.terminal = screen == 0x01;
    v.lives = screen == 0x00 ? 6 : ram_at(c, 0x84) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) {   // FIRE x 16
    for (int i = 0; i < 16; ++i) out[i] = 1;
    return 16;
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (env.ram(0x80) != mode) env.press_select(10);
    // Each mode's starting lives (the next step overwrites them from RAM).
    int& lives = env.m.c.game.lives;
    switch (mode) {
      case 0: case 2: lives = 6; break;
      case 1: lives = 15; break;
      case 3: lives = 100; break;
      case 4: lives = 25; break;
      default: break;
    }
    env.soft_reset();
  }
};

}}  // namespace cule::games
