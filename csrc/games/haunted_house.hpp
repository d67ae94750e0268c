// ALE 0.12.1 src/ale/games/supported/HauntedHouse.cpp
// cule-game: haunted_house HauntedHouse
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// GameVars.score holds the match count last seen.
struct HauntedHouse : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.lives = 9; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    v.reward = 0;
    int matches = decimal_score(c, 0x82);
    if (matches != v.score) {   // every match struck costs a point
      v.reward -= 1;
      v.score = matches;
    }
    v.lives = ram_at(c, 0x96);
    bool escaped = ram_at(c, 0x99) == 0x44;   // left the house with the urn
    if (escaped) v.reward += 100;
    v.terminal = v.lives == 0 || escaped;
  }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0xCC, mode, 2); }
};

}}  // namespace cule::games
