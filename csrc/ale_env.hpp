// cule: ALE's environment semantics for one console: power-on, reset_game, act with
// frameskip and sticky actions, paddles, truncation.  Facts: ALE 0.12.1
// StellaEnvironment, ALEState, Console (display auto-detect), System (RNG seeding).
#pragma once
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "console.hpp"
#include "games/dispatch.hpp"

namespace cule {

enum AleAction : uint8_t {
  A_NOOP = 0, A_FIRE, A_UP, A_RIGHT, A_LEFT, A_DOWN, A_UPRIGHT, A_UPLEFT, A_DOWNRIGHT, A_DOWNLEFT,
  A_UPFIRE, A_RIGHTFIRE, A_LEFTFIRE, A_DOWNFIRE, A_UPRIGHTFIRE, A_UPLEFTFIRE, A_DOWNRIGHTFIRE,
  A_DOWNLEFTFIRE, A_NUM_ACTIONS = 18, A_RESET = 40
};

constexpr int kPaddleDelta = 23000;               // ALE PADDLE_DELTA per frame

constexpr int32_t kRenderAll = 0x7fffffff;
constexpr int32_t kNoLivesLimit = -0x7fffffff - 1;   // EnvParams::max_lives when off

// The batch-wide ALE settings act() and reset_game() depend on.
struct EnvParams {
  int32_t frameskip;         // ALE frame_skip
  float repeat_p;            // ALE repeat_action_probability (a float, as ALE stores it)
  int32_t max_frames;        // ALE max_num_frames_per_episode (0: no limit)
  // How many of the last frames of an act() are drawn to pixels (the frames that feed
  // an observation); the others only emulate (collisions included).  kRenderAll draws
  // every frame, 0 none.  See ale_act_observed for how exactness is kept.
  int32_t render_last = kRenderAll;
  // ALE truncate_on_loss_of_life: the episode is truncated once the game's lives() is
  // below this, ALE's m_max_lives (lives() of the game's RomSettings as constructed,
  // game_initial_lives).  kNoLivesLimit: the setting is off (ALE's default).
  int32_t max_lives = kNoLivesLimit;
};

// Joystick directions and fire an action presses: bit 0 up, 1 down, 2 left, 3 right, 4 fire.
CULE_HD uint8_t action_joystick_bits(uint8_t a) {
  switch (a) {
    case A_FIRE: return 0x10;
    case A_UP: return 0x01;
    case A_RIGHT: return 0x08;
    case A_LEFT: return 0x04;
    case A_DOWN: return 0x02;
    case A_UPRIGHT: return 0x09;
    case A_UPLEFT: return 0x05;
    case A_DOWNRIGHT: return 0x0A;
    case A_DOWNLEFT: return 0x06;
    case A_UPFIRE: return 0x11;
    case A_RIGHTFIRE: return 0x18;
    case A_LEFTFIRE: return 0x14;
    case A_DOWNFIRE: return 0x12;
    case A_UPRIGHTFIRE: return 0x19;
    case A_UPLEFTFIRE: return 0x15;
    case A_DOWNRIGHTFIRE: return 0x1A;
    case A_DOWNLEFTFIRE: return 0x16;
    default: return 0;
  }
}

// ALEState::resetKeys(): releases everything and sets the difficulty switches.
CULE_HD void ale_reset_keys(Console& c) {
  c.in.joy[0] = c.in.joy[1] = 0;
  c.in.paddle_fire = 0;
  uint8_t d = c.difficulty;
  uint8_t e = 0;
  e |= (d & 1) ? 0x04 : 0x08;          // left difficulty A / B
  e |= (d & 2) ? 0x10 : 0x20;          // right difficulty A / B
  c.in.console = e;
}

CULE_HD void ale_set_paddles(Console& c, int32_t left, int32_t right) {
  c.left_paddle = left;
  c.right_paddle = right;
  c.in.paddle_res[0] = left;
  c.in.paddle_res[1] = right;
}

CULE_HD void ale_reset_paddles(Console& c, const GameConfig& g) {
  int32_t mid = (g.paddle_min + g.paddle_max) / 2;
  ale_set_paddles(c, mid, mid);
}

// ALEState::applyActionJoysticks() for player A (player B always NOOP here).
CULE_HD void ale_apply_joystick(Console& c, uint8_t a) {
  ale_reset_keys(c);
  if (a == A_RESET) c.in.console |= 0x01;
  else c.in.joy[0] = action_joystick_bits(a);
}

// ALEState::applyActionPaddles() for player A (player B: NOOP).  `step` is how far a
// paddle moves a frame: int(PADDLE_DELTA * |strength|), PADDLE_DELTA for strength 1.
CULE_HD void ale_apply_paddles(Console& c, const GameConfig& g, uint8_t a, int32_t step = kPaddleDelta) {
  ale_reset_keys(c);
  int delta = 0;
  uint8_t bits = action_joystick_bits(a);
  if (a != A_RESET) {
    if (bits & 0x08) delta = -step;
    else if (bits & 0x04) delta = step;
  }
  int32_t left = c.left_paddle + delta;
  if (left < g.paddle_min) left = g.paddle_min;
  if (left > g.paddle_max) left = g.paddle_max;
  int32_t right = c.right_paddle;
  if (right < g.paddle_min) right = g.paddle_min;
  if (right > g.paddle_max) right = g.paddle_max;
  ale_set_paddles(c, left, right);
  if (a == A_RESET) c.in.console |= 0x01;
  if (a != A_RESET && (bits & 0x10)) c.in.paddle_fire |= 0x01;
}

// One emulated frame followed by the RomSettings step, as StellaEnvironment::emulate does.
CULE_HD void ale_frame(Machine& m) {
  run_frame(m);
  game_step(m.c, m.g.game_id);
}

// StellaEnvironment::processRAM(), which ends every emulate() (so every act frame),
// pressSelect() and restoreState(): it copies the RAM through System::peek, which
// leaves each byte read on the data bus (ALE 0.12.1 System.hxx), the last being RAM
// byte 0x7F.  Only the next frame's first access can see it, and only when that is a
// TIA read (the TIA returns the bus in bits 0-5): a CPU running code from TIA
// addresses, as a crashed program does.  (Between the frames of a multi-frame emulate,
// the 60 NOOP frames and the soft resets of reset_game, ALE's bus holds the
// RomSettings step's last RAM read instead; that is not modelled: those frames start
// from the reset vector's code.)
CULE_HD void ale_process_ram(Console& c) { c.data_bus = c.riot.ram[0x7F]; }

// The frames of StellaEnvironment::emulate(a, NOOP, n), without its processRAM.
CULE_HD void ale_emulate_frames(Machine& m, uint8_t a, int n) {
  LaneTeam team;
  if (m.g.use_paddles) {
    for (int i = 0; !team.leaves(i >= n); ++i) {
      ale_apply_paddles(m.c, m.g, a);
      ale_frame(m);
    }
  } else {
    ale_apply_joystick(m.c, a);
    for (int i = 0; !team.leaves(i >= n); ++i) ale_frame(m);
  }
}

// StellaEnvironment::emulate(a, NOOP, n).
CULE_HD void ale_emulate(Machine& m, uint8_t a, int n) {
  ale_emulate_frames(m, a, n);
  ale_process_ram(m.c);
}

CULE_HD void ale_soft_reset(Machine& m) {
  ale_emulate(m, A_RESET, 4);
  m.c.action_a = A_NOOP;
}

// StellaEnvironment::pressSelect(n).
CULE_BIG void ale_press_select(Machine& m, int n) {
  ale_reset_keys(m.c);
  m.c.in.console |= 0x02;
  for (int i = 0; i < n; ++i) run_frame(m);
  ale_process_ram(m.c);
  ale_emulate(m, A_NOOP, 1);
  m.c.frame_number++;
  m.c.episode_frame_number++;
}

// The console and its frame buffers as power-on leaves them before the environment's
// part (the RNG seed, mode and difficulty): a function of the game alone, so a batch
// computes it once (ale_power_on_hardware) and each power-on copies it instead of
// emulating the auto-detection frames again.
struct PowerOnState {
  Console c;
  uint8_t fbs[2 * kFrameBufferBytes];
};

// Power-on up to the environment's part: the Console ctor and the StellaEnvironment
// ctor's paddle reset.  Depends on the game (m.g, m.rom) only.
CULE_BIG void ale_power_on_hardware(Machine& m) {
  Console& c = m.c;
  const GameConfig& g = m.g;
  // Zero everything first: a fresh Console has no history.
  uint8_t* raw = (uint8_t*)&c;
  for (uint32_t i = 0; i < sizeof(Console); ++i) raw[i] = 0;
  mt_seed(c.sys_rng, g.system_seed);
  for (int i = 0; i < 128; ++i) c.riot.ram[i] = (uint8_t)mt_next(c.sys_rng);
  riot_reset(c);   // the M6532 constructor resets itself once
  sound_power_on(c.snd);   // loadROM makes a new sound device
  // Switches' latch from the properties (difficulty B clears the bit; colour TV sets 0x08).
  uint8_t sw = 0xFF;
  if (!g.right_diff_a) sw &= (uint8_t)~0x80;
  if (!g.left_diff_a) sw &= (uint8_t)~0x40;
  c.riot.swchb = sw;
  cart_power_on(c, g);
  c.cpu.sp = 0xFF;
  if (g.autodetect) {
    // Console::Console(): format auto-detection runs 60 frames with no input, as NTSC,
    // with the properties' height.
    system_reset(m, false, g.height);
    for (int i = 0; i < 60; ++i) run_frame(m);
  }
  // (The auto-detection frames above are not drawn: render is 0 in a zeroed console,
  // and the reset below clears both frame buffers anyway.)
  system_reset(m, g.pal != 0, g.screen_height);
  c.tia.render = 1;
  // StellaEnvironment ctor.
  if (g.use_paddles) ale_reset_paddles(c, g);
}

// A batch's PowerOnState for game g with ROM image rom, computed on the host (both
// backends build theirs with it; the CUDA backend then uploads it).
inline void make_power_on_state(PowerOnState& s, const GameConfig& g, const uint8_t* rom) {
  Machine m{s.c, g, rom, s.fbs};
  ale_power_on_hardware(m);
}

// Power-on: the console as ALE constructs it (Console ctor, then StellaEnvironment ctor).
// `env_seed` seeds the environment RNG (sticky actions), as ALE's random_seed.  With a
// batch's PowerOnState (m.power_on) the hardware part is copied from it.
CULE_BIG void ale_power_on(Machine& m, uint32_t env_seed, uint16_t mode, uint8_t difficulty) {
  Console& c = m.c;
  if (m.power_on) {
    memcpy(&c, &m.power_on->c, sizeof(Console));
    memcpy(m.fbs, m.power_on->fbs, 2 * (size_t)kFrameBufferBytes);
  } else {
    ale_power_on_hardware(m);
  }
  mt_seed(c.env_rng, env_seed);
  c.mode = mode;
  c.difficulty = difficulty;
  c.action_a = A_NOOP;
}

// StellaEnvironment::isGameTruncated: the frame limit reached, or (with
// truncate_on_loss_of_life) fewer lives than the game starts with.  Judged afresh at
// every query in ALE, from the episode frame number and the RomSettings' last step.
CULE_HD bool ale_truncated(const Console& c, const GameConfig& g, const EnvParams& p) {
  if (p.max_frames > 0 && c.episode_frame_number >= p.max_frames) return true;
  return p.max_lives != kNoLivesLimit && game_lives(c, g.game_id) < p.max_lives;
}

// ALE's m_max_lives for a game: lives() of its RomSettings as the constructor leaves
// them (ALE 0.12.1: every constructor calls reset(), except Freeway's, whose lives()
// is constant).  Atlantis2Settings::reset leaves m_lives uninitialised; ALE's
// prototype objects are allocated at start-up, where it reads 0, and so does this
// zero-filled console's.  Host only.
inline int32_t game_initial_lives(uint8_t game_id) {
  Console c;
  memset((void*)&c, 0, sizeof(Console));
  game_reset(c, game_id);
  return game_lives(c, game_id);
}

// ALEState::applyActionPaddles's step for a paddle strength: int(+-PADDLE_DELTA *
// fabs(strength)) a frame (fabs of the float promoted to double); strength 1 gives
// PADDLE_DELTA.
CULE_HD int32_t paddle_delta(float strength) {
  return (int32_t)((double)kPaddleDelta * fabs((double)strength));
}

// The action ALE applies for a frame: the sticky one, illegal ones as NOOP (ALE's
// noopIllegalActions), on the joystick or, moved by the paddle strength `sticky`, the
// paddles.
CULE_HD void ale_apply_action(Machine& m, float sticky) {
  uint8_t a = m.c.action_a;
  if (a == A_RESET || (a < A_NUM_ACTIONS && !game_legal(m.g.game_id, a))) a = A_NOOP;
  if (m.g.use_paddles) ale_apply_paddles(m.c, m.g, a, paddle_delta(sticky));
  else ale_apply_joystick(m.c, a);
}

// The sticky-action draws of one frame of StellaEnvironment::act: player A's (the new
// action and its paddle strength are taken when the draw is >= repeat_action_probability,
// else the previous ones stay), then player B's (always NOOP here, but drawn).
CULE_HD void ale_sticky_draws(Console& c, uint8_t action, float strength, float& sticky, const EnvParams& p) {
  if (mt_next_double(c.env_rng) >= (double)p.repeat_p) {
    c.action_a = action;
    sticky = strength;
  }
  (void)mt_next_double(c.env_rng);   // player B's draw
}

// Whether act() skips its frames: the episode is over (terminal or truncated).
CULE_HD bool ale_act_skips(const Console& c, const GameConfig& g, const EnvParams& p) {
  return c.game.terminal || ale_truncated(c, g, p);
}

// ALE's act saves its screen (m_screen) before each frame, run or refused, when
// record_screen_dir is set: the console's two frame buffers into the next ScreenLog entry.
CULE_HD void ale_log_screen(Machine& m) {
  ScreenLog* log = m.screen_log;
  if (!log) return;
  if (log->count < log->capacity) {
    uint8_t* e = log->data + (size_t)log->count * 2 * kFrameBufferBytes;
    const uint8_t* cur = m.fb();
    memcpy(e, cur, kFrameBufferBytes);
    memcpy(e + kFrameBufferBytes, cur == m.fbs ? m.fbs + kFrameBufferBytes : m.fbs, kFrameBufferBytes);
  }
  ++log->count;
}

// The rest of an act() frame that is not skipped: the sticky action applied, one frame
// emulated and counted.  Returns the frame's reward.
CULE_HD int32_t ale_act_frame(Machine& m, float sticky) {
  Console& c = m.c;
  ale_apply_action(m, sticky);
  ale_frame(m);
  ale_process_ram(c);   // oneStepAct's emulate(..., 1)
  c.frame_number++;
  c.episode_frame_number++;
  return c.game.reward;
}

// StellaEnvironment::act(action, NOOP, strength): frameskip frames with sticky actions;
// the paddle strength sticks together with the action (`sticky` is ALE's
// m_paddle_a_strength).  Returns the summed reward.  set_render: draw the last
// p.render_last frames, tentatively (2) when some are not drawn; otherwise the caller's
// c.tia.render stands.
CULE_HD int32_t ale_act_strength(Machine& m, uint8_t action, float strength, float& sticky, const EnvParams& p,
                                 bool set_render) {
  Console& c = m.c;
  int32_t total = 0;
  LaneTeam team;
  for (int i = 0; !team.leaves(i >= p.frameskip); ++i) {
    ale_sticky_draws(c, action, strength, sticky, p);
    ale_log_screen(m);
    if (ale_act_skips(c, m.g, p)) continue;
    if (set_render)
      c.tia.render = (p.frameskip - i <= p.render_last) ? (p.render_last >= p.frameskip ? 1 : 2) : 0;
    total += ale_act_frame(m, sticky);
  }
  c.truncated = ale_truncated(c, m.g, p) ? 1 : 0;
  return total;
}

// The end of StellaEnvironment::act with sound observations (processAudio after the
// act's last frame, also when the game over skipped it): 512 samples into m.audio.
// The vector env never has sound, so its step (which calls ale_act_strength) leaves
// this out.
CULE_HD void ale_act_audio(Machine& m) {
  if (m.audio) sound_process(m.c.snd, m.audio);
}

// StellaEnvironment::act(a, NOOP): paddle strength 1, the last p.render_last frames drawn.
CULE_BIG int32_t ale_act(Machine& m, uint8_t action, const EnvParams& p) {
  float sticky = 1.0f;
  const int32_t r = ale_act_strength(m, action, 1.0f, sticky, p, true);
  ale_act_audio(m);
  return r;
}

// Whether an act with these parameters leaves some of its frames undrawn (and so may
// have to be redone drawing all: see ale_act_observed).
CULE_HD bool ale_draws_partially(const EnvParams& p) { return p.render_last > 0 && p.render_last < p.frameskip; }

// Whether the buffer ALE would show now (the current frame's) holds exactly ALE's pixels.
CULE_HD bool ale_screen_exact(const Console& c) { return (c.tia.fb_exact >> c.tia.cur_buf) & 1u; }

// ale_act drawing only the last p.render_last (>= 2) frames, with both frame buffers
// guaranteed to hold ALE's exact pixels afterwards.  Usually the last two frames cover
// the whole screen and the undrawn frames before them don't matter.  When they don't
// (a frame stopped early, or the episode ended inside the frameskip so the last frames
// emulated were not drawn), `reload()` puts the console back as it was before the call
// and the act is repeated drawing every frame: emulation is deterministic, every pixel
// the first pass drew is drawn again, and since both buffers were exact before the
// call (this invariant holds from the reset that cleared them), they are exact after.
template <class Reload>
CULE_HD int32_t ale_act_observed(Machine& m, uint8_t action, const EnvParams& p, Reload&& reload) {
  int32_t r = ale_act(m, action, p);
  if (ale_draws_partially(p) && m.c.tia.fb_exact != 3) {
    reload();
    EnvParams all = p;
    all.render_last = kRenderAll;
    r = ale_act(m, action, all);
  }
  return r;
}

// What RomSettings::setMode() may use (ALE's StellaEnvironmentWrapper + readRam).
struct ModeEnv {
  Machine& m;
  const EnvParams& p;
  // readRam goes through System::peek: the byte read is left on the data bus.
  CULE_HD int ram(int offset) const {
    const int v = ram_at(m.c, offset);
    m.c.data_bus = (uint8_t)v;
    return v;
  }
  CULE_HD void press_select(int frames = 1) { ale_press_select(m, frames); }
  CULE_HD void soft_reset() { ale_soft_reset(m); }
  CULE_HD int32_t act(uint8_t a) { return ale_act(m, a, p); }
  CULE_HD Mt19937& rng() { return m.c.env_rng; }
};

// ---- ALEInterface's setters --------------------------------------------------------
//
// setRAM, setMode and setDifficulty on one console (ALE 0.12.1):
//   * setRAM(i, v): StellaEnvironment::setRAM pokes v at $80 + i through the System, so
//     the RIOT's RAM byte becomes v and so does the data bus (System::poke);
//   * setMode(m): StellaEnvironment::setMode only stores m; the next reset_game selects
//     it (RomSettings::setMode between its two soft resets);
//   * setDifficulty(d): only stored; the switches take it at the next frame's input
//     (ALEState::resetKeys sets them whenever an action is applied).
// The callers check the index and the values (the game's modes and difficulties).
enum ConsoleSetter : int32_t { kSetRam = 0, kSetMode = 1, kSetDifficulty = 2 };

CULE_HD void ale_set(Console& c, int32_t what, int32_t index, int32_t value) {
  if (what == kSetRam) {
    c.riot.ram[index & 0x7F] = (uint8_t)value;
    c.data_bus = (uint8_t)value;
  } else if (what == kSetMode) {
    c.mode = (uint16_t)value;
  } else {
    c.difficulty = (uint8_t)value;
  }
}

// ---- ALE's restoreState ----------------------------------------------------------
//
// ALEInterface::restoreState (ale-py 0.12.1: ALEState::load) loads what cloneState
// serialised: the System (cycles, system RNG), the 6507's registers, RIOT, TIA
// registers and clocks, the cartridge, the game's RomSettings variables, paddles, frame
// counters, mode and difficulty, and the environment RNG only if the state was cloned
// with include_rng.  Everything else goes on from before the restore (facts from the
// save()/load() methods of ALE 0.12.1's src/ale/emucore and games/supported):
//   * the sticky action (StellaEnvironment's m_player_a_action) and the events (Event:
//     joystick, console switches, paddle resistances) with Switches' latched SWCHB;
//   * M6502's last-access-was-read flag;
//   * the sound registers and tone generators (tia_sound.hpp);
//   * the TIA's frame buffers with which is current, the frame pointer, its
//     partial-frame and frame-greyed flags, and its object masks (pointers Stella
//     only moves at register writes);
// and some fields come back changed:
//   * DPC: the music oscillator's fractional clocks, saved as (uint32) (x * 1e8);
//   * miniature_golf: five integers saved with putBool and read with getInt, so each
//     comes back as the bool's 32-bit marker (0xfab1fab2 true, 0xbad1bad2 false);
//   * atlantis2's lives, chopper_command's and demon_attack's flag (GameVars.started),
//     video_checkers' reverse-rules flag and the last timer byte that hangman and
//     video_cube keep to detect the timer's wrap (m_timerArray[0]) are not saved at all;
//   * E0 carts (CartridgeE0::load) read the slice numbers back but do not re-map the
//     pages, so the CPU reads the slices mapped before the restore until the program
//     next touches a hotspot.  cule's slices are the mapping, so they are kept.  (The
//     other mappers' load() re-selects the saved bank.)
//
// dst is the console before the restore; it becomes the restored one (with truncation
// judged by p, the restoring env's max_num_frames_per_episode and lives limit).  The
// frame buffers are the caller's: ALE's stay as they were, so the caller keeps them.
CULE_HD void ale_restore_state(Console& dst, const Console& snap, const GameConfig& g, bool include_rng,
                               const EnvParams& p) {
  const Console was = dst;
  dst = snap;
  dst.action_a = was.action_a;
  dst.in = was.in;
  dst.riot.swchb = was.riot.swchb;
  dst.last_access_read = was.last_access_read;
  // The data bus is not restored either, but restoreState ends with processRAM.
  ale_process_ram(dst);
  dst.snd = was.snd;   // ALE's sound device saves nothing it uses (tia_sound.hpp)
  if (!include_rng) dst.env_rng = was.env_rng;
  TiaState& t = dst.tia;
  const TiaState& w = was.tia;
  t.cur_buf = w.cur_buf;
  t.fb_exact = w.fb_exact;
  t.frame_rendered = w.frame_rendered;
  t.render = w.render;
  t.fb_pos = w.fb_pos;
  t.partial_frame = w.partial_frame;
  t.frame_greyed = w.frame_greyed;
  t.p0m_pos = w.p0m_pos; t.p1m_pos = w.p1m_pos; t.m0m_pos = w.m0m_pos; t.m1m_pos = w.m1m_pos;
  t.blm_pos = w.blm_pos;
  t.p0m_en = w.p0m_en; t.p0m_mode = w.p0m_mode; t.p1m_en = w.p1m_en; t.p1m_mode = w.p1m_mode;
  t.m0m_num = w.m0m_num; t.m0m_size = w.m0m_size; t.m0m_off = w.m0m_off;
  t.m1m_num = w.m1m_num; t.m1m_size = w.m1m_size; t.blm_size = w.blm_size;
  t.pfm_reflect = w.pfm_reflect;
  if (g.cart_type == CART_E0)
    for (int k = 0; k < 3; ++k) dst.cart.slice[k] = was.cart.slice[k];
  if (g.cart_type == CART_DPC)
    dst.cart.dpc.frac_clocks = (double)(int32_t)(uint32_t)(snap.cart.dpc.frac_clocks * 100000000.0) / 100000000.0;
  GameVars& v = dst.game;
  switch (g.game_id) {
    case GAME_ATLANTIS2: v.lives = was.game.lives; break;
    case GAME_CHOPPER_COMMAND:
    case GAME_DEMON_ATTACK: v.started = was.game.started; break;
    case GAME_VIDEO_CHECKERS: v.aux[0] = was.game.aux[0]; break;
    case GAME_HANGMAN: v.lives = was.game.lives; break;       // the timer byte (hangman.hpp)
    case GAME_VIDEO_CUBE: v.aux[0] = was.game.aux[0]; break;  // the timer byte (video_cube.hpp)
    case GAME_MINIATURE_GOLF: {
      int32_t* f[5] = {&v.aux[0], &v.aux[1], &v.aux[2], &v.aux[3], &v.score};
      for (int32_t* x : f) *x = (int32_t)(*x ? 0xfab1fab2u : 0xbad1bad2u);
      break;
    }
    default: break;
  }
  // ALE derives truncation from the restored episode frame number and RomSettings, and
  // its own limits.
  dst.truncated = ale_truncated(dst, g, p) ? 1 : 0;
}

// ---- the reset_game memo ----------------------------------------------------------
//
// reset_game emulates about 70 frames (60 NOOP frames after the system reset, two soft
// resets, the mode selection and the game's starting actions).  ALE carries RAM over
// between episodes, so a reset cannot start from a stored state.  But most games clear
// their RAM at power-up, and a couple of frames after the system reset the whole console
// is then the same whatever the episode before left (measured on the host: every field
// of the Console agrees after 2 of the 60 frames, frame buffers included, for pong,
// seaquest, space_invaders, qbert ...).  From that checkpoint on, reset_game is a function
// of the console alone, so its end state can be reused: a reset whose console at the
// checkpoint equals a recorded one, byte for byte, takes the recorded end state instead
// of emulating the rest.  Exact by construction: the comparison covers everything the
// rest of reset_game reads, and what it leaves out is checked not to matter:
//   * frame_number: only counted up (the recorded increase is added);
//   * the RNGs (sys_rng, env_rng): a recording in which the rest of reset_game draws
//     from either is not used;
//   * the sound generators' running state (SoundState's p4, p5, div; sound observations
//     only): only an act clocks them (and writes the audio samples), and every act
//     draws from env_rng, so a recording whose rest of reset_game acted is not used;
//     the sound registers are compared;
//   * which frame buffer is current (tia.cur_buf, and the per-buffer bits of
//     tia.fb_exact): buffers are compared and written as "current" and "other".
// Any difference (a game that keeps RAM over, other parameters, a mode change) is a
// miss, and the reset runs in full.  A full reset_game records into a free slot of its
// class: the resets of running games into the first kResetMemoSlots, the resets that
// follow a power-on (Machine::after_power_on: loadROM's, and a reseeded vector-env
// reset's two) into the last kPowerOnMemoSlots, so that they cannot take the slots the
// episodes' resets need.  Every console of a batch powers on alike (PowerOnState, the
// RNGs apart), so one console's power-on resets serve the whole batch: the backends
// run one console's first (the leader) and the others' then take its slots.  A reset
// of either class takes any matching slot.  A slot is written once and only read after
// it is complete, so threads and GPU lanes can share a memo.  CULE_RESET_MEMO=0 in the
// environment turns it off (cpu_backend.hpp, cuda_backend.cu).

static_assert(offsetof(Console, env_rng) == offsetof(Console, sys_rng) + sizeof(Mt19937) &&
                  offsetof(Console, env_rng) + sizeof(Mt19937) + alignof(Console) > sizeof(Console),
              "the memo takes the two RNGs to be the Console's last members");

// NOOP frames of reset_game's 60 after which the console is compared.
constexpr int kResetMemoCheckpoint = 2;
constexpr int kResetMemoSlots = 2;     // for the resets of running games: slots 0, 1
constexpr int kPowerOnMemoSlots = 2;   // for the resets after a power-on: slots 2, 3
constexpr int kMemoSlots = kResetMemoSlots + kPowerOnMemoSlots;

enum : int32_t { kMemoEmpty = 0, kMemoRecording = 1, kMemoReady = 2, kMemoUnusable = 3 };

struct ResetMemoSlot {
  int32_t state;             // kMemo*
  int32_t hits;              // resets that used it
  int32_t start_skipped;     // noop-start frames taken from its start memo (below)
  int32_t start_run;         // ... and emulated, by the walks that began at its end state
  int32_t frame_delta;       // frame_number's increase from the checkpoint to the end
  int32_t frameskip, max_frames, render_last, max_lives;
  float repeat_p;
  Console key;               // the recording reset's console at the checkpoint
  Console result;            // ... and at the end
  uint8_t key_fbs[2 * kFrameBufferBytes];
  uint8_t result_fbs[2 * kFrameBufferBytes];
};

// The noop-start memo's nodes (see "the noop-start memo" below): node (f, k) of a slot
// is the console after f FIRE frames and then k NOOP frames from the slot's end state.
constexpr int kStartFires = 4;    // f < 4
constexpr int kStartNoops = 30;   // k < 30: ale-py's noop_max 30 starts at most 29 frames

struct StartNode {
  int32_t state;             // kMemo* (kMemoUnusable: the frame drew from an RNG, ended the
                             // game or left tia.cur_buf outside 0 / 1)
  int32_t frame_delta;       // frame_number's increase from the walk's start
  uint8_t cur_rel;           // tia.cur_buf relative to the walk's start (xor)
  Console c;
  uint8_t fbs[2 * kFrameBufferBytes];
};

struct StartNodes {
  StartNode node[kMemoSlots][kStartFires][kStartNoops];   // node (0, 0) unused
};

// Zero-filled memory is an empty memo (without noop-start nodes).
struct ResetMemo {
  ResetMemoSlot slot[kMemoSlots];
  // The noop-start memo's nodes (48 MB), zero-filled, allocated by the batch when a
  // vector env is made on it (only vector envs start with noops); null: none.
  StartNodes* start;
};

// Atomics shared by CPU threads and GPU lanes.
CULE_HD int32_t memo_load(const int32_t* p) {
#if defined(__CUDA_ARCH__)
  const int32_t v = *(const volatile int32_t*)p;
  __threadfence();
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}
CULE_HD void memo_publish(int32_t* p, int32_t v) {
#if defined(__CUDA_ARCH__)
  __threadfence();
  *(volatile int32_t*)p = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}
CULE_HD bool memo_claim(int32_t* p) {
#if defined(__CUDA_ARCH__)
  return atomicCAS((int*)p, (int)kMemoEmpty, (int)kMemoRecording) == (int)kMemoEmpty;
#else
  int32_t expected = kMemoEmpty;
  return __atomic_compare_exchange_n(p, &expected, (int32_t)kMemoRecording, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
#endif
}
CULE_HD void memo_count(int32_t* p, int32_t n = 1) {
#if defined(__CUDA_ARCH__)
  atomicAdd((int*)p, (int)n);
#else
  __atomic_fetch_add(p, n, __ATOMIC_RELAXED);
#endif
}

// Byte offsets of the Console the comparison treats apart.  Everything from kMemoOwn on
// is the console's own and is carried through a memo hit: the sound generators' running
// state (only an act clocks them, tia_sound.hpp) and the RNGs.  A recording whose rest
// of reset_game changed any of it is not used (an act, which makes audio, always draws
// from env_rng).
constexpr size_t kMemoFrameNumber = offsetof(Console, frame_number);
constexpr size_t kMemoOwn = offsetof(Console, snd) + offsetof(SoundState, p4);
static_assert(offsetof(Console, snd) + sizeof(SoundState) + alignof(Mt19937) > offsetof(Console, sys_rng) &&
                  offsetof(SoundState, p5) == offsetof(SoundState, p4) + 2 &&
                  offsetof(SoundState, div) + sizeof(SoundState::div) == sizeof(SoundState),
              "the memo takes the sound generators and then the RNGs to be the Console's last bytes");
constexpr size_t kMemoCurBuf = offsetof(Console, tia) + offsetof(TiaState, cur_buf);
constexpr size_t kMemoFbExact = offsetof(Console, tia) + offsetof(TiaState, fb_exact);

// fb_exact's bits as (current buffer, other buffer).
CULE_HD uint8_t memo_exact_rel(uint8_t fb_exact, uint8_t cur) {
  return cur ? (uint8_t)(((fb_exact & 1u) << 1) | ((fb_exact >> 1) & 1u)) : (uint8_t)(fb_exact & 3u);
}

CULE_HD bool memo_params_equal(const ResetMemoSlot& s, const EnvParams& p) {
  return s.frameskip == p.frameskip && s.max_frames == p.max_frames && s.render_last == p.render_last &&
         s.repeat_p == p.repeat_p && s.max_lives == p.max_lives;
}

// Whether the console (at the checkpoint) and its frame buffers equal the slot's key.
CULE_BIG bool memo_matches(const Machine& m, const ResetMemoSlot& s) {
  const uint8_t* a = (const uint8_t*)&m.c;
  const uint8_t* k = (const uint8_t*)&s.key;
  for (size_t i = 0; i < kMemoOwn; ++i) {
    if (i >= kMemoFrameNumber && i < kMemoFrameNumber + sizeof(int32_t)) continue;
    if (i == kMemoCurBuf) continue;
    if (i == kMemoFbExact) {
      if (memo_exact_rel(a[i], m.c.tia.cur_buf) != memo_exact_rel(k[i], s.key.tia.cur_buf)) return false;
      continue;
    }
    if (a[i] != k[i]) return false;
  }
  for (int b = 0; b < 2; ++b) {
    const uint32_t* x = (const uint32_t*)(m.fbs + (size_t)(b ^ m.c.tia.cur_buf) * kFrameBufferBytes);
    const uint32_t* y = (const uint32_t*)(s.key_fbs + (size_t)(b ^ s.key.tia.cur_buf) * kFrameBufferBytes);
    for (int w = 0; w < kFrameBufferBytes / 4; ++w)
      if (x[w] != y[w]) return false;
  }
  return true;
}

// The console := `src` (a recorded console) apart from its own bytes (kMemoOwn: the
// sound generators and the RNGs), with frame_number and
// tia.cur_buf as given; fb_exact's bits and both frame buffers := src's, in the same
// roles (current, other) relative to the new cur_buf.
CULE_BIG void memo_put(Machine& m, const Console& src, const uint8_t* src_fbs, int32_t frame_number, uint8_t cur) {
  uint8_t* a = (uint8_t*)&m.c;
  const uint8_t* r = (const uint8_t*)&src;
  for (size_t i = 0; i < kMemoOwn; ++i) a[i] = r[i];
  m.c.frame_number = frame_number;
  m.c.tia.cur_buf = cur;
  const uint8_t rel = memo_exact_rel(src.tia.fb_exact, src.tia.cur_buf);
  m.c.tia.fb_exact = memo_exact_rel(rel, cur);   // the same swap undoes itself
  for (int b = 0; b < 2; ++b) {
    uint32_t* x = (uint32_t*)(m.fbs + (size_t)(b ^ cur) * kFrameBufferBytes);
    const uint32_t* y = (const uint32_t*)(src_fbs + (size_t)(b ^ src.tia.cur_buf) * kFrameBufferBytes);
    for (int w = 0; w < kFrameBufferBytes / 4; ++w) x[w] = y[w];
  }
}

// The console and frame buffers as the recorded reset_game left them, from this one's
// checkpoint: frame counter advanced, RNGs kept, buffers in the same roles.
CULE_BIG void memo_apply(Machine& m, const ResetMemoSlot& s) {
  memo_put(m, s.result, s.result_fbs, m.c.frame_number + s.frame_delta,
           (uint8_t)(m.c.tia.cur_buf ^ s.key.tia.cur_buf ^ s.result.tia.cur_buf));
}

// At the checkpoint: true if a recorded slot matched and was applied.  A console whose
// cur_buf is neither 0 nor 1 (only a hand-made snapshot has one) runs in full.
CULE_BIG bool memo_use(Machine& m, const EnvParams& p) {
  if (m.c.tia.cur_buf > 1) return false;
  for (int i = 0; i < kMemoSlots; ++i) {
    ResetMemoSlot& s = m.memo->slot[i];
    if (memo_load(&s.state) != kMemoReady) continue;
    if (!memo_params_equal(s, p) || !memo_matches(m, s)) continue;
    memo_apply(m, s);
    memo_count(&s.hits);
    m.memo_slot = i;
    return true;
  }
  return false;
}

// At the checkpoint of a reset that missed: claims the first empty slot of the reset's
// class (one recording at a time: not while an earlier slot of the class is being
// recorded) and stores its key.
CULE_BIG ResetMemoSlot* memo_start(Machine& m, const EnvParams& p) {
  if (m.c.tia.cur_buf > 1) return nullptr;
  const int first = m.after_power_on ? kResetMemoSlots : 0;
  const int end = m.after_power_on ? kMemoSlots : kResetMemoSlots;
  for (int i = first; i < end; ++i) {
    ResetMemoSlot& s = m.memo->slot[i];
    const int32_t st = memo_load(&s.state);
    if (st == kMemoRecording) return nullptr;
    if (st != kMemoEmpty) continue;
    if (!memo_claim(&s.state)) return nullptr;
    s.frameskip = p.frameskip;
    s.max_frames = p.max_frames;
    s.render_last = p.render_last;
    s.repeat_p = p.repeat_p;
    s.max_lives = p.max_lives;
    s.key = m.c;
    for (int b = 0; b < 2 * kFrameBufferBytes; ++b) s.key_fbs[b] = m.fbs[b];
    return &s;
  }
  return nullptr;
}

// At the end of the recording reset: the end state, or the slot marked unusable when the
// rest of reset_game drew from an RNG or made audio (changed a byte from kMemoOwn on).
CULE_BIG void memo_finish(Machine& m, ResetMemoSlot& s) {
  const int index = (int)(&s - m.memo->slot);
  const uint8_t* a = (const uint8_t*)&m.c;
  const uint8_t* k = (const uint8_t*)&s.key;
  if (m.c.tia.cur_buf > 1) {   // cannot happen after memo_start's check; kept for safety
    memo_publish(&s.state, kMemoUnusable);
    return;
  }
  for (size_t i = kMemoOwn; i < sizeof(Console); ++i) {
    if (a[i] != k[i]) {
      memo_publish(&s.state, kMemoUnusable);
      return;
    }
  }
  s.result = m.c;
  s.frame_delta = m.c.frame_number - s.key.frame_number;
  for (int b = 0; b < 2 * kFrameBufferBytes; ++b) s.result_fbs[b] = m.fbs[b];
  memo_publish(&s.state, kMemoReady);
  m.memo_slot = index;
}

// StellaEnvironment::reset()'s emulation (ale_reset_game below).
CULE_BIG void ale_reset_game_frames(Machine& m, const EnvParams& params) {
  Console& c = m.c;
  EnvParams p = params;          // every frame of a reset is drawn (none if none are)
  p.render_last = params.render_last == 0 ? 0 : kRenderAll;
  c.tia.render = p.render_last ? 1 : 0;
  c.episode_frame_number = 0;
  c.truncated = 0;
  // The sticky action: ALE's soft reset below sets it to NOOP and nothing reads it
  // before, so setting it now changes nothing (and the memo's checkpoint does not
  // depend on the last episode's action).
  c.action_a = A_NOOP;
  m.memo_slot = -1;
  ale_reset_paddles(c, m.g);
  system_reset(m, m.g.pal != 0, m.g.screen_height);
  // (reset() emulates the 60 frames in one call: no processRAM at the checkpoint.)
  ale_emulate_frames(m, A_NOOP, kResetMemoCheckpoint);
  ResetMemoSlot* recording = nullptr;
  if (m.memo) {
    if (memo_use(m, p)) return;
    recording = memo_start(m, p);
  }
  ale_emulate(m, A_NOOP, 60 - kResetMemoCheckpoint);
  ale_soft_reset(m);
  game_reset(c, m.g.game_id);
  ModeEnv env{m, p};
  game_set_mode(env, m.g.game_id, c.mode);
  ale_soft_reset(m);
  uint8_t actions[512];
  int n = game_starting_actions(m.g.game_id, actions);
  for (int i = 0; i < n; ++i) ale_emulate(m, actions[i], 1);
  if (recording) memo_finish(m, *recording);
}

// StellaEnvironment::reset() = ALEInterface::reset_game().  Truncation is judged at
// the end, as ALE judges it at any query: the mode selection's acts count episode
// frames (a frame limit below them truncates the new episode at once), and with
// truncate_on_loss_of_life the game's lives() after the reset may already be below
// its initial count.
CULE_BIG void ale_reset_game(Machine& m, const EnvParams& params) {
  ale_reset_game_frames(m, params);
  m.c.truncated = ale_truncated(m.c, m.g, params) ? 1 : 0;
}


// ---- the noop-start memo ----------------------------------------------------------
//
// After reset_game ale-py's AtariVectorEnv acts FIRE once (when the action set has it)
// and then NOOP for a random number of frames (up to 29), one frame each, with sticky
// actions (vector_core.hpp, vc_reset_env).  On a GPU a warp waits for its slowest lane,
// so those frames cost as much as the reset_game memo saves.  But after a reset that
// ended on a memo slot's end state, the console going into these frames is the same for
// every env (apart from the RNGs, frame_number and which frame buffer is current: the
// slot's own exceptions), and the actions applied in them can only be FIRE for the first
// f frames and NOOP after (the requested FIRE, kept by sticky draws, then NOOPs).  So the
// console after f FIREs and k NOOPs, node (f, k), is the same for every env that gets
// there: the first env to emulate a frame from node (f, k) records its child, and later
// walks through recorded nodes move without emulating, copying the last node they reach
// (or the one before the first frame they must emulate).  A frame never draws from the
// RNGs (only the system reset and the mode selection do); a recorded frame that did, or
// that ended the game, marks the node unusable.

struct StartWalk {
  int origin = -1;            // the slot the walk began at (for its counters), -1: no walk
  int slot = -1;              // the slot whose nodes the console follows, -1: none (any more)
  int f = 0, k = 0;           // the node the console is at
  bool lazy = true;           // the console itself still holds node (0, 0) (RNGs apart)
  uint8_t start_cur = 0;      // tia.cur_buf and frame_number at node (0, 0)
  int32_t start_frame = 0;
  int32_t skipped = 0, run = 0;
};

// A walk from the end of the reset_game just run (none if it ended on no slot, or the
// frames would count towards a frame or lives limit).
CULE_HD StartWalk start_walk_begin(const Machine& m, const EnvParams& p) {
  StartWalk w;
  if (m.memo && m.memo->start && m.memo_slot >= 0 && !ale_act_skips(m.c, m.g, p) && p.max_frames == 0 &&
      p.max_lives == kNoLivesLimit && m.c.tia.cur_buf <= 1) {
    w.origin = w.slot = m.memo_slot;
    w.start_cur = m.c.tia.cur_buf;
    w.start_frame = m.c.frame_number;
  }
  return w;
}

// The console := the node the walk is at, if it has not emulated since node (0, 0).
CULE_BIG void start_walk_settle(Machine& m, StartWalk& w) {
  if (!w.lazy) return;
  w.lazy = false;
  if (w.slot < 0 || (w.f == 0 && w.k == 0)) return;
  const StartNode& n = m.memo->start->node[w.slot][w.f][w.k];
  memo_put(m, n.c, n.fbs, w.start_frame + n.frame_delta, (uint8_t)(w.start_cur ^ n.cur_rel));
}

// One frame of the noop start, as ale_act_strength(m, action, 1.0f, sticky, p, false)
// with p.frameskip 1 (whose reward the noop start drops), through the nodes where it can.
CULE_BIG void start_walk_frame(Machine& m, StartWalk& w, uint8_t action, float& sticky, const EnvParams& p) {
  Console& c = m.c;
  ale_sticky_draws(c, action, 1.0f, sticky, p);
  StartNode* child = nullptr;
  int f = w.f, k = w.k;
  if (w.slot >= 0) {
    const uint8_t applied = c.action_a;   // the console tracks it even while lazy
    bool on_path = true;
    if (applied == A_FIRE && k == 0) ++f;
    else if (applied == A_NOOP) ++k;
    else on_path = false;   // no node for anything else (unreachable: FIRE is only requested first)
    if (on_path && f < kStartFires && k < kStartNoops) child = &m.memo->start->node[w.slot][f][k];
  }
  if (w.lazy && child && memo_load(&child->state) == kMemoReady) {
    w.f = f;   // recorded nodes are never terminal
    w.k = k;
    ++w.skipped;
    return;
  }
  if (w.lazy) {
    // The console takes the node the walk is at, keeping the action just drawn (the
    // node's is the one before it).
    const uint8_t drawn = c.action_a;
    start_walk_settle(m, w);
    c.action_a = drawn;
  }
  if (ale_act_skips(c, m.g, p)) {
    c.truncated = ale_truncated(c, m.g, p) ? 1 : 0;
    w.slot = -1;
    return;
  }
  const bool record = child && memo_claim(&child->state);
  // Frames draw from neither RNG (only the system reset and the mode selection do); the
  // draw counters guard a recording against a change to that (a frame drawing exactly a
  // multiple of 624 numbers would slip past them).
  const uint32_t sys_draws = c.sys_rng.index, env_draws = c.env_rng.index;
  (void)ale_act_frame(m, sticky);
  c.truncated = ale_truncated(c, m.g, p) ? 1 : 0;
  ++w.run;
  if (record) {
    if (c.game.terminal || c.sys_rng.index != sys_draws || c.env_rng.index != env_draws || c.tia.cur_buf > 1) {
      memo_publish(&child->state, kMemoUnusable);
    } else {
      child->c = c;
      child->frame_delta = c.frame_number - w.start_frame;
      child->cur_rel = (uint8_t)(c.tia.cur_buf ^ w.start_cur);
      for (int b = 0; b < 2 * kFrameBufferBytes; ++b) child->fbs[b] = m.fbs[b];
      memo_publish(&child->state, kMemoReady);
    }
  }
  if (child && !c.game.terminal) {
    w.f = f;
    w.k = k;
  } else {
    w.slot = -1;
  }
}

// The end of the walk: the console := the node reached; the frames counted in the slot.
CULE_BIG void start_walk_end(Machine& m, StartWalk& w) {
  start_walk_settle(m, w);
  if (w.origin < 0) return;
  ResetMemoSlot& s = m.memo->slot[w.origin];
  if (w.skipped) memo_count(&s.start_skipped, w.skipped);
  if (w.run) memo_count(&s.start_run, w.run);
}

}  // namespace cule
