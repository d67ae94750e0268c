// ALE 0.12.1 src/ale/games/supported/MsPacman.cpp
// cule-game: ms_pacman MsPacman
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct MsPacman : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xF8, 0xF9, 0xFA);
    update_score(v, score);
    int lives_byte = ram_at(c, 0xFB) & 0xF;
    int death_timer = ram_at(c, 0xA7);
    v.terminal = (lives_byte == 0 && death_timer == 0x53);
    v.lives = (lives_byte & 0x7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Mode 0 is the standard game (mode byte 1, variation 1); mode m > 0 is mode byte m
  // with variation 0.  SELECT is held 10 frames per press.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    int want_mode = mode == 0 ? 1 : mode, want_var = mode == 0 ? 1 : 0;
    while (env.ram(0x99) != want_mode || env.ram(0xA1) != want_var) env.press_select(10);
    env.soft_reset();
  }
};

}}  // namespace cule::games
