// cule: the CUDA backend compiled for the host (module cule._cuda_emu).  The very
// source of cuda_backend.cu, with the CUDA runtime calls and kernel launches provided
// by cuda_shim.hpp, so the backend's kernels, state layout and glue run and are tested
// on machines without a GPU.
//
// The emulation takes the core's portable code paths, the ones device code compiles:
// the SSE2 pixel writer in tia.hpp exists only for host builds, so it is switched off.
#undef __SSE2__
#include "cuda_backend.cu"
