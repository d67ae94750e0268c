// ALE 0.12.1 src/ale/games/supported/MontezumaRevenge.cpp
// cule-game: montezuma_revenge MontezumaRevenge
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct MontezumaRevenge : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 6; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x95, 0x94, 0x93);
    update_score(v, score);
    int lives_byte = ram_at(c, 0xBA);
    v.terminal = lives_byte == 0 && ram_at(c, 0xFE) == 0x60;
    v.lives = (lives_byte & 0x7) + 1;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
