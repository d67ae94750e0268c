// ALE 0.12.1 src/ale/games/supported/StarGunner.cpp
// cule-game: star_gunner StarGunner
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Four score digits in the low nibbles of 0x83..0x86 (least significant first; 0xA
// is a blank), in hundreds.  Lives byte 0x87: 0 = game over; until it has read 5 once
// (`started`) the lives are reported as 5.
struct StarGunner : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; v.started = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 0, mult = 1;
    for (int d = 0; d < 4; ++d) {
      int x = ram_at(c, 0x83 + d) & 0x0F;
      if (x == 10) x = 0;
      score += mult * x;
      mult *= 10;
    }
    score *= 100;
    update_score(v, score);
    int b = ram_at(c, 0x87);
    v.terminal = b == 0;
    if (b == 0x05) v.started = 1;
    v.lives = v.started ? (b & 0xF) : 5;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Modes 0..3 (mode byte 0xF4), SELECT held 15 frames a press.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xF4, mode, 15); }
};

}}  // namespace cule::games
