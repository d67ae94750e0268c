#!/usr/bin/env bash
# Prepare, on a machine with internet access, what scripts/gpu_check.sh needs on a GPU
# machine that has none: the Python packages its image lacks, as wheels in ./.whl
# (for CPython 3.12 on x86-64 Linux by default), and optionally the nvcc-compiled CUDA
# object, so the GPU machine only compiles the small host-side bindings.
#
#   bash scripts/prepare_gpu_wheels.sh            # wheels only
#   CULE_PREBUILD_CUDA=1 bash scripts/prepare_gpu_wheels.sh   # + .whl/cuda_backend.o (sm_90)
#
# Packages: ale-py (the reference emulator and the ROMs), gymnasium and its
# farama-notifications; the rest (torch, numpy, pybind11, pytest, tqdm, opencv ...) are
# in the GPU image (see env/requirements.txt for what cule needs).
set -euo pipefail
cd "$(dirname "$0")/.."
PYVER="${PYVER:-3.12}"
PY="${PYTHON:-python3}"   # a Python with pip, setuptools and pybind11
mkdir -p .whl
"$PY" -m pip download --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl ale-py==0.12.1 gymnasium==1.4.0 farama-notifications==0.0.6
if [ "${CULE_PREBUILD_CUDA:-0}" = "1" ]; then
  ARCH="${CULE_CUDA_ARCHS:-90}"
  echo "nvcc (through setup.py): compiling csrc/cuda_backend.cu for sm_$ARCH"
  rm -rf .whl/build
  CULE_BUILD_EMU=0 CULE_CUDA=1 CULE_CUDA_ARCHS="$ARCH" "$PY" setup.py -q build_ext \
    --build-temp .whl/build/temp --build-lib .whl/build/lib
  cp .whl/build/temp/cuda_backend.o .whl/cuda_backend.o
  rm -rf .whl/build
  # What it was made from: gpu_check.sh uses the object only while this still matches.
  bash scripts/cuda_sources_sha.sh "$ARCH" > .whl/cuda_backend.sha256
fi
ls -la .whl
