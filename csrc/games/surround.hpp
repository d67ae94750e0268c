// ALE 0.12.1 src/ale/games/supported/Surround.cpp
// cule-game: surround Surround
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = player (BCD 0xF7) - computer (BCD 0xF6); the first to 10 ends the game.
// Modes 0 and 2: mode byte 0xF9 holds the mode + 1.
struct Surround : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int theirs = bcd_byte(c, 0xF6), mine = bcd_byte(c, 0xF7);
    int score = mine - theirs;
    update_score(v, score);
    v.terminal = (theirs == 10 || mine == 10);
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xF9, mode + 1, 2); }
};

}}  // namespace cule::games
