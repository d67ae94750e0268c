// ALE 0.12.1 src/ale/games/supported/LostLuggage.cpp
// cule-game: lost_luggage LostLuggage
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0x96/0x95/0x94; lives 0xCA.  Game over: no lives and 0xC8 == 0x0A,
// 0xA5 == 0, 0xA9 == 0.  Actions with FIRE are illegal (act() turns them into NOOP).
struct LostLuggage : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x96, 0x95, 0x94);
    update_score(v, score);
    v.lives = ram_at(c, 0xCA);
    v.terminal = (v.lives == 0 && ram_at(c, 0xC8) == 0x0A && ram_at(c, 0xA5) == 0 && ram_at(c, 0xA9) == 0);
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  // FIRE is action 1 and the direction+FIRE actions are 10..17.
  CULE_HD static bool legal(uint8_t a) { return !(a == 1 || (a >= 10 && a <= 17)); }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
  // Game number 1 + 3m in 0x94.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x94, 1 + mode * 3, 2); }
};

}}  // namespace cule::games
