// ALE 0.12.1 src/ale/games/supported/Hangman.cpp
// cule-game: hangman Hangman
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Hangman keeps two scores (guesser and setter) and the previous value of the game
// timer.  GameVars holds them packed: score = guesser + 256 * setter, lives = the
// last timer byte read (-1 before the first step); lives() is ALE's default.
struct Hangman : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = -1; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int setter = decimal_score(c, 0xEC), guesser = decimal_score(c, 0xEB);
    int old_guesser = v.score & 0xFF, old_setter = v.score >> 8;
    v.reward = (guesser - old_guesser) - (setter - old_setter);
    v.score = guesser + (setter << 8);
    int previous = v.lives;
    v.lives = ram_at(c, 0xF1);
    // The timer wrapping from 0xFF to 0x00 means the game timed out.
    bool timed_out = v.lives == 0 && previous == 255;
    v.terminal = v.reward != 0 || timed_out;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : 1; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xEE, mode, 2); }
};

}}  // namespace cule::games
