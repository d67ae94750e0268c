// ALE 0.12.1 src/ale/games/supported/MrDo.cpp
// cule-game: mr_do MrDo
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct MrDo : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 4; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x82, 0x83) * 10;
    update_score(v, score);
    v.lives = ram_at(c, 0xDB);
    v.terminal = ram_at(c, 0xDA) == 0x40;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::FIRE; return 1; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 5); }
};

}}  // namespace cule::games
