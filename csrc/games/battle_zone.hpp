// ALE 0.12.1 src/ale/games/supported/BattleZone.cpp
// cule-game: battle_zone BattleZone
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct BattleZone : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // Score in thousands: three digits, 0xA stands for a blank digit.
    int a = ram_at(c, 0x9D), b = ram_at(c, 0x9E);
    int d0 = a >> 4, d1 = b & 15, d2 = b >> 4;
    if (d0 == 10) d0 = 0;
    if (d1 == 10) d1 = 0;
    if (d2 == 10) d2 = 0;
    int score = 1000 * (d0 + 10 * d1 + 100 * d2);
    update_score(v, score);
    v.lives = ram_at(c, 0xBA) & 0xF;
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xA1, mode, 2); }
};

}}  // namespace cule::games
