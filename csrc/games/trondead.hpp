// ALE 0.12.1 src/ale/games/supported/Trondead.cpp
// cule-game: trondead Trondead
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score BCD 0xBF/0xBE/0xBD; hits taken 0xC8, five end the game; lives = 5 - hits.
struct Trondead : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 5; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xBF, 0xBE, 0xBD);
    update_score(v, score);
    int hits = ram_at(c, 0xC8);
    v.terminal = hits == 5;
    v.lives = 5 - hits;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
