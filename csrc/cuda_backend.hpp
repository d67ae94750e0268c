// cule: the CUDA backend's host interface (no CUDA headers: compiled by both g++ and
// nvcc).  Device buffers are passed as raw pointers the caller (PyTorch) allocated on
// the current device; `stream` is the cudaStream_t the work is queued on (PyTorch's
// current stream), so nothing synchronises with the host unless the caller reads.
#pragma once
#include <stdint.h>

#include <memory>
#include <string>

#include "state.hpp"

namespace cule {

struct EnvParamsHost {
  int32_t frameskip;
  float repeat_p;
  int32_t max_frames;
};

class CudaBatch {
 public:
  CudaBatch(const GameConfig& cfg, const std::string& rom, int num_envs, int device);
  ~CudaBatch();
  CudaBatch(const CudaBatch&) = delete;
  CudaBatch& operator=(const CudaBatch&) = delete;

  int num_envs() const;
  size_t device_bytes() const;   // device memory this batch holds
  static size_t console_state_bytes();   // bytes of one console in a snapshot (sizeof(Console))
  static size_t frame_buffer_bytes();    // bytes of one console's two frame buffers

  // seeds/modes/difficulties: host arrays of num_envs.
  void load(const uint32_t* seeds, const uint16_t* modes, const uint8_t* difficulties, const EnvParamsHost& p,
            uintptr_t stream);
  void set_mode(uint16_t mode, uint8_t difficulty, uintptr_t stream);
  // mask: device uint8 [num_envs]; envs with a non-zero byte are reset.
  void reset_masked(uintptr_t mask, const EnvParamsHost& p, uintptr_t stream);
  // actions: device int64 [num_envs]; rewards: device int32 [num_envs].
  // bad: device int32 [1]; set to 1 when an action id is outside [0, 18), in which case
  // nothing changes (checked on the device: no host synchronisation).
  void act(uintptr_t actions, uintptr_t rewards, uintptr_t bad, const EnvParamsHost& p, uintptr_t stream);
  // Frames drawn per act: 2 (default: the last two, exact screens), kRenderAll, or 0.
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
  std::unique_ptr<Impl> impl_;
};

}  // namespace cule
