// ALE 0.12.1 src/ale/games/supported/MarioBros.cpp
// cule-game: mario_bros MarioBros
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0x8A (low) / 0x89 (high) in hundreds; lives 0x87 (0 = game over).
struct MarioBros : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.lives = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x8A, 0x89) * 100;
    update_score(v, score);
    v.lives = ram_at(c, 0x87);
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 5); }
  CULE_HD static int starting_actions(uint8_t* out) {   // 10 NOOP then 7 FIRE
    for (int i = 0; i < 10; ++i) out[i] = 0;
    for (int i = 10; i < 17; ++i) out[i] = 1;
    return 17;
  }
};

}}  // namespace cule::games
