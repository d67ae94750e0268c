// ALE 0.12.1 src/ale/games/supported/SirLancelot.cpp
// cule-game: sir_lancelot SirLancelot
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct SirLancelot : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xA0, 0x9F, 0x9E);
    update_score(v, score);
    v.lives = ram_at(c, 0xA9);
    v.terminal = v.lives == 0 && ram_at(c, 0xA7) == 0xA0;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::RESET; out[1] = action::LEFT; return 2; }
};

}}  // namespace cule::games
