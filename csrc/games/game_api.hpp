// cule: what every per-game rule set provides, with ALE's defaults (ALE 0.12.1
// RomSettings): every action legal, lives() = 0 when terminal else 1, a single mode
// (0) with nothing to select, no starting actions.
//
// A game is a struct deriving from GameBase in csrc/games/<ale_id>.hpp, with a marker
// line `// cule-game: <ale_id> <StructName>`; tools/gen_games.py collects the markers
// into csrc/games/dispatch.hpp (the GameId enum and the switch over games) and
// cule/_game_ids.py.  Members (all static, CULE_HD):
//   void reset(GameVars&)                     RomSettings::reset()
//   void step(Console&)                       RomSettings::step(): after every frame
//   int lives(const Console&)                 RomSettings::lives()
//   bool legal(uint8_t action)                RomSettings::isLegal()
//   template <class Env> void set_mode(Env&, int mode)   RomSettings::setMode()
//   int starting_actions(uint8_t* out)        RomSettings::getStartingActions(), <= 512
// Env (csrc/ale_env.hpp ModeEnv) offers ram(offset), press_select(frames = 1),
// soft_reset(), act(action) (StellaEnvironment::act, sticky actions and frameskip
// included) and rng() (the environment RNG).
#pragma once
#include "../state.hpp"

namespace cule {

// RomUtils readRam(): RAM byte at 0x80 + (offset & 0x7F).
CULE_HD int ram_at(const Console& c, int offset) { return c.riot.ram[offset & 0x7F]; }

// RomUtils getDecimalScore(): BCD bytes, lowest two digits first; -1 = no byte.
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

namespace games {

// RomSettings::step()'s usual reward: the change of the score since the last frame.
CULE_HD void update_score(GameVars& v, int score) {
  v.reward = score - v.score;
  v.score = score;
}

struct GameBase {
  CULE_HD static bool legal(uint8_t) { return true; }
  CULE_HD static int lives(const Console& c) { return c.game.terminal ? 0 : 1; }
  template <class Env>
  CULE_HD static void set_mode(Env&, int) {}
  CULE_HD static int starting_actions(uint8_t*) { return 0; }
};

// The common setMode() pattern: press SELECT (`frames` frames a press) until the mode
// byte in RAM equals the mode, then press RESET.
template <class Env>
CULE_HD void select_until_ram_equals(Env& env, int ram_offset, int mode, int frames) {
  while (env.ram(ram_offset) != mode) env.press_select(frames);
  env.soft_reset();
}

}  // namespace games
}  // namespace cule
