// cule: the CPU backend.  N consoles stepped in parallel on a thread pool; every
// console runs the same per-console core functions the CUDA kernels call.
#pragma once
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "ale_env.hpp"
#include "host_switches.hpp"
#include "palette_lut.hpp"
#include "thread_pool.hpp"

namespace cule {

class CpuBatch {
 public:
  CpuBatch(const GameConfig& cfg, const std::string& rom, int num_envs, int num_threads)
      : cfg_(cfg), rom_(rom.begin(), rom.end()), n_(checked_num_envs(num_envs)), pool_(num_threads),
        consoles_(num_envs), fbs_((size_t)num_envs * 2 * kFrameBufferBytes),
        lut_(make_palette(cfg.pal != 0)) {
    rom_.resize(16384 > rom_.size() ? 16384 : rom_.size(), 0);
    if (reset_memo_enabled()) {
      memo_.reset((ResetMemo*)calloc(1, sizeof(ResetMemo)));   // zero-filled: empty
      if (!memo_) throw std::bad_alloc();
      // The power-on's hardware part, once for the batch (ale_env.hpp, PowerOnState);
      // with the memos off (CULE_RESET_MEMO=0) every power-on emulates it.
      power_on_.reset((PowerOnState*)calloc(1, sizeof(PowerOnState)));
      if (!power_on_) throw std::bad_alloc();
      make_power_on_state(*power_on_, cfg_, rom_.data());
    }
  }

  int num_envs() const { return n_; }
  int num_threads() const { return pool_.size(); }

  // (n_ is initialised before the per-console vectors, so this refuses a bad size first.)
  static int checked_num_envs(int n) {
    if (n < 1) throw std::invalid_argument("num_envs must be >= 1");
    return n;
  }
  const GameConfig& config() const { return cfg_; }

  Machine machine(int i) {
    Machine m{consoles_[i], cfg_, rom_.data(), fbs_.data() + (size_t)i * 2 * kFrameBufferBytes, memo_.get()};
    m.power_on = power_on_.get();
    if (audio_) m.audio = audio_ + (size_t)i * kAudioSamplesPerFrame;
    if (screen_log_) {
      // Every frame of a logged call is emulated (and drawn): no reset_game memo.  (A
      // reset whose mode selection acts never uses one anyway, as its acts draw from the
      // RNG; this keeps the log independent of that.)
      m.screen_log = screen_log_;
      m.memo = nullptr;
    }
    return m;
  }

  // Where the one console of a batch of one logs the screens ALE's acts save
  // (ScreenLog, console.hpp): `capacity` entries at `data` (owned by the caller, who
  // keeps it alive), the count restarting at 0; null: nowhere.  While set, every frame
  // is drawn.
  void set_screen_log(uint8_t* data, int capacity) {
    if (data && n_ != 1) throw std::invalid_argument("a screen log needs a batch of one console");
    if (data && render_last_ == 0) throw std::invalid_argument("a screen log needs a batch that renders");
    log_ = ScreenLog{data, data ? capacity : 0, 0};
    screen_log_ = data ? &log_ : nullptr;
  }
  // Screens logged since set_screen_log (past its capacity too: those were not written).
  int screen_log_count() const { return log_.count; }

  // Where acts write each console's last 512 audio samples (uint8 [num_envs, 512], owned
  // by the caller, who keeps it alive), for a batch made with sound observations
  // (GameConfig::sound).
  void set_audio(uint8_t* audio) { audio_ = audio; }

  // The reset_game memo's slots (ale_env.hpp) [first, first + count): state (kMemo*) and
  // hits each; empty when the memo is off.  reset_memo_stats: the running games' slots;
  // power_on_memo_stats: the power-on resets' slots.
  std::vector<std::pair<int, int>> memo_slot_stats(int first, int count) const {
    std::vector<std::pair<int, int>> out;
    if (memo_)
      for (int i = first; i < first + count; ++i) {
        const ResetMemoSlot& s = memo_->slot[i];
        out.emplace_back(memo_load(&s.state), __atomic_load_n(&s.hits, __ATOMIC_RELAXED));
      }
    return out;
  }
  std::vector<std::pair<int, int>> reset_memo_stats() const { return memo_slot_stats(0, kResetMemoSlots); }
  std::vector<std::pair<int, int>> power_on_memo_stats() const {
    return memo_slot_stats(kResetMemoSlots, kPowerOnMemoSlots);
  }

  // Allocates the noop-start memo's nodes (ale_env.hpp; zero-filled by calloc, whose
  // pages are only touched as nodes are recorded) if the memo is on; VecEnv calls it.
  void enable_start_memo() {
    if (!memo_ || start_) return;
    start_.reset((StartNodes*)calloc(1, sizeof(StartNodes)));
    if (!start_) throw std::bad_alloc();
    memo_->start = start_.get();
  }

  // The noop-start memo (ale_env.hpp) per reset_game memo slot (all kMemoSlots, the
  // power-on ones last): the noop-start frames its walks took from recorded nodes, and
  // those they emulated.
  std::vector<std::pair<int, int>> start_memo_stats() const {
    std::vector<std::pair<int, int>> out;
    if (memo_)
      for (const ResetMemoSlot& s : memo_->slot)
        out.emplace_back(__atomic_load_n(&s.start_skipped, __ATOMIC_RELAXED),
                         __atomic_load_n(&s.start_run, __ATOMIC_RELAXED));
    return out;
  }

