// cule: per-game ALE settings: reward, terminal and lives read from RAM after every
// frame, and mode selection.  Facts: ALE 0.12.1 src/ale/games/supported/*.cpp
// (RAM addresses, score encodings, terminal conditions) and RomUtils (BCD scores).
#pragma once
#include "state.hpp"

namespace cule {

enum GameId : uint8_t {
  GAME_PONG = 0, GAME_BREAKOUT, GAME_SPACE_INVADERS, GAME_SEAQUEST, GAME_FREEWAY, GAME_MS_PACMAN,
  GAME_COUNT
};

// RomUtils readRam(): RAM byte at 0x80 + (offset & 0x7F).
CULE_HD int ram_at(const Console& c, int offset) { return c.riot.ram[offset & 0x7F]; }

// RomUtils getDecimalScore(): BCD bytes, lowest two digits first.
CULE_HD int bcd_byte(const Console& c, int index) {
  int v = ram_at(c, index);
  return 10 * (v >> 4) + (v & 15);
}
CULE_HD int decimal_score(const Console& c, int lo, int mid = -1, int hi = -1) {
  int s = bcd_byte(c, lo);
  if (mid >= 0) s += 100 * bcd_byte(c, mid);
  if (hi >= 0) s += 10000 * bcd_byte(c, hi);
  return s;
}

// RomSettings::reset().
CULE_HD void game_reset(Console& c, uint8_t game) {
  GameVars& v = c.game;
  v.reward = 0;
  v.score = 0;
  v.terminal = 0;
  v.started = 0;
  switch (game) {
    case GAME_BREAKOUT: v.lives = 5; break;
    case GAME_SPACE_INVADERS: v.lives = 3; break;
    case GAME_SEAQUEST: v.lives = 4; break;
    case GAME_MS_PACMAN: v.lives = 3; break;
    default: v.lives = 0; break;
  }
}

// RomSettings::step(): called after every emulated frame.
CULE_HD void game_step(Console& c, uint8_t game) {
  GameVars& v = c.game;
  switch (game) {
    case GAME_PONG: {
      int cpu = ram_at(c, 13), player = ram_at(c, 14);
      int score = player - cpu;
      v.reward = score - v.score;
      v.score = score;
      v.terminal = (cpu == 21 || player == 21);
      break;
    }
    case GAME_BREAKOUT: {
      int x = ram_at(c, 77), y = ram_at(c, 76);
      int score = (x & 0x0F) + 10 * ((x & 0xF0) >> 4) + 100 * (y & 0x0F);
      v.reward = score - v.score;
      v.score = score;
      int lives = ram_at(c, 57);
      if (!v.started && lives == 5) v.started = 1;
      v.terminal = v.started && lives == 0;
      v.lives = lives;
      break;
    }
    case GAME_SPACE_INVADERS: {
      int score = decimal_score(c, 0xE8, 0xE6);
      v.reward = score - v.score;
      if (v.reward < 0) v.reward = (10000 - v.score) + score;   // the score wraps at 10,000
      v.score = score;
      v.lives = ram_at(c, 0xC9);
      v.terminal = (ram_at(c, 0x98) & 0x80) || v.lives == 0;
      break;
    }
    case GAME_SEAQUEST: {
      int score = decimal_score(c, 0xBA, 0xB9, 0xB8);
      v.reward = score - v.score;
      v.score = score;
      v.terminal = ram_at(c, 0xA3) != 0;
      v.lives = ram_at(c, 0xBB) + 1;
      break;
    }
    case GAME_FREEWAY: {
      int score = decimal_score(c, 103);
      int r = score - v.score;
      v.reward = r < 0 ? 0 : (r > 1 ? 1 : r);
      v.score = score;
      v.terminal = ram_at(c, 22) == 1;
      break;
    }
    case GAME_MS_PACMAN: {
      int score = decimal_score(c, 0xF8, 0xF9, 0xFA);
      v.reward = score - v.score;
      v.score = score;
      int lives_byte = ram_at(c, 0xFB) & 0xF;
      int death_timer = ram_at(c, 0xA7);
      v.terminal = (lives_byte == 0 && death_timer == 0x53);
      v.lives = (lives_byte & 0x7) + 1;
      break;
    }
    default: break;
  }
}

// RomSettings::lives().
CULE_HD int game_lives(const Console& c, uint8_t game) {
  switch (game) {
    case GAME_PONG: case GAME_FREEWAY: return 0;
    case GAME_BREAKOUT: case GAME_SPACE_INVADERS: case GAME_SEAQUEST: case GAME_MS_PACMAN:
      return c.game.terminal ? 0 : c.game.lives;
    default: return c.game.terminal ? 0 : 1;
  }
}

// How RomSettings::setMode() finds a mode: SELECT is pressed (`presses` frames each)
// until the mode byte(s) in RAM match.  Returns false for games without modes.
struct ModeRule {
  int16_t ram;        // RAM offset of the mode byte, -1: no selectable modes
  int16_t ram2;       // second byte that must match (-1: none)
  uint8_t presses;    // frames SELECT is held per press
};

CULE_HD ModeRule game_mode_rule(uint8_t game) {
  switch (game) {
    case GAME_PONG: return {0x96, -1, 2};
    case GAME_BREAKOUT: return {0xB2, -1, 1};
    case GAME_SPACE_INVADERS: return {0xDC, -1, 2};
    case GAME_FREEWAY: return {0x80, -1, 1};
    case GAME_MS_PACMAN: return {0x99, 0xA1, 10};
    default: return {-1, -1, 0};
  }
}

// The RAM values that mean "mode m is selected".
CULE_HD bool game_mode_selected(const Console& c, uint8_t game, int mode) {
  ModeRule r = game_mode_rule(game);
  if (game == GAME_MS_PACMAN) {
    int m = ram_at(c, r.ram), var = ram_at(c, r.ram2);
    return mode == 0 ? (m == 1 && var == 1) : (m == mode && var == 0);
  }
  return ram_at(c, r.ram) == mode;
}

}  // namespace cule
