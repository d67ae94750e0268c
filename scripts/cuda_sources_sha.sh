#!/usr/bin/env bash
# Prints the checksum that ties a prebuilt CUDA object (.whl/cuda_backend.o, made by
# scripts/prepare_gpu_wheels.sh through setup.py) to the sources, the nvcc command
# (setup.py) and the target it was built from;
# scripts/gpu_check.sh links the object only when the checksum still matches.
# Usage: scripts/cuda_sources_sha.sh ARCH     (e.g. 90)
# Files are listed in C-locale order, so every machine lists them alike (a glob's order
# follows the locale's collation).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH="${1:?usage: cuda_sources_sha.sh ARCH}"
{
  find csrc -maxdepth 2 \( -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -type f | LC_ALL=C sort | xargs cat
  cat setup.py
  echo "sm_$ARCH"
} | sha256sum | cut -d' ' -f1
