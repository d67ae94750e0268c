// ALE 0.12.1 src/ale/games/supported/HumanCannonball.cpp
// cule-game: human_cannonball HumanCannonball
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Hits (0xB6) and misses (0xB7) in BCD; the game ends at 7 of either.
struct HumanCannonball : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int hits = bcd_byte(c, 0xB6);
    update_score(v, hits);
    int misses = bcd_byte(c, 0xB7);
    v.terminal = (hits == 7 || misses == 7);
  }
  // 0xB6 holds the mode + 1 and 0xB7 the number of players while selecting; mode m is
  // reached with one player.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while ((uint8_t)(env.ram(0xB6) - 1) != mode || env.ram(0xB7) != 1) env.press_select(2);
    env.soft_reset();
  }
};

}}  // namespace cule::games
