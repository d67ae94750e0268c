// ALE 0.12.1 src/ale/games/supported/Tennis.cpp
// cule-game: tennis Tennis
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// Games (0xC7 player, 0xC8 computer) and points within the game (0xC5, 0xC6).  The
// reward is the change of the games difference if it changed, else the change of the
// points difference.  A set is won at 6 games with a 2-game lead, or at 7.
// aux[0] = last games difference, score = last points difference.
struct Tennis : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.aux[0] = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int my_pts = ram_at(c, 0xC5), their_pts = ram_at(c, 0xC6);
    int my_games = ram_at(c, 0xC7), their_games = ram_at(c, 0xC8);
    int d_pts = my_pts - their_pts, d_games = my_games - their_games;
    if (v.aux[0] != d_games) v.reward = d_games - v.aux[0];
    else if (v.score != d_pts) v.reward = d_pts - v.score;
    else v.reward = 0;
    v.aux[0] = d_games;
    v.score = d_pts;
    v.terminal = (my_games >= 6 && d_games >= 2) || (their_games >= 6 && -d_games >= 2) ||
                 my_games == 7 || their_games == 7;
  }
  CULE_HD static int lives(const Console&) { return 0; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) { select_until_ram_equals(env, 0x80, mode, 2); }
};

}}  // namespace cule::games
