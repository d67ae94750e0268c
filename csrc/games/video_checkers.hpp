// ALE 0.12.1 src/ale/games/supported/VideoCheckers.cpp
// cule-game: video_checkers VideoCheckers
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// The board is 32 squares at 0x80-0x87, 0x89-0x90, 0x92-0x99, 0x9B-0xA2: 0x10/0x20
// black pieces, 0x90/0xA0 white.  The game ends when one side has none: +1 when the
// player (black) still has pieces, -1 otherwise, the other way round in the
// "giveaway" modes 11..19.  Reward and terminal are only ever set, never cleared,
// until reset.  Modes 1..9 and 11..19; giveaway mode m is mode byte 0xF6 = m + 6.
// Which rule counts is ALE's m_reverse_checkers (aux[0] here): set by the mode selection
// of reset_game only, so neither a setMode before the next reset nor a restoreState
// (which does not save it) changes it.
struct VideoCheckers : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int black = 0, white = 0;
    for (int row = 0; row < 4; ++row) {
      int base = 0x80 + 9 * row;
      for (int a = base; a < base + 8; ++a) {
        int s = ram_at(c, a);
        if (s == 0x10 || s == 0x20) ++black;
        else if (s == 0x90 || s == 0xA0) ++white;
      }
    }
    const bool reverse = v.aux[0] != 0;
    if (black == 0) {
      v.reward = reverse ? 1 : -1;
      v.terminal = 1;
    } else if (white == 0) {
      v.reward = reverse ? -1 : 1;
      v.terminal = 1;
    }
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.m.c.game.aux[0] = mode >= 11;
    select_until_ram_equals(env, 0xF6, mode >= 11 ? mode + 6 : mode, 1);
  }
};

}}  // namespace cule::games
