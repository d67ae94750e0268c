// ALE 0.12.1 src/ale/games/supported/Blackjack.cpp
// cule-game: blackjack Blackjack
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Blackjack : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    // Out of chips: the chip display shows the "bust" pattern 0x0B / 0xBB.
    bool bust = ram_at(c, 0x86) == 0x0B && ram_at(c, 0x89) == 0xBB;
    int score = bust ? 0 : decimal_score(c, 0x89, 0x86);
    update_score(v, score);
    v.terminal = bust || score >= 1000;
  }
};

}}  // namespace cule::games
