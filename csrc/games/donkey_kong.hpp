// ALE 0.12.1 src/ale/games/supported/DonkeyKong.cpp
// cule-game: donkey_kong DonkeyKong
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct DonkeyKong : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 2; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = 100 * decimal_score(c, 0x88, 0x87);
    update_score(v, score);
    v.lives = ram_at(c, 0xA3);
    v.terminal = v.lives == 0 && ram_at(c, 0x8F) == 0x03 && ram_at(c, 0x8B) == 0x1F;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
};

}}  // namespace cule::games
