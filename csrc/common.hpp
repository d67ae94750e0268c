// cule: shared definitions for the per-console emulator core.
//
// Everything on the emulation step path is written as plain functions over plain
// structs and marked CULE_HD, so the CPU thread pool and the CUDA kernels compile
// the very same code.  No virtual calls, heap allocation, exceptions or std
// containers are allowed on that path.
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define CULE_HD __host__ __device__ inline
#define CULE_FI __host__ __device__ __forceinline__
// Large functions reached from several kernels: compiled once, called, never inlined
// (keeps device code and ptxas memory small).
#define CULE_BIG __host__ __device__ __noinline__
#define CULE_HOST_DEVICE __host__ __device__
#else
#define CULE_HD inline
// Small functions on the per-instruction path: always inlined.
#define CULE_FI inline __attribute__((always_inline))
#define CULE_BIG inline
#define CULE_HOST_DEVICE
#endif

#ifndef CULE_FRAME_SYNC
#define CULE_FRAME_SYNC 0
#endif

namespace cule {

// The lanes of a CUDA warp that start a frame loop together (ale_act_strength's frames,
// the vector env's frameskip, ale_emulate_frames), brought together again before every
// frame.  A GPU (sm_70 or later) builds this with -DCULE_FRAME_SYNC=1 (an experiment,
// off by default); everywhere else it does nothing.  Why: each lane leaves the CPU loop
// when its own frame ends, the lanes go on from there in small groups, and nothing
// merges them again, so lane sync in cpu_run (cpu6507.hpp) keeps only each group
// together (Nsight Compute, k_vec_step, pong, 16,384 envs: groups of 5-9 lanes at the
// CPU loop's head).  Use: the team is the lanes that construct it together; each round
// every lane still in it calls leaves() once, with whether it stops, and a lane that
// gets true leaves the loop at once:
//     LaneTeam team;
//     for (int i = 0; !team.leaves(i >= n); ++i) { ... }
// (lanes whose n differ each leave after their own n rounds).  Each console still runs
// its own frames in its own order: only when lanes wait changes.
#if defined(__CUDA_ARCH__) && CULE_FRAME_SYNC && __CUDA_ARCH__ >= 700
#define CULE_FRAME_SYNC_ON 1
#else
#define CULE_FRAME_SYNC_ON 0
#endif
struct LaneTeam {
  unsigned mask;
  CULE_FI LaneTeam() : mask(0u) {
#if CULE_FRAME_SYNC_ON
    mask = __activemask();
#endif
  }
  // `stop` for this lane; returns it, the team keeping the lanes that go on (a
  // __ballot_sync over the team: the lanes still in it wait for each other here).
  CULE_FI bool leaves(bool stop) {
#if CULE_FRAME_SYNC_ON
    mask = __ballot_sync(mask, !stop);
#endif
    return stop;
  }
};

}  // namespace cule
