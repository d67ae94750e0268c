#!/usr/bin/env bash
# One command for a GPU machine: build cule with CUDA, run the CUDA tests and the
# benchmark, and write a log and a JSON of figures to the folder given as argument.
#
#   bash scripts/gpu_check.sh /path/to/out
#
# Downloads nothing: it uses the Python found on the machine (3.10+, with torch,
# pybind11, setuptools, numpy).  Missing packages (ale-py, gymnasium, tqdm, pytest ...)
# are installed from wheels in ./.whl if that folder exists (prepared beforehand with
# `pip download`, see scripts/prepare_gpu_wheels.sh).  Budget: under 8 minutes on one
# H200 machine.  Files in OUT (7, within the device tool's 8): gpu_check.log,
# cuda_quick.log, cuda_lockstep.log, benchmark.csv/.json/.png, gpu_check.json.
set -uo pipefail
OUT="${1:?usage: scripts/gpu_check.sh OUTDIR}"
mkdir -p "$OUT"
LOG="$OUT/gpu_check.log"
cd "$(dirname "$0")/.."
exec > >(tee -a "$LOG") 2>&1
echo "== $(date -Iseconds) gpu_check on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
PY="${PYTHON:-python3}"
if [ -d .whl ]; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/cule-site .whl/*.whl && \
    export PYTHONPATH="/tmp/cule-site${PYTHONPATH:+:$PYTHONPATH}"
fi
echo "== build (CULE_CUDA=1)"
t0=$(date +%s)
# An nvcc object prepared beforehand from these same sources saves minutes here.
if [ -f .whl/cuda_backend.o ] && [ -f .whl/cuda_backend.sha256 ] && \
   [ "$({ cat csrc/*.hpp csrc/games/*.hpp csrc/*.cu csrc/*.cuh; echo "nvcc -O3 --fmad=false -ffp-contract=off sm_${CULE_CUDA_ARCHS:-90}"; } | sha256sum | cut -d' ' -f1)" = "$(cat .whl/cuda_backend.sha256)" ]; then
  export CULE_CUDA_OBJECT="$PWD/.whl/cuda_backend.o"
  echo "using the prebuilt CUDA object .whl/cuda_backend.o"
fi
CULE_CUDA=1 CULE_CUDA_ARCHS="${CULE_CUDA_ARCHS:-90}" "$PY" setup.py build_ext --inplace -j 8 > /tmp/cule_build.log 2>&1
rc=$?
echo "build rc=$rc in $(( $(date +%s) - t0 )) s"
[ $rc -eq 0 ] || { tail -60 /tmp/cule_build.log; exit $rc; }
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -c "import cule, torch; print(cule.build_info(), torch.cuda.get_device_name(0))"
echo "== CUDA tests"
# The quick checks first (outputs, errors, snapshots, a large batch), then the lock
# step over every game with what is left of the time.
timeout 100 "$PY" -m pytest -q -rfE tests/test_cuda.py -k "not test_cuda_matches_cpu" -p no:cacheprovider \
  > "$OUT/cuda_quick.log" 2>&1; echo "quick tests rc=$?"; tail -25 "$OUT/cuda_quick.log"
# pytest-xdist (in the GPU image) runs the games 8 at a time; without it, serially.
XDIST=""; "$PY" -c "import xdist" 2>/dev/null && XDIST="-n 8"
timeout 130 "$PY" -m pytest -q -rfE $XDIST tests/test_cuda.py -k "test_cuda_matches_cpu" -p no:cacheprovider \
  > "$OUT/cuda_lockstep.log" 2>&1; echo "lockstep rc=$?"; tail -15 "$OUT/cuda_lockstep.log"
echo "== benchmark"
timeout 200 "$PY" -m cule.benchmark --backends cule-cuda cule-cpu ale-vector --games pong \
  --num-envs 1024 4096 16384 65536 --modes emulation pipeline --warmup 0.5 --window 1 --windows 3 \
  --out-dir "$OUT" 2>&1; echo "benchmark rc=$?"
"$PY" - "$OUT" <<'PYEOF'
import json, sys, torch, cule
out = sys.argv[1]
summary = {"build": cule.build_info(), "gpu": torch.cuda.get_device_name(0)}
try:
    # Device memory per env (console state, two frame buffers, the ROM and palette
    # shared) and the largest batch the free memory holds.
    e = cule.Atari("pong", 4096, device="cuda", render=False)
    per_env = e._cuda.batch.device_bytes / 4096
    free, total = torch.cuda.mem_get_info()
    summary["device_bytes_per_env"] = per_env
    summary["largest_batch_estimate"] = int(free // per_env)
    summary["gpu_memory_free_total"] = [free, total]
    del e
except Exception as ex:  # noqa: BLE001
    summary["memory_error"] = repr(ex)
try:
    summary["benchmark"] = json.load(open(f"{out}/benchmark.json"))["speedups"]
except Exception as e:  # noqa: BLE001
    summary["benchmark_error"] = repr(e)
json.dump(summary, open(f"{out}/gpu_check.json", "w"), indent=2)
print("wrote", f"{out}/gpu_check.json")
PYEOF
