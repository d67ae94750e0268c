// ALE 0.12.1 src/ale/games/supported/Adventure.cpp
// cule-game: adventure Adventure
#pragma once
#include "actions.hpp"
#include "game_api.hpp"

namespace cule { namespace games {

// Reward 1 once the chalice is in the yellow castle; ALE never clears the reward in
// step(), only in reset().  lives() is always 1.
struct Adventure : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    bool chalice_home = ram_at(c, 0xB9) == 0x12;
    if (chalice_home) v.reward = 1;
    bool eaten = ram_at(c, 0xE0) == 2;
    v.terminal = eaten || chalice_home;
  }
  CULE_HD static int lives(const Console&) { return 1; }
  // Mode = bits 1-2 of $DD.  SELECT is held a random 2..257 frames (environment RNG:
  // level 3 seeds its object placement from the frame counter), then one NOOP step
  // lets the game's debouncer see the release.
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    int cur = (env.ram(0xDD) >> 1) & 0x03;
    while (cur != mode) {
      env.press_select(2 + (int)(mt_next(env.rng()) % 256));
      env.act(action::NOOP);
      cur = (env.ram(0xDD) >> 1) & 0x03;
    }
    env.soft_reset();
  }
};

}}  // namespace cule::games
