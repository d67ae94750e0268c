// ALE 0.12.1 src/ale/games/supported/Asterix.cpp
// cule-game: asterix Asterix
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Asterix : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xE0, 0xDF, 0xDE);
    update_score(v, score);
    v.lives = ram_at(c, 0xD3) & 0xF;
    v.terminal = ram_at(c, 0xC7) == 0x01 && v.lives == 1;   // death counter on the last life
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 1; return 1; }   // FIRE
};

}}  // namespace cule::games
