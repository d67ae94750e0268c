// ALE 0.12.1 src/ale/games/supported/VideoChess.cpp
// cule-game: video_chess VideoChess
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// When it is white's turn (0xE1 == 0x82), 0xEE says checkmate: 0 (black mated, +1)
// or 1 (white mated, -1).  Terminal stays set until reset.  Modes 0..4 (0xEA).
struct VideoChess : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    v.reward = 0;
    if (ram_at(c, 0xE1) == 0x82) {
      int mate = ram_at(c, 0xEE);
      if (mate == 0x00) { v.reward = 1; v.terminal = 1; }
      else if (mate == 0x01) { v.reward = -1; v.terminal = 1; }
    }
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xEA, mode, 1); }
};

}}  // namespace cule::games
