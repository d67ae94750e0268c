// ALE 0.12.1 src/ale/games/supported/Klax.cpp
// cule-game: klax Klax
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

// Klax keeps score, misses, level and mode in its Superchip RAM; ALE reads them at
// $F080-$F0FF (the cartridge's read port, RAM byte address & $7F).
struct Klax : GameBase {
  CULE_HD static int cart_ram(const Console& c, int addr) { return c.cart.ram[addr & 0x7F]; }
  CULE_HD static int cart_bcd(const Console& c, int addr) {
    int v = cart_ram(c, addr);
    return 10 * (v >> 4) + (v & 15);
  }
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = cart_bcd(c, 0xF0B4) + 100 * cart_bcd(c, 0xF0B5) + 10000 * cart_bcd(c, 0xF0B6);
    update_score(v, score);
    int misses = cart_ram(c, 0xF0EE);
    int max_misses = cart_ram(c, 0xF0E9);
    bool active = ram_at(c, 0xA8) == 4;
    // The 25 cells of the bin ($B3..$CB); types 2, 6, 10, 14 are the grey filler of
    // the end-of-level bonus, not blocks.
    int blocks = 0;
    for (int i = 0; i < 25; ++i) {
      int t = ram_at(c, 0xB3 + i);
      if (t != 0 && t != 2 && t != 6 && t != 10 && t != 14) ++blocks;
    }
    int level = cart_ram(c, 0xF09D);
    v.terminal = (max_misses > 0 && misses == max_misses) || (active && blocks == 25) || level == 0x99;
  }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::FIRE; out[1] = action::NOOP; return 2; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (cart_ram(env.m.c, 0xF0EA) != mode) env.press_select(2);
    env.soft_reset();
  }
};

}}  // namespace cule::games
