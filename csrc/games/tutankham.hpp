// ALE 0.12.1 src/ale/games/supported/Tutankham.cpp
// cule-game: tutankham Tutankham
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Tutankham : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x9C, 0x9A);
    update_score(v, score);
    int lives_byte = ram_at(c, 0x9E);
    // $81 is $84 after power-on until the first game starts.
    v.terminal = lives_byte == 0 && ram_at(c, 0x81) != 0x84;
    v.lives = lives_byte & 0x3;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xAB, mode, 2); }
};

}}  // namespace cule::games
