// cule: the preprocessed vector environment (the whole AtariVectorEnv step in C++).
//
// Reproduces ale-py 0.12.1's ale::vector::PreprocessedEnv + EnvVectorizer semantics
// (src/ale/vector/preprocessed_env.cpp, env_vectorizer.cpp) on top of the per-console
// functions of ale_env.hpp, over the consoles of a CpuBatch:
//   - reset: optional reseed (power-on with the new ALE seed, reseed the noop RNG),
//     reset_game, FIRE once if the action set has it, U{0..noop_max-1} - fire NOOP frames
//     drawn with std::mt19937 + libstdc++'s uniform_int_distribution (a game over during
//     the noops resets the game again);
//   - step: repeat the action for up to `frameskip` frames (ALE frame_skip 1, sticky actions
//     per frame), stopping early on game over, on max_num_frames_per_episode frames, or
//     on a life loss with episodic_life; the screens of the last two frames are
//     converted (grayscale / RGB), max-pooled, resized with OpenCV's INTER_AREA
//     arithmetic (reproduced here bit for bit), and pushed on the frame stack;
//   - rewards summed over the frames and clipped to [-1, 1] if asked;
//   - autoreset NEXT_STEP (an env whose episode ended is reset by the next step) or
//     SAME_STEP (reset at once; the final stacked observation is reported apart).
// No Python, no allocation on the per-step path except small per-thread scratch.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_backend.hpp"

namespace cule {
namespace vec {

// libstdc++'s std::uniform_int_distribution<int>(0, hi) over a 32-bit engine
// (GCC >= 11, bits/uniform_int_dist.h: Lemire's nearly-divisionless downscaling with
// a 64-bit product).  Always consumes at least one draw, as the original does.
inline int uniform_int_libstdcxx(Mt19937& g, uint32_t hi) {
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

// ---------------------------------------------------------------------------------
// OpenCV cv::resize(..., INTER_AREA) for 8-bit images when shrinking (both scale
// factors >= 1), as imgproc/src/resize.cpp computes it: the integer-scale "fast area"
// path (2x2 with rounding (s + 2) >> 2, other integer scales sum * (1/area) rounded to
// nearest even) and the general path (float weights from computeResizeAreaTab,
// row sums accumulated in float; this file must be compiled with -ffp-contract=off
// so no multiply-add is fused, as OpenCV's generic code is).  Enlarging is not supported.

struct AreaTab {
  int di, si;
  float alpha;
};

inline int cv_floor(double v) { int i = (int)v; return i - (i > v); }
inline int cv_ceil(double v) { int i = (int)v; return i + (i < v); }
inline int cv_round_float(float v) { return (int)std::nearbyint(v); }   // round half to even
inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v)); }

inline int compute_area_tab(int ssize, int dsize, int cn, double scale, std::vector<AreaTab>& tab) {
  tab.clear();
  for (int dx = 0; dx < dsize; dx++) {
    double fsx1 = dx * scale;
    double fsx2 = fsx1 + scale;
    double cell = std::min(scale, ssize - fsx1);
    int sx1 = cv_ceil(fsx1), sx2 = cv_floor(fsx2);
    sx2 = std::min(sx2, ssize - 1);
    sx1 = std::min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) tab.push_back({dx * cn, (sx1 - 1) * cn, (float)((sx1 - fsx1) / cell)});
    for (int sx = sx1; sx < sx2; sx++) tab.push_back({dx * cn, sx * cn, (float)(1.0 / cell)});
    if (fsx2 - sx2 > 1e-3)
      tab.push_back({dx * cn, sx2 * cn, (float)(std::min(std::min(fsx2 - sx2, 1.), cell) / cell)});
  }
  return (int)tab.size();
}

class AreaResizer {
 public:
  enum Mode { COPY, FAST, GENERAL };

