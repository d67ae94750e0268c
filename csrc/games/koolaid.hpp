// ALE 0.12.1 src/ale/games/supported/Koolaid.cpp
// cule-game: koolaid Koolaid
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Score = BCD 0x81 (low) / 0x80 (high) in hundreds; the game ends when 0xD1 == 0x80.
struct Koolaid : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = decimal_score(c, 0x81, 0x80) * 100;
    update_score(v, score);
    v.terminal = ram_at(c, 0xD1) == 0x80;
  }
  CULE_HD static int lives(const Console&) { return 0; }
};

}}  // namespace cule::games
