#!/usr/bin/env bash
# Everything `scripts/gpu_check.sh OUT bench` can use, made in ./.whl on this machine
# before a GPU session starts (a fresh checkout has no .whl; about 12 minutes on 2
# cores, 1.6 GB of memory at most):
#   - the wheels and the main nvcc object (prepare_gpu_wheels.sh, CULE_PREBUILD_CUDA=1);
#   - the build variants the bench times (build_cuda_variants.sh): table
#     (-DCULE_DEVICE_OPCODE_SWITCH=0, the GPU's table-driven 6507 step, the default
#     until 2026-12-04), opsw48 (-DCULE_DEVICE_OPCODE_SWITCH=2) and nohigh
#     (-DCULE_DEVICE_CPU_HIGH=0: without ALE's cpu="high" core, which may be what slowed
#     the step since 2026-11-30; about 6 minutes, as the main object).
# Two nvcc runs at a time; logs in .whl/prepare_*.log.  Exits non-zero if a part fails
# or the objects' recorded sources differ from the checkout.
#
#   PYTHON=.venv-ci/bin/python bash scripts/prepare_gpu_session.sh   (PYTHON: one with pip,
#                                     setuptools and pybind11; default python3)
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" -c "import pybind11, setuptools" 2> /dev/null || {
  echo "$PY lacks pybind11 or setuptools: set PYTHON to one that has them (e.g. python3 -m venv /tmp/pv &&"
  echo "/tmp/pv/bin/pip install pybind11 setuptools, then PYTHON=/tmp/pv/bin/python)"; exit 2; }
export PYTHON="$PY"
mkdir -p .whl
rm -f .whl/cuda_backend.o .whl/cuda_backend.sha256 .whl/variants/*.o .whl/variants/sources.sha256
ARCH="${CULE_CUDA_ARCHS:-90}"
T0=$(date +%s)
( CULE_PREBUILD_CUDA=1 bash scripts/prepare_gpu_wheels.sh &&
  bash scripts/build_cuda_variants.sh table="-DCULE_DEVICE_OPCODE_SWITCH=0" opsw48="-DCULE_DEVICE_OPCODE_SWITCH=2" ) \
  > .whl/prepare_main.log 2>&1 &
a=$!
bash scripts/build_cuda_variants.sh nohigh="-DCULE_DEVICE_CPU_HIGH=0" > .whl/prepare_nohigh.log 2>&1 &
b=$!
rc=0
wait $a || { echo "wheels / main object / table / opsw48 failed: see .whl/prepare_main.log"; tail -5 .whl/prepare_main.log; rc=1; }
wait $b || { echo "nohigh failed: see .whl/prepare_nohigh.log"; tail -5 .whl/prepare_nohigh.log; rc=1; }
want=$(bash scripts/cuda_sources_sha.sh "$ARCH")
for f in .whl/cuda_backend.sha256 .whl/variants/sources.sha256; do
  [ "$want" = "$(cat "$f" 2>/dev/null)" ] || { echo "$f does not match the checkout ($want)"; rc=1; }
done
ls -la .whl .whl/variants 2>/dev/null | grep -E "\.o$|\.whl$|sha256"
echo "checksum $want; $(( $(date +%s) - T0 )) s; rc=$rc"
exit $rc
