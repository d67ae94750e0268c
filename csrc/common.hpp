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

namespace cule {
}  // namespace cule
