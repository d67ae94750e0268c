// ALE 0.12.1 src/ale/games/supported/TicTacToe3d.cpp
// cule-game: tic_tac_toe_3d TicTacToe3d
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// A game is decided when the return address on the stack (0xFF:0xFE) is 0xF310: +1
// if 0xE1 == 8 (the player won), else -1.  A full board (0x9A..0xD9 all non-zero) also
// ends it.  Once set, the terminal flag stays until reset.
struct TicTacToe3d : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    v.reward = 0;
    if (ram_at(c, 0xFF) == 0xF3 && ram_at(c, 0xFE) == 0x10) {
      v.reward = ram_at(c, 0xE1) == 0x08 ? 1 : -1;
      v.terminal = 1;
    }
    for (int a = 0x9A; a <= 0xD9; ++a)
      if (ram_at(c, a) == 0) return;
    v.terminal = 1;
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x88, mode, 2); }
};

}}  // namespace cule::games
