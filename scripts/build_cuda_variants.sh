#!/usr/bin/env bash
# Compiles build variants of the CUDA object for scripts/gpu_variants.sh, on any machine
# with nvcc (about 2 minutes each on 2 cores), into .whl/variants/NAME.o:
#
#   bash scripts/build_cuda_variants.sh NAME="FLAGS" [NAME="FLAGS" ...]
#   e.g. bash scripts/build_cuda_variants.sh nosync="-DCULE_LANE_SYNC=0" io8="-DCULE_IO_CONVERGE=1"
#
# The nvcc flags are setup.py's (BuildExt) for one target, sm_${CULE_CUDA_ARCHS:-90}, plus
# FLAGS; keep them in step.  .whl/variants/sources.sha256 records the sources they were
# made from (scripts/cuda_sources_sha.sh): compare it with the checkout before timing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/build_cuda_variants.sh NAME=\"FLAGS\" ..."; exit 2; }
ARCH="${CULE_CUDA_ARCHS:-90}"
mkdir -p .whl/variants
for v in "$@"; do
  case "$v" in
    *=*) ;;
    *) echo "'$v': expected NAME=\"FLAGS\" (e.g. nosync=\"-DCULE_LANE_SYNC=0\")"; exit 2 ;;
  esac
  name="${v%%=*}"; flags="${v#*=}"
  case "$name" in
    ""|*[!A-Za-z0-9_-]*) echo "'$name': a variant name takes letters, digits, _ and - only"; exit 2 ;;
  esac
  echo "== $name: $flags"
  # shellcheck disable=SC2086
  if ! nvcc -std=c++17 -O3 --fmad=false -Xcompiler -fPIC,-ffp-contract=off,-fno-strict-aliasing -Icsrc -diag-suppress 20012 \
    -gencode "arch=compute_$ARCH,code=sm_$ARCH" -Xptxas -v $flags -c csrc/cuda_backend.cu \
    -o ".whl/variants/$name.o" 2> ".whl/variants/$name.ptxas"; then
    grep -v "^ptxas info\|bytes stack frame" ".whl/variants/$name.ptxas" | tail -20
    rm -f ".whl/variants/$name.o"
    echo "$name: nvcc failed (log: .whl/variants/$name.ptxas)"
    exit 1
  fi
  grep -A2 "k_actE\|k_vec_stepE" ".whl/variants/$name.ptxas" | grep -E "spill|registers" || true
done
bash scripts/cuda_sources_sha.sh "$ARCH" > .whl/variants/sources.sha256
