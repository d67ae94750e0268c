// ALE 0.12.1 src/ale/games/supported/Pitfall2.cpp
// cule-game: pitfall2 Pitfall2
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

// No lives and no game over: the episode only ends at the maximum score, 199,000.
struct Pitfall2 : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 4000; v.terminal = 0; v.lives = 1; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0xC9, 0xC8, 0xC7);
    update_score(v, score);
    v.lives = 1;
    v.terminal = score == 199000;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = action::UP; return 1; }
};

}}  // namespace cule::games
