// ALE 0.12.1 src/ale/games/supported/Kingkong.cpp
// cule-game: king_kong KingKong
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct KingKong : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x83, 0x82);
    update_score(v, score);
    v.lives = ram_at(c, 0xEE);
    v.terminal = v.lives == 0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // Modes 0..3 are the game's one-player variations 0, 2, 4, 6 ($EC).
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xEC, mode * 2, 2); }
};

}}  // namespace cule::games
