// ALE 0.12.1 src/ale/games/supported/VideoPinball.cpp
// cule-game: video_pinball VideoPinball
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xB0/0xB2/0xB4; bit 0 of 0xAF is game over.  Lives = 4 + extra ball (bit 0
// of 0xA8) - balls played (low 3 bits of 0x99).  Modes 0 and 2 (0xC1).
struct VideoPinball : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xB0, 0xB2, 0xB4);
    update_score(v, score);
    v.terminal = (ram_at(c, 0xAF) & 1) != 0;
    v.lives = 4 + (ram_at(c, 0xA8) & 1) - (ram_at(c, 0x99) & 7);
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xC1, mode, 2); }
};

}}  // namespace cule::games
