#!/usr/bin/env bash
# Everything `scripts/gpu_check.sh OUT bench` can use, made in ./.whl on this machine
# before a GPU session starts (a fresh checkout has no .whl; about 15 minutes on 2
# cores, 1.6 GB of memory at most):
#   - the wheels and the main nvcc object (prepare_gpu_wheels.sh, CULE_PREBUILD_CUDA=1);
#   - the build variants `pick` times against it (build_cuda_variants.sh), each the
#     sources with switches that change only how a warp's lanes wait for each other:
#     fsync (-DCULE_FRAME_SYNC=1: the lanes that start a frame loop together meet
#     at every frame, common.hpp LaneTeam), team (-DCULE_LANE_TEAM=1: lane sync over the
#     lanes that entered the CPU loop together, cpu6507.hpp), fteam (both), fsync48
#     (fsync with -DCULE_DEVICE_OPCODE_SWITCH=2: per-opcode copies of the 48 most
#     frequent opcodes only) and fsynctab (fsync with -DCULE_DEVICE_OPCODE_SWITCH=0: the
#     table-driven 6507 step); about 4 minutes each.
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
  bash scripts/build_cuda_variants.sh fsync48="-DCULE_FRAME_SYNC=1 -DCULE_DEVICE_OPCODE_SWITCH=2" \
    fsynctab="-DCULE_FRAME_SYNC=1 -DCULE_DEVICE_OPCODE_SWITCH=0" ) \
  > .whl/prepare_main.log 2>&1 &
a=$!
bash scripts/build_cuda_variants.sh fsync="-DCULE_FRAME_SYNC=1" fteam="-DCULE_FRAME_SYNC=1 -DCULE_LANE_TEAM=1" \
  team="-DCULE_LANE_TEAM=1" > .whl/prepare_more.log 2>&1 &
b=$!
rc=0
wait $a || { echo "wheels / main object / fsync48 / fsynctab failed: see .whl/prepare_main.log"; tail -5 .whl/prepare_main.log; rc=1; }
wait $b || { echo "fsync / fteam / team failed: see .whl/prepare_more.log"; tail -5 .whl/prepare_more.log; rc=1; }
want=$(bash scripts/cuda_sources_sha.sh "$ARCH")
for f in .whl/cuda_backend.sha256 .whl/variants/sources.sha256; do
  [ "$want" = "$(cat "$f" 2>/dev/null)" ] || { echo "$f does not match the checkout ($want)"; rc=1; }
done
ls -la .whl .whl/variants 2>/dev/null | grep -E "\.o$|\.whl$|sha256"
echo "checksum $want; $(( $(date +%s) - T0 )) s; rc=$rc"
exit $rc
