// cule: the per-env logic of the preprocessed vector environment (AtariVectorEnv), as
// CULE_HD functions over plain data, shared by the CPU VecEnv (vector_env.hpp) and the
// CUDA vector env (cuda_vector_env.cuh): noop / fire resets with power-on reseeding,
// the step's frames with early stops and the screens they capture, reward clipping,
// flags, and one element of OpenCV's INTER_AREA resize.  No std containers, exceptions
// or allocation here.
//
// Where screens go is the caller's business: the functions call an `ops` object
//   ops.capture(k)          the current screen -> pooled screen k (0 newest, 1 older)
//   ops.zero(k)             pooled screen k := all zeros
//   ops.hist_store(k)       the current screen -> history slot k (stale_frames off)
//   ops.hist_to_raw(h, k)   history slot h -> pooled screen k
//   ops.buffer_to_raw(b, k) frame buffer b (0 / 1) -> pooled screen k
//   ops.save() / ops.restore()   the console before a step / back to it (for a redo)
// The CPU stores converted (gray / RGB) screens, the GPU palette indices.
#pragma once
#include <math.h>

#include "ale_env.hpp"

namespace cule {
namespace vec {

// libstdc++'s std::uniform_int_distribution<int>(0, hi) over a 32-bit engine
// (GCC >= 11, bits/uniform_int_dist.h: Lemire's nearly-divisionless downscaling with
// a 64-bit product).  Always consumes at least one draw, as the original does.
CULE_HD int uniform_int_libstdcxx(Mt19937& g, uint32_t hi) {
  const uint32_t range = hi + 1u;   // hi < 2^31 here, so no wrap
  uint64_t product = (uint64_t)mt_next(g) * (uint64_t)range;
  uint32_t low = (uint32_t)product;
  if (low < range) {
    const uint32_t threshold = (uint32_t)(-range) % range;
    while (low < threshold) {
      product = (uint64_t)mt_next(g) * (uint64_t)range;
      low = (uint32_t)product;
    }
  }
  return (int)(product >> 32);
}

// What ALE's m_paddle_a_strength holds before any act() (ALE leaves it uninitialised).
constexpr float kInitialStrength = 1.0f;

// ---------------------------------------------------------------------------------

struct VecOptions {
  int frameskip = 4;
  int stack_num = 4;
  int img_height = 84;
  int img_width = 84;
  bool grayscale = true;
  bool maxpool = true;
  int noop_max = 30;
  bool use_fire_reset = true;
  bool episodic_life = false;
  bool life_loss_info = false;
  bool reward_clipping = true;
  int64_t max_episode_frames = 108000;   // ale-py's max_episode_steps (frames); <= 0: no limit
  float repeat_action_probability = 0.f;
  bool same_step = false;                // autoreset SAME_STEP (else NEXT_STEP)
  bool stale_frames = true;              // reproduce ale-py's stale screens on early stop
  bool render_observed_only = true;      // draw only the frames observations are made of
  uint16_t default_mode = 0;             // the ROM's default mode (what loadROM selects)
};

// Where one call writes its results: arrays of num_envs rows (final_obs may be null).
struct VecOutputs {
  uint8_t* obs;
  int32_t* reward;
  uint8_t* terminated;
  uint8_t* truncated;
  int32_t* env_id;
  int32_t* lives;
  int32_t* frame_number;
  int32_t* episode_frame_number;
  uint8_t* final_obs;   // SAME_STEP: the stacked observation an episode ended on
};

struct EnvSlot {
  Mt19937 noop_rng;
  int64_t elapsed_frames;
  int32_t lives;
  int32_t reward;
  int32_t stack_idx;
  uint8_t game_over;
  uint8_t life_lost;
  uint8_t ever_reset;
  float sticky_strength;     // ALE's m_paddle_a_strength
};

// ---------------------------------------------------------------------------------
// The per-env steps.

CULE_HD bool vc_truncated_by_limit(const EnvSlot& s, const VecOptions& o) {
  return o.max_episode_frames > 0 && s.elapsed_frames >= o.max_episode_frames;
}

CULE_HD bool vc_episode_over(const EnvSlot& s, const VecOptions& o) {
  return s.game_over || vc_truncated_by_limit(s, o) || (o.episodic_life && s.life_lost);
}

CULE_HD EnvParams vc_ale_params(const VecOptions& o) {
  EnvParams p{1, o.repeat_action_probability, 0};
  return p;
}

// reset_env up to the screens: optional reseed (seed >= 0: ALE random_seed + loadROM,
// noop RNG reseeded), reset_game, FIRE, the noops; pooled screen 0 := the screen,
// screen 1 := zeros; the counters cleared and stack_idx 0.  The caller clears the
// frame stack and pushes the pooled screens onto it.
template <class Ops>
CULE_HD void vc_reset_env(Machine& m, EnvSlot& s, const VecOptions& o, bool fire_reset, int64_t seed, Ops& ops) {
  const EnvParams p = vc_ale_params(o);
  const bool after_power_on = m.after_power_on;
  if (seed >= 0) {
    mt_seed(s.noop_rng, (uint32_t)seed);
    ale_power_on(m, (uint32_t)seed, o.default_mode, 0);
    s.sticky_strength = kInitialStrength;
    m.after_power_on = true;   // both resets: the memo's power-on slots (ale_env.hpp)
    ale_reset_game(m, p);
  }
  ale_reset_game(m, p);
  m.after_power_on = after_power_on;
  // FIRE and the noops, one frame each (p.frameskip 1), through the noop-start memo
  // (ale_env.hpp) when the reset ended on a memo slot's end state.
  StartWalk walk = start_walk_begin(m, p);
  if (fire_reset) start_walk_frame(m, walk, A_FIRE, s.sticky_strength, p);
  int noops = uniform_int_libstdcxx(s.noop_rng, (uint32_t)(o.noop_max > 0 ? o.noop_max - 1 : 0)) -
              (fire_reset ? 1 : 0);
  while (noops > 0) {
    start_walk_frame(m, walk, A_NOOP, s.sticky_strength, p);
    // (A lazy walk's console still holds the reset's end state, and the node it stands
    // for is never a game over.)
    if (!walk.lazy && m.c.game.terminal) ale_reset_game(m, p);
    --noops;
  }
  start_walk_end(m, walk);
  s.stack_idx = 0;
  ops.capture(0);
  ops.zero(1);
  s.elapsed_frames = 0;
  s.reward = 0;
  s.game_over = 0;
  s.lives = game_lives(m.c, m.g.game_id);
  s.life_lost = 0;
  s.ever_reset = 1;
}

// The agent step's frames, drawing only the last `drawn` of them to pixels (the rest
// are emulated without drawing).  Returns the summed reward; `exact` is false when a
// screen this step uses, or either frame buffer at the end, may differ from ALE's
// (a frame that stopped early on top of an undrawn one, or an early stop).
//
// A screen copied in the middle of an unfinished frame (one that runs over several
// ALE frames) shows older pixels below the line drawn so far.  If this pass went on
// drawing that frame, a redo would find those lines already overwritten when it
// copies the screen at the same point; so once such a copy is made, a tentative
// pass stops drawing (which also marks it inexact, so it is redone).
template <class Ops>
CULE_HD int32_t vc_step_frames(Machine& m, EnvSlot& s, const VecOptions& o, uint8_t action, float strength,
                               int drawn, bool& exact, Ops& ops) {
  const EnvParams p = vc_ale_params(o);
  int32_t reward = 0;
  int emulated = 0;
  bool hist_exact[2] = {true, true};
  // Where the last two frames' screens are (stale_frames off): hist_buf[h] is the frame
  // buffer (0 / 1) that still holds the screen of history slot h, or -1 when the screen
  // was copied into the slot.  A finished frame's buffer is not drawn into again by the
  // next frame (run_frame_begin flips tia.cur_buf before a new frame), only by the one
  // after it, whose screen replaces this one in slot h; so the screen is copied only
  // when its frame is unfinished (the next frame goes on drawing into the same buffer)
  // or cur_buf is outside 0 / 1 (a hand-made snapshot's, where both map to buffer 1).
  // Nothing draws into the buffers between the step's end and the conversion.
  int8_t hist_buf[2] = {-1, -1};
  const bool tentative = drawn < o.frameskip;
  bool stop_drawing = false;
  exact = true;
  LaneTeam team;   // (every frame ends with the team's vote on who goes on)
  for (int skip = o.frameskip; skip > 0; --skip) {
    m.c.tia.render = !tentative ? 1 : (skip <= drawn && !stop_drawing) ? 2 : 0;
    reward += ale_act_strength(m, action, strength, s.sticky_strength, p, false);
    ++emulated;
    s.game_over = m.c.game.terminal ? 1 : 0;
    s.elapsed_frames++;
    const int lv = game_lives(m.c, m.g.game_id);
    s.life_lost = (lv < s.lives && lv > 0) ? 1 : 0;
    if (!o.stale_frames) {
      const int h = emulated & 1;
      if (m.c.tia.partial_frame || m.c.tia.cur_buf > 1) {
        ops.hist_store(h);
        hist_buf[h] = -1;
      } else {
        hist_buf[h] = (int8_t)m.c.tia.cur_buf;
      }
      hist_exact[h] = ale_screen_exact(m.c);
      if (tentative && m.c.tia.partial_frame) stop_drawing = true;
    }
    const bool stop = s.game_over || vc_truncated_by_limit(s, o) || (o.episodic_life && s.life_lost);
    if (!stop && o.stale_frames && skip <= 2) {
      ops.capture(skip - 1);
      if ((skip == 1 || o.maxpool) && !ale_screen_exact(m.c)) exact = false;
      if (tentative && m.c.tia.partial_frame) stop_drawing = true;
    }
    if (team.leaves(stop || skip == 1)) break;
  }
  if (!o.stale_frames) {
    // The last frame emulated, max-pooled with the one before it only when both
    // were emulated by this step (frameskip 1 or a stop after one frame: no pool).
    auto to_raw = [&](int h, int k) {
      if (hist_buf[h] < 0) ops.hist_to_raw(h, k);
      else ops.buffer_to_raw(hist_buf[h], k);
    };
    to_raw(emulated & 1, 0);
    if (!hist_exact[emulated & 1]) exact = false;
    if (emulated >= 2) {
      to_raw((emulated - 1) & 1, 1);
      if (o.maxpool && !hist_exact[(emulated - 1) & 1]) exact = false;
    } else {
      ops.zero(1);
    }
  }
  if (m.c.tia.fb_exact != 3) exact = false;
  m.c.tia.render = 1;
  return reward;
}

// One agent step up to the screens (the caller pushes them onto the stack): the
// frames, lives and the (clipped) reward into the slot.  Only the last two frames are
// drawn (the max-pooled pair; without max-pooling the second keeps both buffers exact,
// see ale_act_observed).  If a screen used, or a buffer at the end, may not be exact,
// the step is redone from the console as it was (ops.restore) drawing every frame.
template <class Ops>
CULE_HD void vc_step_env(Machine& m, EnvSlot& s, const VecOptions& o, uint8_t action, float strength, Ops& ops) {
  const int drawn = 2;
  int32_t reward;
  bool exact = true;
  if (o.render_observed_only && o.frameskip > drawn) {
    ops.save();
    // What vc_step_frames changes in the slot.
    const int64_t elapsed = s.elapsed_frames;
    const uint8_t game_over = s.game_over, life_lost = s.life_lost;
    const float sticky = s.sticky_strength;
    reward = vc_step_frames(m, s, o, action, strength, drawn, exact, ops);
    if (!exact) {
      ops.restore();
      s.elapsed_frames = elapsed;
      s.game_over = game_over;
      s.life_lost = life_lost;
      s.sticky_strength = sticky;
      reward = vc_step_frames(m, s, o, action, strength, kRenderAll, exact, ops);
    }
  } else {
    reward = vc_step_frames(m, s, o, action, strength, kRenderAll, exact, ops);
  }
  s.lives = game_lives(m.c, m.g.game_id);
  s.reward = o.reward_clipping ? (reward < -1 ? -1 : (reward > 1 ? 1 : reward)) : reward;
}

// Row i of the scalar outputs (not the observation).
CULE_HD void vc_write_scalars(const EnvSlot& s, const Console& c, const VecOptions& o, int i, const VecOutputs& out) {
  out.env_id[i] = i;
  out.reward[i] = s.reward;
  const bool term = s.game_over || ((o.life_loss_info || o.episodic_life) && s.life_lost);
  out.terminated[i] = term ? 1 : 0;
  out.truncated[i] = (vc_truncated_by_limit(s, o) && !term) ? 1 : 0;
  out.lives[i] = s.lives;
  out.frame_number[i] = c.frame_number;
  out.episode_frame_number[i] = c.episode_frame_number;
}

// ---------------------------------------------------------------------------------
// One output element of OpenCV's INTER_AREA resize (see AreaResizer in vector_env.hpp,
// which builds the plan and runs the same arithmetic row by row on the CPU): the same
// float operations in the same order, so a GPU thread per output element gives the CPU's
// bytes.  `src(j)` returns source element j (row-major, sw * cn elements a row).

CULE_HD int vc_round_half_even(float v) {
#if defined(__CUDA_ARCH__)
  return (int)rintf(v);
#else
  return (int)nearbyintf(v);
#endif
}

CULE_HD uint8_t vc_sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v)); }

