// ALE 0.12.1 src/ale/games/supported/VideoCube.cpp
// cule-game: video_cube VideoCube
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Six faces of nine stickers from 0xA0; the reward is the change in the number of
// single-coloured faces, -1 when the timer 0xDB wraps from 255 to 0 (which ends the
// game, as do six solved faces).  score = solved faces, aux[0]/aux[1] = timer this
// frame / last frame (not cleared by reset, as in ALE).
// Modes are cube * 100 + variation (cube 0..50, variation 0..2); cube 0 means 1.
struct VideoCube : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int solved = 0;
    for (int f = 0; f < 6; ++f) {
      int base = 0xA0 + 9 * f;
      int first = ram_at(c, base);
      bool same = true;
      for (int k = 1; k < 9 && same; ++k) same = ram_at(c, base + k) == first;
      if (same) ++solved;
    }
    v.aux[1] = v.aux[0];
    v.aux[0] = ram_at(c, 0xDB);
    bool timed_out = v.aux[0] == 0 && v.aux[1] == 255;
    v.reward = timed_out ? -1 : solved - v.score;
    v.score = solved;
    v.terminal = timed_out || solved == 6;
  }
  // Variation i is game number {1, 3, 9}[i] (low 5 bits of 0xFB hold it minus one);
  // then RIGHT is played (act, with sticky actions) until the cube number (BCD 0x9F)
  // is the one asked for.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    int cube = mode >= 100 ? mode / 100 : 1;
    int variation = mode % 100;
    int game = variation == 0 ? 1 : (variation == 1 ? 3 : 9);
    while ((env.ram(0xFB) & 0x1F) != game - 1) env.press_select(2);
    env.soft_reset();
    for (;;) {
      int b = env.ram(0x9F);
      if ((uint8_t)(10 * (b >> 4) + (b & 15)) == cube) break;
      env.act(3);   // RIGHT
    }
  }
  CULE_HD static int starting_actions(uint8_t* out) {   // 61 NOOP, FIRE, 2 NOOP
    for (int i = 0; i < 64; ++i) out[i] = 0;
    out[61] = 1;
    return 64;
  }
};

}}  // namespace cule::games
