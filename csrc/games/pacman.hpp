// ALE 0.12.1 src/ale/games/supported/Pacman.cpp
// cule-game: pacman Pacman
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Pacman : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xCC, 0xCE, 0xD0);
    update_score(v, score);
    v.lives = ram_at(c, 0x98) + 1;
    v.terminal = v.lives == 1 && ram_at(c, 0xE4) == 0x3F;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Modes 0..7: $CC holds the game number (mode + 1, as an unsigned byte), $E6 is 0
  // for one player.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    for (;;) {
      int cur = (uint8_t)(env.ram(0xCC) - 1);
      bool one_player = env.ram(0xE6) == 0;
      if (cur == mode && one_player) break;
      env.press_select(2);
    }
    env.soft_reset();
  }
};

}}  // namespace cule::games
