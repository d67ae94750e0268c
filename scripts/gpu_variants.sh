#!/usr/bin/env bash
# Times build variants of the CUDA object on a GPU machine, one after another in one call:
#
#   bash scripts/gpu_variants.sh OUT "SPEC" NAME=OBJECT.o [NAME=OBJECT.o ...]
#
# Each OBJECT.o is csrc/cuda_backend.cu compiled beforehand (on any machine with nvcc,
# e.g. with an experiment's -D flag:
#   nvcc -std=c++17 -O3 --fmad=false -Xcompiler -fPIC,-ffp-contract=off,-fno-strict-aliasing -Icsrc \
#     -diag-suppress 20012 -gencode arch=compute_90,code=sm_90 -Xptxas -v \
#     -DCULE_IO_CONVERGE=1 -c csrc/cuda_backend.cu -o .diag/io.o
# about 2 minutes on 2 cores).  cule._cuda must already be built here (scripts/gpu_check.sh
# does that); its host bindings are relinked with each object in turn and
# scripts/cuda_timing.py measures SPEC (see there) under the label NAME, appending to
# OUT/cuda_timing.jsonl (SECS and WARMUP in the environment: its seconds and warm-up steps;
# VARIANT_LIMIT, default 90: the seconds each variant's timing may take).
# The first object given stays linked at the end.  SPEC "-" only links: `bash
# scripts/gpu_variants.sh OUT - NAME=OBJECT.o` leaves that object linked, timing nothing.
set -uo pipefail
OUT="${1:?usage: scripts/gpu_variants.sh OUT SPEC NAME=OBJ.o ...}"; SPEC="${2:?SPEC}"; shift 2
[ $# -ge 1 ] || { echo "usage: scripts/gpu_variants.sh OUT SPEC NAME=OBJ.o [NAME=OBJ.o ...]"; exit 2; }
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)" || exit 2
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
# cule from this checkout; ale-py / gymnasium where gpu_check.sh installed the wheels.
export PYTHONPATH="$PWD:/tmp/cule-site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
SO=$(ls cule/_cuda.cpython-3*.so 2>/dev/null | head -1)
BO=$(find build -name cuda_bindings.o 2>/dev/null | head -1)
[ -n "$SO" ] && [ -n "$BO" ] || { echo "build cule._cuda first (scripts/gpu_check.sh)"; exit 1; }
if command -v nvcc > /dev/null; then NV=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")"); else NV="${CUDA_HOME:-/usr/local/cuda}"; fi
LIBD=""
for d in "$NV/lib64" "$NV/lib" "${CUDA_HOME:-/usr/local/cuda}/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib" /usr/local/cuda*/lib64 /usr/local/cuda*/lib; do
  [ -f "$d/libcudart_static.a" ] && { LIBD=$d; break; }
done
[ -n "$LIBD" ] || { echo "libcudart_static.a not found (set CUDA_HOME)"; exit 1; }
# (into a new file first: a failed link leaves the module linked before in place)
link() { g++ -shared -o "$SO.new" "$BO" "$1" -L"$LIBD" -lcudart_static -ldl -lrt -lpthread && mv -f "$SO.new" "$SO"; }
for v in "$@"; do
  name="${v%%=*}"; obj="${v#*=}"
  link "$obj" || { echo "$name: link failed"; continue; }
  [ "$SPEC" = "-" ] && continue
  echo "== $name ($obj)"
  # (each under its own limit, VARIANT_LIMIT seconds: a variant that hangs costs only that)
  timeout -k 5 "${VARIANT_LIMIT:-90}" "$PY" scripts/cuda_timing.py "$name" "$SPEC" "$OUT/cuda_timing.jsonl" "${SECS:-1.2}" "${WARMUP:-2}" \
    || echo "$name: cuda_timing.py failed or ran past ${VARIANT_LIMIT:-90} s"
done
[ $# -gt 1 ] || exit 0
first="${1#*=}"; link "$first" && echo "relinked $first"
