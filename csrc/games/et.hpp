// ALE 0.12.1 src/ale/games/supported/Et.cpp
// cule-game: et Et
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// ALE keeps E.T.'s lives in a (signed) char: RAM 0xE5 + 1 wraps at 8 bits.
struct Et : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.lives = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xE1, 0xE0, 0xDF);
    update_score(v, score);
    v.lives = (int8_t)(uint8_t)(ram_at(c, 0xE5) + 1);
    v.terminal = v.lives == 0 && ram_at(c, 0x80) == 8;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Mode byte 0xEA holds mode + 1; SELECT is held 25 frames a press, at most 100 presses.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    for (int i = 0; i < 100 && ((env.ram(0xEA) - 1) & 0xFF) != mode; ++i) env.press_select(25);
    env.soft_reset();
  }
};

}}  // namespace cule::games