  // ALE loadROM(): power on, then reset_game.  seeds: one environment seed per env.
  // With the memo on, console 0 goes first, alone: its reset records the memo's
  // power-on slot, which the others' then take (ale_env.hpp).
  void load(const uint32_t* seeds, const uint16_t* modes, const uint8_t* difficulties, const EnvParams& p) {
    auto one = [&](int i) {
      Machine m = machine(i);
      m.after_power_on = true;
      ale_power_on(m, seeds[i], modes[i], difficulties[i]);
      ale_reset_game(m, p);
    };
    const int leader = memo_ ? 1 : 0;   // (n_ >= 1: checked_num_envs)
    if (leader) one(0);
    pool_.parallel_for(n_ - leader, [&](int b, int e) {
      for (int i = b; i < e; ++i) one(i + leader);
    });
  }

  // ALEInterface setRAM / setMode / setDifficulty (ale_set) on the consoles ids[0..count),
  // console ids[k] getting values[k].
  void set(const int64_t* ids, int count, int32_t what, int32_t index, const int32_t* values) {
    for (int k = 0; k < count; ++k) ale_set(consoles_[(size_t)ids[k]], what, index, values[k]);
  }

  void reset(const int64_t* ids, int count, const EnvParams& params) {
    EnvParams p = params;
    p.render_last = screen_log_ ? kRenderAll : render_last_;
    pool_.parallel_for(count, [&](int b, int e) {
      for (int k = b; k < e; ++k) {
        Machine m = machine((int)ids[k]);
        ale_reset_game(m, p);
      }
    });
  }

  // Frames drawn per act (EnvParams::render_last): 2 (default; the frame ALE's screen
  // shows afterwards and the one before, which keeps both buffers exact: see
  // ale_act_observed), kRenderAll, or 0 (none: screens are not available).
  int render_last() const { return render_last_; }
  void set_render_last(int r) {
    if (r < 0 || r == 1) throw std::invalid_argument("render_last must be 0 or >= 2");
    render_last_ = r;
  }

  void act(const uint8_t* actions, int32_t* rewards, const EnvParams& params) {
    EnvParams p = params;
    p.render_last = screen_log_ ? kRenderAll : render_last_;
    const bool partial = ale_draws_partially(p);
    pool_.parallel_for(n_, [&](int b, int e) {
      for (int i = b; i < e; ++i) {
        Machine m = machine(i);
        if (partial) {
          const Console saved = consoles_[i];
          rewards[i] = ale_act_observed(m, actions[i], p, [&] { consoles_[i] = saved; });
        } else {
          rewards[i] = ale_act(m, actions[i], p);
        }
      }
    });
  }

  void read_ram(uint8_t* out) const {
    for (int i = 0; i < n_; ++i) std::memcpy(out + 128 * (size_t)i, consoles_[i].riot.ram, 128);
  }

  void read_info(int32_t* lives, uint8_t* terminated, uint8_t* truncated, int32_t* ep_frames, int32_t* frames) const {
    for (int i = 0; i < n_; ++i) {
      const Console& c = consoles_[i];
      lives[i] = game_lives(c, cfg_.game_id);
      terminated[i] = c.game.terminal;
      truncated[i] = c.truncated;
      ep_frames[i] = c.episode_frame_number;
      frames[i] = c.frame_number;
    }
  }

  // Frame buffer b (0 / 1) of console i.
  const uint8_t* frame_buffer(int i, int b) const {
    return fbs_.data() + (size_t)i * 2 * kFrameBufferBytes + (b ? kFrameBufferBytes : 0);
  }

  // The screen ALE would report: the current frame buffer's first screen_height lines.
  const uint8_t* screen(int i) const { return frame_buffer(i, consoles_[i].tia.cur_buf); }

  void screen_rgb(uint8_t* out) {
    const size_t px = (size_t)cfg_.screen_height * 160;
    pool_.parallel_for(n_, [&](int b, int e) {
      for (int i = b; i < e; ++i) {
        const uint8_t* s = screen(i);
        uint8_t* o = out + (size_t)i * px * 3;
        for (size_t p = 0; p < px; ++p) {
          const uint8_t* c = lut_.rgb[s[p]];
          o[3 * p] = c[0]; o[3 * p + 1] = c[1]; o[3 * p + 2] = c[2];
        }
      }
    });
  }

  void screen_gray(uint8_t* out) {
    const size_t px = (size_t)cfg_.screen_height * 160;
    pool_.parallel_for(n_, [&](int b, int e) {
      for (int i = b; i < e; ++i) {
        const uint8_t* s = screen(i);
        uint8_t* o = out + (size_t)i * px;
        for (size_t p = 0; p < px; ++p) o[p] = lut_.gray[s[p]];
      }
    });
  }

  void screen_index(uint8_t* out) const {
    const size_t px = (size_t)cfg_.screen_height * 160;
    for (int i = 0; i < n_; ++i) std::memcpy(out + (size_t)i * px, screen(i), px);
  }

  const Console& console(int i) const { return consoles_[i]; }

  // Raw views of the per-console state for save/restore: num_envs Console structs, and
  // num_envs pairs of frame buffers (2 * kFrameBufferBytes each).
  uint8_t* console_bytes() { return reinterpret_cast<uint8_t*>(consoles_.data()); }
  uint8_t* frame_buffer_bytes() { return fbs_.data(); }

 private:
  GameConfig cfg_;
  std::vector<uint8_t> rom_;
  int n_;
  int render_last_ = 2;
  uint8_t* audio_ = nullptr;
  ScreenLog log_{nullptr, 0, 0};
  ScreenLog* screen_log_ = nullptr;
  ThreadPool pool_;
  std::vector<Console> consoles_;
  std::vector<uint8_t> fbs_;
  PaletteLut lut_;
  struct FreeMemo {
    void operator()(void* p) const { free(p); }
  };
  std::unique_ptr<StartNodes, FreeMemo> start_;   // before memo_: freed after it
  std::unique_ptr<ResetMemo, FreeMemo> memo_;
  std::unique_ptr<PowerOnState, FreeMemo> power_on_;
};

}  // namespace cule
