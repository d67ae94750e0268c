// ALE 0.12.1 src/ale/games/supported/Frostbite.cpp
// cule-game: frostbite Frostbite
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Frostbite : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xCA, 0xC9, 0xC8);
    update_score(v, score);
    int lives_byte = ram_at(c, 0xCC) & 0xF;
    int flag = ram_at(c, 0xF1) & 0x80;
    v.terminal = lives_byte == 0 && flag != 0;
    v.lives = lives_byte + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 1); }
};

}}  // namespace cule::games
