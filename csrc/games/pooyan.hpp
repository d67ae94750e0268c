// ALE 0.12.1 src/ale/games/supported/Pooyan.cpp
// cule-game: pooyan Pooyan
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0x8A/0x89/0x88; lives byte 0x96; game over when it is 0 and 0x98 == 5.
// Modes 10, 30, 50, 70 (mode byte 0xBD); one SELECT press always comes first.
struct Pooyan : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x8A, 0x89, 0x88);
    update_score(v, score);
    int b = ram_at(c, 0x96);
    v.terminal = (b == 0 && ram_at(c, 0x98) == 0x05);
    v.lives = (b & 7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.press_select(2);
    select_until_ram_equals(env, 0xBD, mode, 2);
  }
};

}}  // namespace cule::games