struct AreaPlan {
  int mode;               // 0 copy, 1 integer scale ("fast"), 2 general
  int sh, sw, dh, dw, cn;
  int isx, isy;           // fast: the integer scales
  float inv_area;         // fast, not 2x2: 1.f / (isx * isy)
  int taps;               // general: horizontal taps per output element (padded)
  const int* tap_si;      // [taps][dw * cn] source element offsets in a row
  const float* tap_a;     // [taps][dw * cn] weights
  const int* y_begin;     // [dh + 1] ranges into the vertical table
  const int* y_si;        // vertical table: source row
  const float* y_a;       //                 weight
};

template <class Src>
CULE_HD uint8_t vc_area_element(const AreaPlan& P, int dy, int dx, Src&& src) {
  const int cn = P.cn;
  const int step = P.sw * cn;       // source elements a row
  const int width = P.dw * cn;      // output elements a row
  if (P.mode == 0) return src(dy * step + dx);
  if (P.mode == 1) {
    const int sx = P.isx, sy = P.isy;
    const int j = dx % cn;
    if (sx == 2 && sy == 2) {
      const int base = (dy * 2) * step + (dx - j) * 2 + j;
      return (uint8_t)(((int)src(base) + (int)src(base + cn) + (int)src(base + step) + (int)src(base + step + cn) + 2) >> 2);
    }
    const int base = (dy * sy) * step + (dx - j) * sx + j;
    int sum = 0;
    for (int yy = 0; yy < sy; ++yy)
      for (int xx = 0; xx < sx; ++xx) sum += src(base + yy * step + xx * cn);
    return vc_sat_u8(vc_round_half_even((float)sum * P.inv_area));
  }
  float sum = 0.f;
  for (int j = P.y_begin[dy]; j < P.y_begin[dy + 1]; ++j) {
    const int row = P.y_si[j] * step;
    float b = 0.f;
    for (int k = 0; k < P.taps; ++k) {
      const float pix = (float)src(row + P.tap_si[k * width + dx]);
      const float prod = pix * P.tap_a[k * width + dx];
      b += prod;
    }
    const float t = P.y_a[j] * b;
    sum = (j == P.y_begin[dy]) ? t : sum + t;
  }
  return vc_sat_u8(vc_round_half_even(sum));
}

}  // namespace vec
}  // namespace cule
