// ALE 0.12.1 src/ale/games/supported/KeystoneKapers.cpp
// cule-game: keystone_kapers KeystoneKapers
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

struct KeystoneKapers : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x9C, 0x9B);
    update_score(v, score);
    v.lives = ram_at(c, 0x96);
    v.terminal = v.lives == 0 && ram_at(c, 0x88) == 0x00;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::RESET; return 1; }
};

}}  // namespace cule::games
