// ALE 0.12.1 src/ale/games/supported/NameThisGame.cpp
// cule-game: name_this_game NameThisGame
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xC6/0xC5/0xC4; lives = low 3 bits of 0xC7 (0 = game over).
// Modes 0x08, 0x18, 0x28 (mode byte 0xDE).
struct NameThisGame : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xC6, 0xC5, 0xC4);
    update_score(v, score);
    v.lives = ram_at(c, 0xC7) & 7;
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xDE, mode, 2); }
};

}}  // namespace cule::games
