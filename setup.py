"""Build script for cule's native modules.

* ``cule._core``: the emulator core and the CPU backend (a C++17 compiler is enough).
* ``cule._vector``: the preprocessed vector environment behind ``cule.AtariVectorEnv``.
* ``cule._cuda``: the CUDA backend, compiled with nvcc when it is found.
  ``CULE_CUDA=auto`` (default) builds it if nvcc is on PATH (or in $CUDA_HOME/bin),
  ``CULE_CUDA=0`` never builds it, ``CULE_CUDA=1`` fails loudly without nvcc.
  ``CULE_CUDA_ARCHS`` sets the GPU targets (default "80;90": sm_80 and sm_90 code plus
  compute_90 PTX for newer GPUs).  ``CULE_CUDA_OBJECT=path`` links an object nvcc
  compiled from the same sources beforehand instead (scripts/prepare_gpu_wheels.sh).
* ``cule._cuda_emu``: the same CUDA backend source compiled for the host, every kernel
  launch run thread by thread on the CPU (csrc/cuda_shim.hpp); always built, so the
  CUDA backend's kernels and glue are tested on machines without a GPU.
"""
import os
import shutil
import subprocess
import sys

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = "csrc"
HEADERS = [os.path.join(CSRC, f) for f in os.listdir(os.path.join(HERE, CSRC)) if f.endswith(".hpp")]
HEADERS += [os.path.join(CSRC, "games", f) for f in os.listdir(os.path.join(HERE, CSRC, "games"))]

# The emulator core is branchy integer code working on short runs:
#  -fno-tree-loop-distribute-patterns: short fills stay inline stores (no memset calls);
#  -fno-tree-vectorize: vector code only costs here (SLP packing of state fields causes
#   store-forwarding stalls, vectorized short loops carry long prologues); the TIA's
#   pixel writer uses SSE2 intrinsics where it pays.
extra = ["-O3", "-fno-strict-aliasing", "-fno-tree-loop-distribute-patterns", "-fno-tree-vectorize"]
if os.environ.get("CULE_NATIVE", "0") == "1":
    extra.append("-march=native")


def find_nvcc():
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
        cand = os.path.join(home, "bin", "nvcc")
        nvcc = cand if os.path.exists(cand) else None
    return nvcc


CUDA_MODE = os.environ.get("CULE_CUDA", "auto").lower()
if CUDA_MODE not in ("auto", "0", "1"):
    sys.exit(f"CULE_CUDA must be auto, 0 or 1, got {CUDA_MODE!r}")
NVCC = find_nvcc() if CUDA_MODE != "0" else None
if CUDA_MODE == "1" and NVCC is None:
    sys.exit("CULE_CUDA=1 but nvcc was not found (put it on PATH or set CUDA_HOME)")

ext_modules = [
    Pybind11Extension(
        "cule._core",
        [os.path.join(CSRC, "bindings.cpp")],
        include_dirs=[CSRC],
        cxx_std=17,
        extra_compile_args=extra,
        depends=HEADERS,
    ),
    # The preprocessed vector environment (cule.AtariVectorEnv).  -ffp-contract=off keeps
    # the INTER_AREA arithmetic bit-exact with OpenCV's (no fused multiply-add).
    Pybind11Extension(
        "cule._vector",
        [os.path.join(CSRC, "vector_bindings.cpp")],
        include_dirs=[CSRC],
        cxx_std=17,
        # Loop vectorisation stays on here for the preprocessing loops (max-pool, resize
        # rows); SLP stays off for the emulator core compiled into this module too.
        extra_compile_args=[f for f in extra if f != "-fno-tree-vectorize"] + ["-fno-tree-slp-vectorize",
                                                                               "-ffp-contract=off"],
        depends=HEADERS,
    ),
    # The CUDA backend compiled for the host (tests only; see csrc/cuda_emu.cpp).
    Pybind11Extension(
        "cule._cuda_emu",
        [os.path.join(CSRC, "cuda_bindings.cpp"), os.path.join(CSRC, "cuda_emu.cpp")],
        include_dirs=[CSRC],
        cxx_std=17,
        define_macros=[("CULE_CUDA_MODULE", "_cuda_emu"), ("CULE_CUDA_EMULATED", "1")],
        # -ffp-contract=off: the vector env's resize must not fuse multiply-adds (as the
        # CPU build and nvcc's --fmad=false).
        extra_compile_args=["-O2", "-fno-strict-aliasing", "-ffp-contract=off"],
        depends=HEADERS + [os.path.join(CSRC, "cuda_backend.cu"), os.path.join(CSRC, "cuda_vector_env.cuh")],
    ),
]