  AreaResizer() = default;
  AreaResizer(int sh, int sw, int dh, int dw, int cn) : sh_(sh), sw_(sw), dh_(dh), dw_(dw), cn_(cn) {
    if (dh > sh || dw > sw) throw std::invalid_argument("INTER_AREA enlarging is not supported");
    if (dh == sh && dw == sw) { mode_ = COPY; return; }
    // cv::resize: inv_scale = dsize / ssize, scale = 1 / inv_scale.
    const double inv_x = (double)dw / sw, inv_y = (double)dh / sh;
    const double sx = 1. / inv_x, sy = 1. / inv_y;
    const int isx = (int)std::lround(sx), isy = (int)std::lround(sy);
    const double eps = std::numeric_limits<double>::epsilon();
    if (std::abs(sx - isx) < eps && std::abs(sy - isy) < eps) {
      mode_ = FAST;
      isx_ = isx; isy_ = isy;
      return;
    }
    mode_ = GENERAL;
    compute_area_tab(sw, dw, cn, sx, xtab_);
    compute_area_tab(sh, dh, 1, sy, ytab_);
    build_taps();
  }

  Mode mode() const { return mode_; }
  // Scratch floats a GENERAL resize needs (two output rows and one source row).
  size_t scratch_floats() const { return (size_t)2 * dw_ * cn_ + (size_t)sw_ * cn_; }

  // src: sh x sw x cn, dst: dh x dw x cn, both tightly packed.
  void run(const uint8_t* src, uint8_t* dst, float* scratch) const {
    if (mode_ == COPY) { std::memcpy(dst, src, (size_t)sh_ * sw_ * cn_); return; }
    if (mode_ == FAST) { run_fast(src, dst); return; }
    run_general(src, dst, scratch);
  }

 private:
  void run_fast(const uint8_t* src, uint8_t* dst) const {
    const int cn = cn_, sx = isx_, sy = isy_;
    const size_t step = (size_t)sw_ * cn;
    const int wd = dw_ * cn;
    if (sx == 2 && sy == 2 && (cn == 1 || cn == 3 || cn == 4)) {
      for (int dy = 0; dy < dh_; ++dy) {
        const uint8_t* S = src + (size_t)(dy * 2) * step;
        const uint8_t* N = S + step;
        uint8_t* D = dst + (size_t)dy * wd;
        for (int dx = 0; dx < dw_; ++dx)
          for (int k = 0; k < cn; ++k) {
            int i = dx * 2 * cn + k;
            D[dx * cn + k] = (uint8_t)((S[i] + S[i + cn] + N[i] + N[i + cn] + 2) >> 2);
          }
      }
      return;
    }
    const int area = sx * sy;
    const float scale = 1.f / (float)area;
    for (int dy = 0; dy < dh_; ++dy) {
      const uint8_t* row = src + (size_t)(dy * sy) * step;
      uint8_t* D = dst + (size_t)dy * wd;
      for (int dx = 0; dx < wd; ++dx) {
        int j = dx % cn;
        const uint8_t* S = row + (size_t)(dx - j) * sx + j;
        int sum = 0;
        for (int yy = 0; yy < sy; ++yy)
          for (int xx = 0; xx < sx; ++xx) sum += S[yy * step + xx * cn];
        D[dx] = sat_u8(cv_round_float((float)sum * scale));
      }
    }
  }

