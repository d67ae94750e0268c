// ALE 0.12.1 src/ale/games/supported/DoubleDunk.cpp
// cule-game: double_dunk DoubleDunk
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct DoubleDunk : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int mine = decimal_score(c, 0xF6), theirs = decimal_score(c, 0xF7);
    int score = mine - theirs;
    update_score(v, score);
    v.terminal = (mine >= 24 || theirs >= 24) && ram_at(c, 0xFE) == 0xE7;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  CULE_HD static int starting_actions(uint8_t* out) { out[0] = 10; return 1; }   // UPFIRE

  // The options screen: DOWN moves the cursor (0xB0) to the next line, RIGHT / LEFT
  // switch the option bit in 0x80 on / off.  Every move is an act() then a NOOP act().
  template <class Env>
  CULE_HD static void go_down(Env& env) {
    int before = env.ram(0xB0);
    while (before == env.ram(0xB0)) { env.act(5); env.act(0); }
  }
  template <class Env>
  CULE_HD static void set_option(Env& env, int bit, bool on) {
    if (on) {
      while ((env.ram(0x80) & bit) != bit) { env.act(3); env.act(0); }
    } else {
      while ((env.ram(0x80) & bit) == bit) { env.act(4); env.act(0); }
    }
  }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    env.press_select(1);
    go_down(env);
    go_down(env);
    set_option(env, 0x08, mode & 1);
    go_down(env);
    set_option(env, 0x10, mode & 2);
    go_down(env);
    set_option(env, 0x04, mode & 4);
    go_down(env);
    set_option(env, 0x20, mode & 8);
    env.soft_reset();
    env.act(10);   // UPFIRE
    env.act(0);
  }
};

}}  // namespace cule::games
