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
// No Python and no allocation on the per-step path (each worker's resize scratch is
// allocated with the env).
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "area_resize.hpp"
#include "cpu_backend.hpp"
#include "vector_core.hpp"

namespace cule {
namespace vec {

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
    batch.enable_start_memo();   // the noop starts' memo (ale_env.hpp)
    cn_ = o.grayscale ? 1 : 3;
    if (cn_ == 1) {   // gray of two palette indices at once (128 KB; halves the lookups)
      gray_pairs_.resize(65536);
      for (int v = 0; v < 65536; ++v) gray_pairs_[(size_t)v] = (uint16_t)(lut_.gray[v & 0xff] | lut_.gray[v >> 8] << 8);
    }
    raw_h_ = batch.config().screen_height;
    raw_w_ = 160;
    raw_px_ = (size_t)raw_h_ * raw_w_;
    raw_size_ = raw_px_ * cn_;
    obs_size_ = (size_t)o.img_height * o.img_width * cn_;
    resizer_ = AreaResizer(raw_h_, raw_w_, o.img_height, o.img_width, cn_);
    scratch_n_ = std::max<size_t>(resizer_.scratch_floats(), 1);
    scratch_.assign((size_t)pool_.size() * scratch_n_, 0.f);
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
  // The first env reseeded goes first, alone: its resets record the memo slots that the
  // others' then take (ale_env.hpp; a reseeded batch's consoles all power on alike).
  // Resets without a new seed start from the consoles as they are, which need not match
  // anything, so they are not led.
  void reset(const int64_t* ids, const int64_t* seeds, int count, const VecOutputs& out) {
    std::vector<int64_t> seed_of(n_, -2);   // -2: not reset
    for (int k = 0; k < count; ++k) seed_of[ids[k]] = seeds[k];
    int leader = -1;
    for (int i = 0; i < n_ && leader < 0; ++i)
      if (seed_of[i] >= 0) leader = i;
    if (leader >= 0) reset_env(leader, seed_of[leader], scratch_.data());   // no worker runs yet
    run_envs(n_, [&](int i, float* scratch) {
      if (seed_of[i] != -2 && i != leader) reset_env(i, seed_of[i], scratch);
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

  bool episode_over(int i) const { return vc_episode_over(slots_[i], o_); }

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
  // Each worker has its own resize scratch, allocated once.
  template <class F>
  void run_envs(int count, F&& fn) {
    std::atomic<int> next{0};
    const int workers = std::min(pool_.size(), count);
    pool_.parallel_for(workers, [&](int b, int e) {
      for (int w = b; w < e; ++w) {
        float* scratch = scratch_.data() + (size_t)w * scratch_n_;
        for (;;) {
          int i = next.fetch_add(1, std::memory_order_relaxed);
          if (i >= count) break;
          fn(i, scratch);
        }
      }
    });
  }

  uint8_t* raw(int i, int k) { return raw_.data() + ((size_t)i * 2 + k) * raw_size_; }
  uint8_t* hist(int i, int k) { return hist_.data() + ((size_t)i * 2 + k) * raw_px_; }
  uint8_t* stack(int i) { return stack_.data() + (size_t)i * o_.stack_num * obs_size_; }
  const uint8_t* stack(int i) const { return stack_.data() + (size_t)i * o_.stack_num * obs_size_; }

  // (Sizes and tables are read into locals and the buffers marked __restrict: the
  // byte stores could otherwise alias this object's members, which would then be
  // reloaded on every pixel.)
  void convert(const uint8_t* __restrict pal_idx, uint8_t* __restrict dst) const {
    const size_t n = raw_px_;
    if (cn_ == 1) {
      const uint16_t* __restrict pairs = gray_pairs_.data();
      size_t p = 0;
      // Eight pixels per 8-byte load and store, two per table lookup (bytes k and k+1
      // of the word are the same two pixels on both sides, whatever the byte order).
      for (; p + 8 <= n; p += 8) {
        uint64_t idx, out = 0;
        std::memcpy(&idx, pal_idx + p, 8);
        for (int k = 0; k < 4; ++k) out |= (uint64_t)pairs[(idx >> (16 * k)) & 0xffff] << (16 * k);
        std::memcpy(dst + p, &out, 8);
      }
      for (; p < n; ++p) dst[p] = lut_.gray[pal_idx[p]];
    } else {
      for (size_t p = 0; p < n; ++p) {
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
    uint8_t* __restrict f0 = raw(i, 0);
    if (o_.maxpool) {
      const uint8_t* __restrict f1 = raw(i, 1);
      const size_t n = raw_size_;
      for (size_t p = 0; p < n; ++p) f0[p] = f0[p] > f1[p] ? f0[p] : f1[p];
    }
    EnvSlot& s = slots_[i];
    resizer_.run(f0, stack(i) + (size_t)s.stack_idx * obs_size_, scratch);
    s.stack_idx = (s.stack_idx + 1) % o_.stack_num;
  }

  // The screen callbacks of the vector_core.hpp functions for env i: pooled screens
  // hold converted (gray / RGB) pixels, the history palette indices.
  struct CpuOps {
    VecEnv& v;
    int i;
    Console saved;
    void capture(int k) { v.capture(i, v.raw(i, k)); }
    void zero(int k) { std::memset(v.raw(i, k), 0, v.raw_size_); }
    void hist_store(int k) { std::memcpy(v.hist(i, k), v.batch_.screen(i), v.raw_px_); }
    void hist_to_raw(int h, int k) { v.convert(v.hist(i, h), v.raw(i, k)); }
    void buffer_to_raw(int b, int k) { v.convert(v.batch_.frame_buffer(i, b), v.raw(i, k)); }
    void save() { saved = v.batch_.console(i); }
    void restore() { v.batch_.machine(i).c = saved; }
  };

  void reset_env(int i, int64_t seed, float* scratch) {
    Machine m = batch_.machine(i);
    CpuOps ops{*this, i, {}};
    vc_reset_env(m, slots_[i], o_, fire_reset_, seed, ops);
    std::memset(stack(i), 0, (size_t)o_.stack_num * obs_size_);
    process_screen(i, scratch);
  }

  void step_env(int i, uint8_t action, float strength, float* scratch) {
    Machine m = batch_.machine(i);
    CpuOps ops{*this, i, {}};
    vc_step_env(m, slots_[i], o_, action, strength, ops);
    process_screen(i, scratch);
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
    vc_write_scalars(slots_[i], batch_.console(i), o_, i, out);
    write_obs(i, out.obs + (size_t)i * stacked_obs_size());
  }

  CpuBatch& batch_;
  VecOptions o_;
  std::vector<uint8_t> actions_;
  int n_;
  ThreadPool pool_;
  PaletteLut lut_;
  std::vector<uint16_t> gray_pairs_;   // [a | b << 8] -> gray(a) | gray(b) << 8
  int cn_ = 1;
  int raw_h_ = 210, raw_w_ = 160;
  size_t raw_px_ = 0, raw_size_ = 0, obs_size_ = 0;
  AreaResizer resizer_;
  size_t scratch_n_ = 1;
  std::vector<float> scratch_;   // pool_.size() x scratch_n_
  bool has_fire_ = false, fire_reset_ = false;
  std::vector<EnvSlot> slots_;
  std::vector<uint8_t> raw_, stack_, hist_;
};

}  // namespace vec
}  // namespace cule