  // The general path.  Same float operations in the same order as OpenCV's
  // ResizeArea_Invoker, laid out for speed: each output element's horizontal taps are
  // padded to taps_ slots (a padded slot adds 0 * pixel = +0, which changes no sum of
  // non-negative terms), a source row is converted to float once, and a row's horizontal
  // sums are reused when the next vertical tap reads the same row.
  void run_general(const uint8_t* src, uint8_t* dst, float* scratch) const {
    const int width = dw_ * cn_;
    const int sw = sw_ * cn_;
    float* buf = scratch;
    float* sum = scratch + width;
    float* rowf = scratch + 2 * width;
    const size_t step = (size_t)sw;
    const int yn = (int)ytab_.size();
    const int T = taps_;
    const int* si = tap_si_.data();
    const float* al = tap_a_.data();
    for (int dx = 0; dx < width; ++dx) sum[dx] = 0.f;
    int prev_dy = ytab_[0].di;
    int buf_row = -1;
    for (int j = 0; j < yn; ++j) {
      const float beta = ytab_[j].alpha;
      const int dy = ytab_[j].di;
      const int sy = ytab_[j].si;
      if (sy != buf_row) {
        const uint8_t* S = src + (size_t)sy * step;
        for (int x = 0; x < sw; ++x) rowf[x] = (float)S[x];
        for (int dx = 0; dx < width; ++dx) {
          float b = 0.f;
          for (int k = 0; k < T; ++k) b += rowf[si[k * width + dx]] * al[k * width + dx];
          buf[dx] = b;
        }
        buf_row = sy;
      }
      if (dy != prev_dy) {
        uint8_t* D = dst + (size_t)prev_dy * width;
        for (int dx = 0; dx < width; ++dx) {
          D[dx] = sat_u8(cv_round_float(sum[dx]));
          sum[dx] = beta * buf[dx];
        }
        prev_dy = dy;
      } else {
        for (int dx = 0; dx < width; ++dx) sum[dx] += beta * buf[dx];
      }
    }
    uint8_t* D = dst + (size_t)prev_dy * width;
    for (int dx = 0; dx < width; ++dx) D[dx] = sat_u8(cv_round_float(sum[dx]));
  }

  // Per output element (dx * cn + c), its horizontal taps in OpenCV's order, padded.
  void build_taps() {
    const int width = dw_ * cn_;
    std::vector<int> count(dw_, 0);
    for (const AreaTab& t : xtab_) count[t.di / cn_]++;
    taps_ = 1;
    for (int c : count) taps_ = std::max(taps_, c);
    tap_si_.assign((size_t)taps_ * width, 0);
    tap_a_.assign((size_t)taps_ * width, 0.f);
    std::vector<int> filled(dw_, 0);
    for (const AreaTab& t : xtab_) {
      const int d = t.di / cn_;
      const int k = filled[d]++;
      for (int c = 0; c < cn_; ++c) {
        tap_si_[(size_t)k * width + t.di + c] = t.si + c;
        tap_a_[(size_t)k * width + t.di + c] = t.alpha;
      }
    }
    for (int d = 0; d < dw_; ++d)
      for (int k = filled[d]; k < taps_; ++k)
        for (int c = 0; c < cn_; ++c) tap_si_[(size_t)k * width + d * cn_ + c] = c;   // weight 0
  }

  int sh_ = 0, sw_ = 0, dh_ = 0, dw_ = 0, cn_ = 1;
  Mode mode_ = COPY;
  int isx_ = 1, isy_ = 1;
  std::vector<AreaTab> xtab_, ytab_;
  int taps_ = 1;
  std::vector<int> tap_si_;
  std::vector<float> tap_a_;
};

// ---------------------------------------------------------------------------------
// ALE act(action, paddle_strength) (StellaEnvironment::act with a paddle strength):
// the strength sticks together with the action, and a paddle moves by
// int(+-PADDLE_DELTA * fabs(strength)) a frame (ALEState::applyActionPaddles; fabs of
// the float promoted to double).  With strength 1 this is ale_act exactly.

inline int32_t paddle_delta(float strength) {
  return (int32_t)((double)kPaddleDelta * std::fabs((double)strength));
}

inline void apply_paddles_strength(Console& c, const GameConfig& g, uint8_t a, float strength) {
  ale_apply_paddles(c, g, a, paddle_delta(strength));
}

