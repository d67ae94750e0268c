// cule: the CUDA backend's host interface (no CUDA headers: compiled by both g++ and
// nvcc).  Device buffers are passed as raw pointers the caller (PyTorch) allocated on
// the current device; `stream` is the cudaStream_t the work is queued on (PyTorch's
// current stream), so nothing synchronises with the host unless the caller reads.
#pragma once
#include <stdint.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "state.hpp"
#include "vector_core.hpp"

namespace cule {

struct EnvParamsHost {
  int32_t frameskip;
  float repeat_p;
  int32_t max_frames;
  int32_t max_lives;   // EnvParams::max_lives (kNoLivesLimit: truncate_on_loss_of_life off)
};

class CudaBatch {
 public:
  CudaBatch(const GameConfig& cfg, const std::string& rom, int num_envs, int device);
  ~CudaBatch();
  CudaBatch(const CudaBatch&) = delete;
  CudaBatch& operator=(const CudaBatch&) = delete;

  int num_envs() const;
  size_t device_bytes() const;   // device memory this batch holds
  // The reset_game memo's slots as (state, hits) (ale_env.hpp); empty when off.
  // Synchronises with the device.  reset_memo_stats: the running games' slots;
  // power_on_memo_stats: the slots of the resets that follow a power-on.
  std::vector<std::pair<int, int>> reset_memo_stats() const;
  std::vector<std::pair<int, int>> power_on_memo_stats() const;
  // The noop-start memo's frames per slot (all of them, the power-on ones last): (taken
  // from recorded nodes, emulated).
  std::vector<std::pair<int, int>> start_memo_stats() const;
  static size_t console_state_bytes();   // bytes of one console in a snapshot (sizeof(Console))
  static bool supports_cpu_high();       // the kernels run ALE's cpu="high" (CULE_DEVICE_CPU_HIGH)
  static size_t frame_buffer_bytes();    // bytes of one console's two frame buffers
  static size_t reset_memo_bytes();      // the batch's reset_game memo (0 bytes if off)
  static size_t start_memo_bytes();      // the noop-start memo's nodes, once a vector env has them
  // Allocates the noop-start memo's nodes (when the memo is on); CudaVecEnv calls it.
  // Synchronises with the device.
  void enable_start_memo();

  // seeds/modes/difficulties: host arrays of num_envs.
  void load(const uint32_t* seeds, const uint16_t* modes, const uint8_t* difficulties, const EnvParamsHost& p,
            uintptr_t stream);
  // ALE setRAM / setMode / setDifficulty (ale_set: `what`, RAM byte `index`) on the envs
  // whose byte of mask (device uint8 [num_envs]) is set, env i getting values[i]
  // (device int32 [num_envs]).  The caller checks the values.
  void set_masked(uintptr_t mask, int32_t what, int32_t index, uintptr_t values, uintptr_t stream);
  // mask: device uint8 [num_envs]; envs with a non-zero byte are reset.
  void reset_masked(uintptr_t mask, const EnvParamsHost& p, uintptr_t stream);
  // actions: device int64 [num_envs]; rewards: device int32 [num_envs].
  // bad: device int32 [1]; set to 1 when an action id is outside [0, 18), in which case
  // nothing changes (checked on the device: no host synchronisation).
  void act(uintptr_t actions, uintptr_t rewards, uintptr_t bad, const EnvParamsHost& p, uintptr_t stream);
  // Frames drawn per act: 2 (default: the last two, exact screens), kRenderAll, or 0.
  // Where acts write each env's last 512 audio samples (device uint8 [num_envs, 512],
  // owned by the caller), for a batch made with sound observations (GameConfig::sound).
  void set_audio(uintptr_t audio);
  int render_last() const;
  void set_render_last(int r);
  void read_ram(uintptr_t out, uintptr_t stream);                 // uint8 [N,128]
  void read_info(uintptr_t lives, uintptr_t terminated, uintptr_t truncated, uintptr_t ep_frames,
                 uintptr_t frames, uintptr_t stream);             // int32, uint8, uint8, int32, int32 [N]
  void screen_rgb(uintptr_t out, uintptr_t stream);               // uint8 [N,H,W,3]
  void screen_gray(uintptr_t out, uintptr_t stream);              // uint8 [N,H,W]
  // Save / restore in the CPU backend's byte layout.  ids: device int64 [count], distinct
  // env indices; consoles: device uint8 [count, console_state_bytes()]; frame_buffers:
  // device uint8 [count, frame_buffer_bytes()].  count 0 does nothing.
  void export_state(uintptr_t ids, int count, uintptr_t consoles, uintptr_t frame_buffers, uintptr_t stream);
  void import_state(uintptr_t ids, int count, uintptr_t consoles, uintptr_t frame_buffers, uintptr_t stream);

