#!/usr/bin/env bash
# Prints the checksum that ties a prebuilt CUDA object (.whl/cuda_backend.o, made by
# scripts/prepare_gpu_wheels.sh) to the sources and nvcc flags it was built from;
# scripts/gpu_check.sh links the object only when the checksum still matches.
# Usage: scripts/cuda_sources_sha.sh ARCH     (e.g. 90)
# Files are listed in C-locale order, so every machine lists them alike (a glob's order
# follows the locale's collation).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH="${1:?usage: cuda_sources_sha.sh ARCH}"
{
  find csrc -maxdepth 2 \( -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -type f | LC_ALL=C sort | xargs cat
  echo "nvcc -O3 --fmad=false -ffp-contract=off sm_$ARCH ${CULE_CUDA_DEFINES:-}"
} | sha256sum | cut -d' ' -f1