// `sticky` is ALE's m_paddle_a_strength (kept outside the Console).
inline int32_t act_strength(Machine& m, uint8_t action, float strength, float& sticky, const EnvParams& p) {
  Console& c = m.c;
  int32_t total = 0;
  for (int i = 0; i < p.frameskip; ++i) {
    if (mt_next_double(c.env_rng) >= (double)p.repeat_p) {
      c.action_a = action;
      sticky = strength;
    }
    (void)mt_next_double(c.env_rng);   // player B's draw
    if (c.game.terminal || ale_truncated(c, p.max_frames)) continue;
    uint8_t a = c.action_a;
    if (a == A_RESET || (a < A_NUM_ACTIONS && !game_legal(m.g.game_id, a))) a = A_NOOP;
    if (m.g.use_paddles) {
      apply_paddles_strength(c, m.g, a, sticky);
      ale_frame(m);
    } else {
      ale_apply_joystick(c, a);
      ale_frame(m);
    }
    c.frame_number++;
    c.episode_frame_number++;
    total += c.game.reward;
  }
  c.truncated = ale_truncated(c, p.max_frames) ? 1 : 0;
  return total;
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

class VecEnv {
 public:
  VecEnv(CpuBatch& batch, const VecOptions& o, const std::vector<uint8_t>& action_set, int num_threads)
      : batch_(batch), o_(o), actions_(action_set), n_(batch.num_envs()), pool_(num_threads),
        lut_(make_palette(batch.config().pal != 0)) {
    if (o.frameskip < 1) throw std::invalid_argument("frameskip must be >= 1");
    if (o.stack_num < 1) throw std::invalid_argument("stack_num must be >= 1");
    if (o.img_height < 1 || o.img_width < 1) throw std::invalid_argument("image sizes must be >= 1");
    if (o.noop_max < 0) throw std::invalid_argument("noop_max must be >= 0");
    if (actions_.empty()) throw std::invalid_argument("empty action set");
    cn_ = o.grayscale ? 1 : 3;
    raw_h_ = batch.config().screen_height;
    raw_w_ = 160;
    raw_px_ = (size_t)raw_h_ * raw_w_;
    raw_size_ = raw_px_ * cn_;
    obs_size_ = (size_t)o.img_height * o.img_width * cn_;
    resizer_ = AreaResizer(raw_h_, raw_w_, o.img_height, o.img_width, cn_);
    has_fire_ = false;
    for (uint8_t a : actions_) has_fire_ = has_fire_ || a == A_FIRE;
    fire_reset_ = o.use_fire_reset && has_fire_;
    slots_.resize(n_);
    for (auto& s : slots_) {
      std::memset(&s, 0, sizeof(s));
      s.elapsed_frames = o.max_episode_frames > 0 ? o.max_episode_frames + 1 : 0;
      s.sticky_strength = kInitialStrength;
    }
    raw_.assign((size_t)n_ * 2 * raw_size_, 0);
    stack_.assign((size_t)n_ * o.stack_num * obs_size_, 0);
    if (!o.stale_frames) hist_.assign((size_t)n_ * 2 * raw_px_, 0);
  }

  int num_envs() const { return n_; }
  // Whether frames no observation is made of are emulated without drawing (default).
  bool render_observed_only() const { return o_.render_observed_only; }
  void set_render_observed_only(bool on) { o_.render_observed_only = on; }

  int num_threads() const { return pool_.size(); }
  size_t num_actions() const { return actions_.size(); }
  size_t stacked_obs_size() const { return obs_size_ * o_.stack_num; }
  size_t raw_size() const { return raw_size_; }
  int raw_height() const { return raw_h_; }

  // Seeds the noop RNG of env i (as std::mt19937::seed).
  void seed_noops(int i, uint32_t seed) { mt_seed(slots_[i].noop_rng, seed); }

  // reset(env_ids, seeds): seeds[k] >= 0 reloads env ids[k] with that seed (ALE
  // random_seed and the noop RNG), -1 keeps its RNGs.  Every env's row of `out` is
  // written (envs not reset report their current state).
  void reset(const int64_t* ids, const int64_t* seeds, int count, const VecOutputs& out) {
    std::vector<int64_t> seed_of(n_, -2);   // -2: not reset
    for (int k = 0; k < count; ++k) seed_of[ids[k]] = seeds[k];
    run_envs(n_, [&](int i, float* scratch) {
      if (seed_of[i] != -2) reset_env(i, seed_of[i], scratch);
      write(i, out);
    });
  }

  // One step of the envs ids[0..count) (distinct); action_idx[k] (already validated)
  // indexes the action set for env ids[k].  Results go to the rows ids[k] of `out`.
  // strengths: null (1.0) or one paddle strength per ids[k] (ALE act's paddle_strength).
  void step(const int64_t* ids, int count, const int64_t* action_idx, const float* strengths,
            const VecOutputs& out) {
    run_envs(count, [&](int k, float* scratch) {
      const int i = (int)ids[k];
      const uint8_t a = actions_[(size_t)action_idx[k]];
      const float strength = strengths ? strengths[k] : 1.0f;
      if (!o_.same_step) {
        if (episode_over(i)) reset_env(i, -1, scratch);
        else step_env(i, a, strength, scratch);
        write(i, out);
      } else {
        step_env(i, a, strength, scratch);
        if (episode_over(i)) {
          write_obs(i, out.final_obs + (size_t)i * stacked_obs_size());
          write(i, out);
          int32_t r = out.reward[i];
          uint8_t te = out.terminated[i], tr = out.truncated[i];
          reset_env(i, -1, scratch);
          write(i, out);
          out.reward[i] = r;
          out.terminated[i] = te;
          out.truncated[i] = tr;
        } else {
          write(i, out);
          // Not reset.  A life loss reported as terminated (life_loss_info) ends no
          // episode: its final observation is the observation itself; other rows are 0.
          // (ale-py leaves these rows uninitialised.)
          uint8_t* fo = out.final_obs + (size_t)i * stacked_obs_size();
          if (out.terminated[i] || out.truncated[i]) std::memcpy(fo, out.obs + (size_t)i * stacked_obs_size(), stacked_obs_size());
          else std::memset(fo, 0, stacked_obs_size());
        }
      }
    });
  }

  bool episode_over(int i) const {
    const EnvSlot& s = slots_[i];
    return s.game_over || truncated_by_limit(s) || (o_.episodic_life && s.life_lost);
  }

  bool ever_reset(int i) const { return slots_[i].ever_reset != 0; }

  // The per-env preprocessing state as bytes (for save/restore of a vector env).
  size_t slot_bytes() const { return sizeof(EnvSlot); }
  uint8_t* slots_data() { return reinterpret_cast<uint8_t*>(slots_.data()); }
  uint8_t* raw_data() { return raw_.data(); }
  uint8_t* stack_data() { return stack_.data(); }
  uint8_t* hist_data() { return hist_.data(); }
  size_t stack_bytes_per_env() const { return obs_size_ * o_.stack_num; }
  size_t hist_bytes_per_env() const { return hist_.empty() ? 0 : 2 * raw_px_; }

 private:
  // fn(k, scratch) for k in [0, count), envs handed out one at a time to the threads
  // (an env that resets costs ~20 steps, so static chunks would balance badly).
  template <class F>
  void run_envs(int count, F&& fn) {
    std::atomic<int> next{0};
    const int workers = std::min(pool_.size(), count);
    const size_t scratch_n = std::max<size_t>(resizer_.scratch_floats(), 1);
    pool_.parallel_for(workers, [&](int b, int e) {
      std::vector<float> scratch(scratch_n);
      for (int w = b; w < e; ++w) {
        for (;;) {
          int i = next.fetch_add(1, std::memory_order_relaxed);
          if (i >= count) break;
          fn(i, scratch.data());
        }
      }
    });
  }

  bool truncated_by_limit(const EnvSlot& s) const {
    return o_.max_episode_frames > 0 && s.elapsed_frames >= o_.max_episode_frames;
  }

  EnvParams ale_params() const { return EnvParams{1, o_.repeat_action_probability, 0}; }

  uint8_t* raw(int i, int k) { return raw_.data() + ((size_t)i * 2 + k) * raw_size_; }
  uint8_t* hist(int i, int k) { return hist_.data() + ((size_t)i * 2 + k) * raw_px_; }
  uint8_t* stack(int i) { return stack_.data() + (size_t)i * o_.stack_num * obs_size_; }
  const uint8_t* stack(int i) const { return stack_.data() + (size_t)i * o_.stack_num * obs_size_; }

  void convert(const uint8_t* pal_idx, uint8_t* dst) const {
    if (cn_ == 1) {
      for (size_t p = 0; p < raw_px_; ++p) dst[p] = lut_.gray[pal_idx[p]];
    } else {
      for (size_t p = 0; p < raw_px_; ++p) {
        const uint8_t* c = lut_.rgb[pal_idx[p]];
        dst[3 * p] = c[0]; dst[3 * p + 1] = c[1]; dst[3 * p + 2] = c[2];
      }
    }
  }

  void capture(int i, uint8_t* dst) { convert(batch_.screen(i), dst); }

  int lives_of(int i) const { return game_lives(batch_.console(i), batch_.config().game_id); }
  bool game_over_of(int i) const { return batch_.console(i).game.terminal != 0; }

  // Pushes max(raw0, raw1) (or raw0) through the resize onto the frame stack.
  void process_screen(int i, float* scratch) {
    uint8_t* f0 = raw(i, 0);
    if (o_.maxpool) {
      const uint8_t* f1 = raw(i, 1);
      for (size_t p = 0; p < raw_size_; ++p) f0[p] = f0[p] > f1[p] ? f0[p] : f1[p];
    }
    EnvSlot& s = slots_[i];
    resizer_.run(f0, stack(i) + (size_t)s.stack_idx * obs_size_, scratch);
    s.stack_idx = (s.stack_idx + 1) % o_.stack_num;
  }

  void reset_env(int i, int64_t seed, float* scratch) {
    EnvSlot& s = slots_[i];
    Machine m = batch_.machine(i);
    const EnvParams p = ale_params();
    if (seed >= 0) {
      // ALE setInt("random_seed", seed); loadROM (power-on + reset_game); noop RNG reseeded.
      mt_seed(s.noop_rng, (uint32_t)seed);
      ale_power_on(m, (uint32_t)seed, o_.default_mode, 0);
      s.sticky_strength = kInitialStrength;
      ale_reset_game(m, p);
    }
    ale_reset_game(m, p);
    if (fire_reset_) act_strength(m, A_FIRE, 1.0f, s.sticky_strength, p);
    int noops = uniform_int_libstdcxx(s.noop_rng, (uint32_t)(o_.noop_max > 0 ? o_.noop_max - 1 : 0)) -
                (fire_reset_ ? 1 : 0);
    while (noops > 0) {
      act_strength(m, A_NOOP, 1.0f, s.sticky_strength, p);
      if (game_over_of(i)) ale_reset_game(m, p);
      --noops;
    }
    std::memset(stack(i), 0, (size_t)o_.stack_num * obs_size_);
    s.stack_idx = 0;
    capture(i, raw(i, 0));
    std::memset(raw(i, 1), 0, raw_size_);
    process_screen(i, scratch);
    s.elapsed_frames = 0;
    s.reward = 0;
    s.game_over = 0;
    s.lives = lives_of(i);
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
  int32_t step_frames(int i, uint8_t action, float strength, int drawn, bool& exact) {
    EnvSlot& s = slots_[i];
    Machine m = batch_.machine(i);
    const EnvParams p = ale_params();
    int32_t reward = 0;
    int emulated = 0;
    bool hist_exact[2] = {true, true};
    const bool tentative = drawn < o_.frameskip;
    bool stop_drawing = false;
    exact = true;
    for (int skip = o_.frameskip; skip > 0; --skip) {
      m.c.tia.render = !tentative ? 1 : (skip <= drawn && !stop_drawing) ? 2 : 0;
      reward += act_strength(m, action, strength, s.sticky_strength, p);
      ++emulated;
      s.game_over = game_over_of(i) ? 1 : 0;
      s.elapsed_frames++;
      const int lv = lives_of(i);
      s.life_lost = (lv < s.lives && lv > 0) ? 1 : 0;
      if (!o_.stale_frames) {
        std::memcpy(hist(i, emulated & 1), batch_.screen(i), raw_px_);
        hist_exact[emulated & 1] = ale_screen_exact(m.c);
        if (tentative && m.c.tia.partial_frame) stop_drawing = true;
      }
      if (s.game_over || truncated_by_limit(s) || (o_.episodic_life && s.life_lost)) break;
      if (o_.stale_frames && skip <= 2) {
        capture(i, raw(i, skip - 1));
        if ((skip == 1 || o_.maxpool) && !ale_screen_exact(m.c)) exact = false;
        if (tentative && m.c.tia.partial_frame) stop_drawing = true;
      }
    }
    if (!o_.stale_frames) {
      // The last frame emulated, max-pooled with the one before it only when both
      // were emulated by this step (frameskip 1 or a stop after one frame: no pool).
      convert(hist(i, emulated & 1), raw(i, 0));
      if (!hist_exact[emulated & 1]) exact = false;
      if (emulated >= 2) {
        convert(hist(i, (emulated - 1) & 1), raw(i, 1));
        if (o_.maxpool && !hist_exact[(emulated - 1) & 1]) exact = false;
      } else {
        std::memset(raw(i, 1), 0, raw_size_);
      }
    }
    if (m.c.tia.fb_exact != 3) exact = false;
    m.c.tia.render = 1;
    return reward;
  }

  void step_env(int i, uint8_t action, float strength, float* scratch) {
    EnvSlot& s = slots_[i];
    // Only the last two frames are drawn (the max-pooled pair; without max-pooling the
    // second keeps both buffers exact, see ale_act_observed).  If a screen used, or a
    // buffer at the end, may not be exact, the step is redone from a copy drawing every
    // frame (emulation is deterministic).
    const int drawn = 2;
    int32_t reward;
    bool exact = true;
    if (o_.render_observed_only && o_.frameskip > drawn) {
      Console& c = batch_.machine(i).c;
      const Console saved = c;
      const EnvSlot saved_slot = s;
      reward = step_frames(i, action, strength, drawn, exact);
      if (!exact) {
        c = saved;
        s = saved_slot;
        reward = step_frames(i, action, strength, kRenderAll, exact);
      }
    } else {
      reward = step_frames(i, action, strength, kRenderAll, exact);
    }
    process_screen(i, scratch);
    s.lives = lives_of(i);
    s.reward = o_.reward_clipping ? std::clamp<int32_t>(reward, -1, 1) : reward;
  }

  void write_obs(int i, uint8_t* dst) const {
    const EnvSlot& s = slots_[i];
    const uint8_t* st = stack(i);
    for (int k = 0; k < o_.stack_num; ++k) {
      int src = (s.stack_idx + k) % o_.stack_num;
      std::memcpy(dst + (size_t)k * obs_size_, st + (size_t)src * obs_size_, obs_size_);
    }
  }

  void write(int i, const VecOutputs& out) const {
    const EnvSlot& s = slots_[i];
    const Console& c = batch_.console(i);
    out.env_id[i] = i;
    out.reward[i] = s.reward;
    const bool term = s.game_over || ((o_.life_loss_info || o_.episodic_life) && s.life_lost);
    out.terminated[i] = term ? 1 : 0;
    out.truncated[i] = (truncated_by_limit(s) && !term) ? 1 : 0;
    out.lives[i] = s.lives;
    out.frame_number[i] = c.frame_number;
    out.episode_frame_number[i] = c.episode_frame_number;
    write_obs(i, out.obs + (size_t)i * stacked_obs_size());
  }

  CpuBatch& batch_;
  VecOptions o_;
  std::vector<uint8_t> actions_;
  int n_;
  ThreadPool pool_;
  PaletteLut lut_;
  int cn_ = 1;
  int raw_h_ = 210, raw_w_ = 160;
  size_t raw_px_ = 0, raw_size_ = 0, obs_size_ = 0;
  AreaResizer resizer_;
  bool has_fire_ = false, fire_reset_ = false;
  std::vector<EnvSlot> slots_;
  std::vector<uint8_t> raw_, stack_, hist_;
};

}  // namespace vec
}  // namespace cule