# CULE_BUILD_EMU=0 leaves the host emulation of the CUDA backend out (it only serves the
# tests; scripts/gpu_check.sh saves its compile time on the GPU machine).
if os.environ.get("CULE_BUILD_EMU", "1") == "0":
    ext_modules = [e for e in ext_modules if e.name != "cule._cuda_emu"]


def find_cuda_home(nvcc):
    """The toolkit directory (with include/cuda_runtime.h) that nvcc belongs to."""
    import glob
    cands = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
             os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "/usr/local/cuda"]
    cands += sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    for c in cands:
        if c and os.path.exists(os.path.join(c, "include", "cuda_runtime.h")):
            return c
    sys.exit(f"found nvcc at {nvcc} but no CUDA toolkit headers; set CUDA_HOME")


if NVCC:
    cuda_home = find_cuda_home(NVCC)
    libdir = next((d for d in (os.path.join(cuda_home, "lib64"), os.path.join(cuda_home, "lib"))
                   if os.path.exists(os.path.join(d, "libcudart_static.a"))), os.path.join(cuda_home, "lib64"))
    ext_modules.append(
        Pybind11Extension(
            "cule._cuda",
            [os.path.join(CSRC, "cuda_bindings.cpp")],
            include_dirs=[CSRC, os.path.join(cuda_home, "include")],
            cxx_std=17,
            extra_compile_args=extra,
            library_dirs=[libdir],
            libraries=["cudart_static", "dl", "rt", "pthread"],
            depends=HEADERS + [os.path.join(CSRC, "cuda_backend.cu"), os.path.join(CSRC, "cuda_vector_env.cuh")],
        )
    )


class BuildExt(build_ext):
    """Compiles csrc/cuda_backend.cu with nvcc and links it into cule._cuda."""

    def build_extension(self, ext):
        if ext.name == "cule._cuda":
            archs = os.environ.get("CULE_CUDA_ARCHS", "80;90").replace(",", ";").split(";")
            gencode = []
            for a in archs:
                gencode += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
            gencode += ["-gencode", f"arch=compute_{archs[-1]},code=compute_{archs[-1]}"]
            os.makedirs(self.build_temp, exist_ok=True)
            obj = os.path.join(self.build_temp, "cuda_backend.o")
            src = os.path.join(HERE, CSRC, "cuda_backend.cu")
            prebuilt = os.environ.get("CULE_CUDA_OBJECT")
            if prebuilt:
                # An object nvcc made beforehand from these same sources (see
                # scripts/prepare_gpu_wheels.sh): only the host bindings are compiled here.
                print("nvcc: using the prebuilt", prebuilt, flush=True)
                obj = prebuilt
            else:
                # --fmad=false: no fused multiply-adds, so any floating-point arithmetic in
                # the core rounds as on the CPU (the host build does not contract either;
                # -ffp-contract=off for the host code nvcc hands to the host compiler).
                # -fno-strict-aliasing: the host code emulates too (the batch's power-on
                # state, ale_env.hpp), and the core is written for it, as the CPU modules.
                # --threads: the GPU targets are compiled in parallel (one per core).
                cmd = [NVCC, "-std=c++17", "-O3", "--fmad=false", "-Xcompiler",
                       "-fPIC,-ffp-contract=off,-fno-strict-aliasing",
                       "--threads", str(max(1, min(len(archs), os.cpu_count() or 1))),
                       "-I" + os.path.join(HERE, CSRC), "-diag-suppress", "20012", *gencode, "-c", src, "-o", obj]
                print("nvcc:", " ".join(cmd), flush=True)
                subprocess.check_call(cmd)
            ext.extra_objects = [obj]
        super().build_extension(ext)


setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildExt})
