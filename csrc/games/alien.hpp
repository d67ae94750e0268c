// ALE 0.12.1 src/ale/games/supported/Alien.cpp
// cule-game: alien Alien
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

struct Alien : GameBase {
  // Score digits are stored as glyph offsets (digit * 8); 0x80 is a blank digit.
  CULE_HD static int digit(const Console& c, int offset) {
    int b = ram_at(c, offset);
    return b == 0x80 ? 0 : b >> 3;
  }
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; v.lives = 3; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int score = digit(c, 0x8B) + 10 * digit(c, 0x89) + 100 * digit(c, 0x87) +
                1000 * digit(c, 0x85) + 10000 * digit(c, 0x83);
    score *= 10;
    update_score(v, score);
    int lives = ram_at(c, 0xC0) & 15;
    v.terminal = lives <= 0;
    v.lives = lives;
  }
  // Alien reports the lives byte even after the game is over.
  CULE_HD static int lives(const Console& c) { return c.game.lives; }
  template <class Env>
  CULE_HD static void set_mode(Env& env, int mode) {
    while (env.ram(0x81) != mode) env.press_select(1);
    env.m.c.game.lives = env.ram(0xC0) & 15;
    env.soft_reset();
  }
};

}}  // namespace cule::games
