// cule: a host emulation of the small part of the CUDA runtime that cuda_backend.cu
// uses, so the backend's own code (kernels, state layout, launches) can be compiled by
// the host C++ compiler and tested on machines without a GPU (module cule._cuda_emu).
//
// Only included when the file is not compiled by nvcc.  "Device" memory is ordinary
// host memory; a kernel launch runs every thread of every block one after the other on
// the calling thread, with blockIdx / threadIdx / blockDim / gridDim set for each.  So
// kernels must not depend on threads of a block running concurrently (no
// __syncthreads, shared memory or warp intrinsics); none of cule's kernels do.
//
// Fresh allocations are filled with a junk byte pattern, never zeros, so a kernel that
// reads memory nobody wrote gives results that differ from the CPU backend.
#pragma once
#if defined(__CUDACC__)
#error "cuda_shim.hpp is for host builds only"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))

namespace cule_emu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// The built-in index variables of the thread being emulated.  thread_local: several
// Python threads may drive different batches at once.
inline thread_local Dim3 blockIdx_v, threadIdx_v, blockDim_v, gridDim_v;

// Blocks and threads per block above CUDA's limits make a real launch fail with
// cudaErrorInvalidConfiguration; the emulation reports the same.
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned long long kMaxGridX = 2147483647ull;

inline thread_local int last_error = 0;

}  // namespace cule_emu

#define blockIdx (::cule_emu::blockIdx_v)
#define threadIdx (::cule_emu::threadIdx_v)
#define blockDim (::cule_emu::blockDim_v)
#define gridDim (::cule_emu::gridDim_v)

typedef int cudaError_t;
typedef struct CUstream_emu* cudaStream_t;
typedef ::cule_emu::Dim3 dim3;

enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    default: return "unknown error";
  }
}

inline cudaError_t cudaGetLastError() {
  cudaError_t e = ::cule_emu::last_error;
  ::cule_emu::last_error = cudaSuccess;
  return e;
}

// One emulated device, number 0.
// A failing call also becomes the thread's last error, as in the CUDA runtime.
inline cudaError_t cudaSetDevice(int device) {
  if (device == 0) return cudaSuccess;
  ::cule_emu::last_error = cudaErrorInvalidDevice;
  return cudaErrorInvalidDevice;
}

inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}

template <class T>
inline cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    ::cule_emu::last_error = cudaErrorMemoryAllocation;
    return cudaErrorMemoryAllocation;
  }
  memset(p, 0xA5, bytes);
  *ptr = static_cast<T*>(p);
  return cudaSuccess;
}

inline cudaError_t cudaFree(void* p) {
  free(p);
  return cudaSuccess;
}

// The stream-ordered allocator: the same, in stream order (every call is in order here).
template <class T>
inline cudaError_t cudaMallocAsync(T** ptr, size_t bytes, cudaStream_t) {
  return cudaMalloc(ptr, bytes);
}

inline cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return cudaFree(p); }

inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  if (bytes) memmove(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}

inline cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  memset(dst, value, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t) {
  return cudaMemset(dst, value, bytes);
}

inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

namespace cule_emu {

// Runs kernel(args...) once for every thread of a 1-D grid, block by block and thread
// by thread.  A configuration CUDA would refuse records cudaErrorInvalidConfiguration.  The arguments are copied once, as a real launch copies them into the
// kernel's parameter space.
template <class Kernel, class... Args>
void launch(Dim3 grid, Dim3 block, cudaStream_t, Kernel kernel, Args... args) {
  if (grid.x == 0 || block.x == 0 || block.x > kMaxThreadsPerBlock || grid.x > kMaxGridX || grid.y != 1 ||
      grid.z != 1 || block.y != 1 || block.z != 1) {
    last_error = cudaErrorInvalidConfiguration;
    return;
  }
  gridDim_v = grid;
  blockDim_v = block;
  // Last block first and, inside a block, last thread first: a kernel whose result
  // depends on threads running in index order (which CUDA never promises) then
  // differs from the CPU backend instead of passing by luck.
  for (unsigned b = grid.x; b-- > 0;) {
    blockIdx_v = Dim3(b);
    for (unsigned t = block.x; t-- > 0;) {
      threadIdx_v = Dim3(t);
      kernel(args...);
    }
  }
}

}  // namespace cule_emu

// CULE_LAUNCH(kernel, grid, block, stream, args...): the host form of
// kernel<<<grid, block, 0, stream>>>(args...).
#define CULE_LAUNCH(kernel, grid, block, stream, ...) \
  ::cule_emu::launch(dim3(grid), dim3(block), stream, kernel, __VA_ARGS__)