  struct Impl;   // defined in cuda_backend.cu

 private:
  friend class CudaVecEnv;
  std::unique_ptr<Impl> impl_;
};

// Device pointers of a vector env call's results (rows of num_envs).
struct CudaVecOutputs {
  uintptr_t obs;                    // uint8 [N, stacked obs]
  uintptr_t reward;                 // int32 [N]
  uintptr_t terminated, truncated;  // uint8 [N]
  uintptr_t env_id, lives, frame_number, episode_frame_number;   // int32 [N]
};

// cule.AtariVectorEnv on the GPU: ale-py's AtariVectorEnv (see vector_env.hpp, whose
// per-env functions it shares) over the consoles of a CudaBatch, which must outlive it
// and be loaded with ALE frameskip 1.  Everything runs on `stream`; nothing is
// copied to the host (see cuda_vector_env.cuh).
class CudaVecEnv {
 public:
  // noop_seeds: host uint32 [N], the noop RNGs' seeds.
  CudaVecEnv(CudaBatch& batch, const vec::VecOptions& o, const std::vector<uint8_t>& action_set,
             const uint32_t* noop_seeds);
  ~CudaVecEnv();
  CudaVecEnv(const CudaVecEnv&) = delete;
  CudaVecEnv& operator=(const CudaVecEnv&) = delete;

  int num_envs() const;
  size_t device_bytes() const;        // device memory this vector env holds (beyond the batch's)
  size_t stacked_obs_size() const;    // bytes of one env's observation
  void seed_noops(const uint32_t* seeds, uintptr_t stream);   // host uint32 [N]
  // seeds: device int64 [N]: -2 not reset, -1 reset keeping the RNGs, >= 0 reseed.
  // leader: an env that is reset (cule/vector_env.py: the first one reseeded), run first
  // and alone so that the others' resets take the memo slots it records (-1: none; the
  // result is the same either way).
  void reset(uintptr_t seeds, const CudaVecOutputs& out, int leader, uintptr_t stream);
  // Steps the envs ids[0..count) (device int64, distinct; 0: every env, count N), as
  // the CPU VecEnv::step: action_idx: device int64 [count] indices into the action set,
  // for env ids[k]; strengths: device float [count] or 0; bad: device int32 [1], set
  // when an index is out of range (then nothing changes); results go to rows ids[k] of
  // `out` (N rows; the other rows are left alone); final_obs: device uint8 like obs
  // (SAME_STEP only), rows ids[k] written.
  void step(uintptr_t action_idx, uintptr_t strengths, uintptr_t bad, const CudaVecOutputs& out,
            uintptr_t final_obs, uintptr_t stream, uintptr_t ids, int count);

  // The preprocessing state for clone / restore, in the CPU VecEnv's byte layout
  // (vector_bindings.cpp state_views): parts "slots", "raw", "stack" and, with
  // stale_frames off, "hist", each num_envs rows of state_part_bytes(part) bytes.
  std::vector<std::string> state_parts() const;
  size_t state_part_bytes(const std::string& part) const;
  // Copies a whole part to (to_device false) or from (true) the device buffer `ptr`.
  void copy_state(const std::string& part, uintptr_t ptr, bool to_device, uintptr_t stream);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cule
