// ALE 0.12.1 src/ale/games/supported/BankHeist.cpp
// cule-game: bank_heist BankHeist
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct BankHeist : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xDA, 0xD9, 0xD8);
    update_score(v, score);
    int death_timer = ram_at(c, 0xCE);
    v.lives = ram_at(c, 0xD5);
    v.terminal = death_timer == 0x01 && v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 1); }
};

}}  // namespace cule::games
