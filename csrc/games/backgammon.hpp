// ALE 0.12.1 src/ale/games/supported/Backgammon.cpp
// cule-game: backgammon Backgammon
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Backgammon : GameBase {
  // Board points hold signed piece counts: positive for the computer, negative for
  // the player.  ALE sums them in 8-bit signed arithmetic; so do we.
  CULE_HD static int8_t pieces(const Console& c, int offset) { return (int8_t)(uint8_t)ram_at(c, offset); }
  CULE_HD static void add(int8_t& total, int v) { total = (int8_t)(total + v); }
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int8_t player_out = (int8_t)(-pieces(c, 0x80));
    int8_t computer_out = pieces(c, 0x8E);
    int8_t player_in = 0, computer_in = 0;
    for (int a = 0x81; a <= 0x9B; ++a) {
      if (a == 0x8E) continue;
      int8_t p = pieces(c, a);
      if (p > 0) add(computer_in, p);
      else if (p < 0) add(player_in, -p);
    }
    bool valid = (computer_in + computer_out == 15) && (player_in + player_out == 15);
    // The reward is only written when the game ends; otherwise it keeps its value.
    if (valid) {
      if (player_out == 15) { v.terminal = 1; v.reward = 1; }
      else if (computer_out == 15) { v.terminal = 1; v.reward = -1; }
    }
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : 1; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int) {
    while (env.ram(0xDC) != 3) env.press_select(1);
    env.soft_reset();
  }
};

}}  // namespace cule::games
