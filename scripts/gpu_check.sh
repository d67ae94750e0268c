#!/usr/bin/env bash
# The GPU checks, for a machine with one CUDA GPU.
#
#   bash scripts/gpu_check.sh OUT          # all in under 8 minutes: build, CUDA tests,
#                                          # benchmark, then the all-games lock step over 800
#                                          # frames in what is left
#   bash scripts/gpu_check.sh OUT tests    # build + CUDA tests, lock step over 5,000 frames
#   bash scripts/gpu_check.sh OUT bench    # benchmark, step timings (scripts/cuda_timing.py),
#                                          # those of .whl/variants/{table,opsw48,nohigh}.o
#                                          # if made (build switches), memory per env,
#                                          # ncu profiles of k_vec_step and k_act
#   bash scripts/gpu_check.sh OUT pick     # step timings of the main object and every
#                                          # variant in .whl/variants (pong, emulation and
#                                          # vector env at 65,536), the fastest vector env
#                                          # (of those at 2M frames/s or more emulating)
#                                          # linked and named in OUT/chosen.txt, then the
#                                          # benchmark (up to 131,072 envs), memory and the
#                                          # quick parity check with it, and with 150 s
#                                          # left an ncu profile of k_vec_step; budget
#                                          # 540 s.
#                                          # A later `CULE_GPU_VARIANT=NAME ... tests` on
#                                          # the same machine tests that object.
#   bash scripts/gpu_check.sh OUT variants # step timings of the build variants in
#                                          # .whl/variants (scripts/build_cuda_variants.sh)
#                                          # against the main object .whl/cuda_backend.o
#                                          # (prepare_gpu_wheels.sh, CULE_PREBUILD_CUDA=1),
#                                          # then the main object relinked; budget 300 s
#   bash scripts/gpu_check.sh OUT session  # tests (lock step over 5,000 frames, its time
#                                          # capped to leave 175 s), then variants, in
#                                          # one call; budget 570 s
#   bash scripts/gpu_check.sh OUT steady   # the vector env in steady state (breakout,
#                                          # 2,048 envs, after 300 warm-up steps) with
#                                          # the memos and with CULE_RESET_MEMO=0; budget
#                                          # 200 s
#   bash scripts/gpu_check.sh OUT agent    # the A2C+V-trace agent on pong with its CUDA
#                                          # defaults, without sticky actions (AGENT_ARGS),
#                                          # for AGENT_MINUTES (2), then its final
#                                          # evaluation: agent.log, progress.csv,
#                                          # learning_curve.png; budget 480 s
#
# (bench, pick, variants, steady and agent build first, about 70 s, unless an earlier call on the same
# machine did: a machine stays warm 30 s after a call.)  Downloads nothing: it uses the Python found
# there (3.10+, with torch, pybind11, setuptools, numpy, pytest).  Missing packages
# (ale-py, gymnasium) come from wheels in ./.whl, and .whl/cuda_backend.o, compiled
# beforehand from these same sources, saves the nvcc run (scripts/prepare_gpu_wheels.sh
# makes both).  Files in OUT (the device tool brings back 8): gpu_check.log,
# cuda_quick.log, cuda_lockstep.log (a line per game as it finishes, so a run cut short
# still tells how far it got), benchmark.csv/.json/.png, gpu_check.json, and with
# bench cuda_timing.jsonl, ncu_k_act.txt, ncu_k_vec_step.txt and its per-instruction
# page ncu_k_vec_step_sass.csv.gz (instead of benchmark.png).
set -uo pipefail
OUT="${1:?usage: scripts/gpu_check.sh OUTDIR [all|tests|bench|pick|variants|session|steady|agent]}"
PHASE="${2:-all}"
case "$PHASE" in
  all) BUDGET="${GPU_CHECK_BUDGET:-465}"; export CULE_LOCKSTEP_FRAMES="${CULE_LOCKSTEP_FRAMES:-800}" ;;
  tests|bench) BUDGET="${GPU_CHECK_BUDGET:-530}" ;;
  pick) BUDGET="${GPU_CHECK_BUDGET:-540}" ;;
  variants) BUDGET="${GPU_CHECK_BUDGET:-300}" ;;
  session) BUDGET="${GPU_CHECK_BUDGET:-570}" ;;
  steady) BUDGET="${GPU_CHECK_BUDGET:-200}" ;;
  agent) BUDGET="${GPU_CHECK_BUDGET:-480}" ;;
  *) echo "phase must be all, tests, bench, pick, variants, session, steady or agent"; exit 2 ;;
esac
T0=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
# min(step's own limit, what is left of the budget less a reserve for what follows)
limit() { local l; l=$(( $(left) - $2 )); [ "$l" -lt "$1" ] && echo $(( l > 5 ? l : 5 )) || echo "$1"; }
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)" || exit 2
LOG="$OUT/gpu_check.log"
FAILED=0   # set when a test run fails; the exit status
cd "$(dirname "$0")/.."
exec > >(tee -a "$LOG") 2>&1
echo "== $(date -Iseconds) gpu_check $PHASE on $(hostname), budget $BUDGET s"
PY="${PYTHON:-python3}"
# Without a GPU nothing here can run: say so at once (it built for minutes, skipped every
# test and exited 0).  nvidia-smi answers in a moment where there is one.
if ! nvidia-smi -L > /dev/null 2>&1 && ! "$PY" -c "import sys, torch; sys.exit(not torch.cuda.is_available())" 2> /dev/null; then
  echo "no CUDA GPU here (nvidia-smi lists none, and $PY's torch.cuda.is_available() is False): this"
  echo "script is for a GPU machine; without one, tests/test_cuda_emu.py runs the CUDA backend's code"
  echo "in a host emulation (see the README's CUDA section)"
  exit 3
fi
if [ -d .whl ] && ls .whl/*.whl > /dev/null 2>&1; then
  if "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/cule-site .whl/*.whl; then
    export PYTHONPATH="/tmp/cule-site${PYTHONPATH:+:$PYTHONPATH}"
  else
    echo "pip could not install the wheels in .whl (made for another Python? PYVER in prepare_gpu_wheels.sh)"
  fi
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

# reserve for the benchmark and the lock step when running everything
R=0; [ "$PHASE" = "all" ] && R=210; [ "$PHASE" = "session" ] && R=300
build() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
  echo "== build (CULE_CUDA=1, sm_${CULE_CUDA_ARCHS:-90}, without the host emulation)"
  echo "nvcc here: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*')"
  want=$(bash scripts/cuda_sources_sha.sh "${CULE_CUDA_ARCHS:-90}")
  if [ -n "${CULE_GPU_VARIANT:-}" ]; then
    # A build variant instead of the main object (the one a pick phase chose).
    if [ -f ".whl/variants/$CULE_GPU_VARIANT.o" ] && [ "$want" = "$(cat .whl/variants/sources.sha256 2>/dev/null)" ]; then
      export CULE_CUDA_OBJECT="$PWD/.whl/variants/$CULE_GPU_VARIANT.o"
      echo "using the build variant .whl/variants/$CULE_GPU_VARIANT.o"
    else
      echo "CULE_GPU_VARIANT=$CULE_GPU_VARIANT: no such variant made from these sources"; exit 2
    fi
  elif [ -f .whl/cuda_backend.o ] && [ "$want" = "$(cat .whl/cuda_backend.sha256 2>/dev/null)" ]; then
    export CULE_CUDA_OBJECT="$PWD/.whl/cuda_backend.o"
    echo "using the prebuilt CUDA object .whl/cuda_backend.o"
  else
    echo "no prebuilt object for these sources (want $want, have $(cat .whl/cuda_backend.sha256 2>/dev/null)): nvcc runs here"
  fi
  CULE_BUILD_EMU=0 CULE_CUDA=1 CULE_CUDA_ARCHS="${CULE_CUDA_ARCHS:-90}" "$PY" setup.py build_ext --inplace -j 8 \
    > /tmp/cule_build.log 2>&1
  rc=$?
  echo "build rc=$rc after $(( $(date +%s) - T0 )) s"
  [ $rc -eq 0 ] || { tail -60 /tmp/cule_build.log; exit $rc; }
  if [ -n "${CULE_GPU_VARIANT:-}" ]; then
    # setup.py leaves an up-to-date module alone: link the variant explicitly.
    bash scripts/gpu_variants.sh /tmp/cule_relink - "$CULE_GPU_VARIANT=$CULE_CUDA_OBJECT" > /dev/null 2>&1 \
      && echo "linked $CULE_CUDA_OBJECT" || { echo "could not link $CULE_CUDA_OBJECT"; exit 2; }
  fi
  "$PY" -c "import cule, torch; print(cule.build_info(), torch.cuda.get_device_name(0))"
}
# The main object and the build variants made from these sources, as NAME=OBJECT
# arguments for scripts/gpu_variants.sh, into the array VARGS (main first; main_obj is
# set).  Exits when the main object is missing or was made from other sources; with
# "need", also when the variants were.
variant_args() {
  local want; want=$(bash scripts/cuda_sources_sha.sh "${CULE_CUDA_ARCHS:-90}")
  main_obj=".whl/cuda_backend.o"
  [ -f "$main_obj" ] && [ "$want" = "$(cat .whl/cuda_backend.sha256 2>/dev/null)" ] \
    || { echo "no main object for these sources (want $want)"; exit 1; }
  VARGS=("main=$main_obj")
  if [ "$want" = "$(cat .whl/variants/sources.sha256 2>/dev/null)" ]; then
    for o in .whl/variants/*.o; do [ -f "$o" ] && VARGS+=("$(basename "$o" .o)=$o"); done
  elif [ "${1:-}" = need ]; then
    echo "the objects in .whl/variants were made from other sources (want $want): run scripts/build_cuda_variants.sh"
    exit 1
  else
    echo "the objects in .whl/variants were made from other sources: timing the main object only"
  fi
}
build_and_test() {
  build
  echo "== CUDA tests (API, errors, snapshots, vector env)"
  timeout "$(limit "${GPU_QUICK_LIMIT:-150}" $((R > 0 ? R : 100)))" "$PY" -m pytest -v -rfE --durations=0 tests/test_cuda.py -k "not every_game" \
    -p no:cacheprovider > "$OUT/cuda_quick.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || FAILED=1
  echo "quick tests rc=$rc after $(( $(date +%s) - T0 )) s"; grep -E "PASSED|FAILED|ERROR|passed|failed" "$OUT/cuda_quick.log" | tail -30
}
lockstep() {   # $1: seconds to leave for what follows (default 5)
  echo "== every game in lock step with the CPU backend"
  echo "   (CULE_LOCKSTEP_FRAMES=${CULE_LOCKSTEP_FRAMES:-5000}, CULE_LOCKSTEP_SEGMENTS=${CULE_LOCKSTEP_SEGMENTS:-25},"
  echo "    CULE_LOCKSTEP_GPU_WORKERS=${CULE_LOCKSTEP_GPU_WORKERS:-24}; a progress line every 30 s)"
  # 32 hardware queues (CUDA's default is 8): the test keeps up to 24 games' streams in
  # flight, and streams beyond the queues share one.
  CUDA_DEVICE_MAX_CONNECTIONS="${CUDA_DEVICE_MAX_CONNECTIONS:-32}" \
  timeout "$(limit 420 "${1:-5}")" "$PY" -m pytest -s -v -rfE --durations=0 tests/test_cuda.py -k "every_game" \
    -p no:cacheprovider > "$OUT/cuda_lockstep.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || FAILED=1
  echo "lockstep rc=$rc after $(( $(date +%s) - T0 )) s"; tail -8 "$OUT/cuda_lockstep.log"
}
if [ "$PHASE" = "all" ] || [ "$PHASE" = "tests" ] || [ "$PHASE" = "session" ]; then
  build_and_test
  if [ "$PHASE" = "tests" ]; then lockstep; exit $FAILED; fi
  if [ "$PHASE" = "session" ]; then lockstep 175; fi
fi

# ---- bench ----
# A fresh machine (bench, variants or steady as its first call) builds first; the build's
# time is added to the budget (at most 585 s in all, under the device tool's 600 s a call).
if [ -z "$(ls cule/_cuda.cpython-*.so 2>/dev/null)" ]; then
  build
  BUDGET=$(( BUDGET + $(date +%s) - T0 )); [ "$BUDGET" -gt 585 ] && BUDGET=585
  echo "budget now $BUDGET s"
fi
if [ "$PHASE" = "steady" ]; then
  # Random breakout episodes last about 190 steps (game over, at different steps for
  # different envs), so after the warm-up most envs have reset once and resets keep
  # coming, spread over the steps; the memos (reset_game and noop start) decide how long
  # a warp with a resetting env waits.  2,048 envs (64 warps) keep the warm-up short; the
  # ratio is per warp.  Each line carries the memos' counters.
  for memo in 1 0; do
    echo "== steady state, CULE_RESET_MEMO=$memo"
    CULE_RESET_MEMO=$memo timeout "$(limit 95 5)" "$PY" scripts/cuda_timing.py "memo$memo" \
      "vec,2048,1,4,breakout" "$OUT/cuda_timing.jsonl" 3 300 2>&1
    echo "rc=$? after $(( $(date +%s) - T0 )) s"
  done
  exit 0
fi
if [ "$PHASE" = "agent" ]; then
  # The agent's GPU target (issue 6): a mean score of 18 on pong within 2 minutes of
  # wall-clock, the CuLE paper's Pong figure, which was trained and tested without sticky
  # actions.  Its CUDA defaults (1,200 envs, 20 minibatches, --model-init cule
  # --normalize-obs) with AGENT_ARGS (default: that protocol, --sticky-actions 0
  # --eval-sticky-actions 0; a value given replaces both), training for AGENT_MINUTES
  # (default 2, the target's), then its final evaluation only (10 full episodes).
  M="${AGENT_MINUTES:-2}"
  [[ "$M" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "AGENT_MINUTES must be a number of minutes, got '$M'"; exit 2; }
  read -r -a AARGS <<< "${AGENT_ARGS---sticky-actions 0 --eval-sticky-actions 0}"
  echo "== agent: python agents/a2c_vtrace.py --max-minutes $M ${AARGS[*]} (pong, CUDA defaults otherwise)"
  rm -rf /tmp/cule_agent
  # SIGINT first (the agent then saves its checkpoint), SIGKILL 20 s later.
  timeout -s INT -k 20 "$(limit "$(awk -v m="$M" 'BEGIN { print int(m * 60) + 300 }')" 5)" \
    "$PY" agents/a2c_vtrace.py --max-minutes "$M" "${AARGS[@]}" \
    --log-dir /tmp/cule_agent --eval-interval 1000000000 --log-interval 200000 > "$OUT/agent.log" 2>&1
  rc=$?
  tr '\r' '\n' < "$OUT/agent.log" | grep -v "^ *$" | tail -5 | cut -c1-300   # (tqdm's updates end in \r)
  echo "agent rc=$rc after $(( $(date +%s) - T0 )) s"
  cp /tmp/cule_agent/progress.csv /tmp/cule_agent/learning_curve.png "$OUT/" 2>/dev/null || true
  exit 0
fi
if [ "$PHASE" = "variants" ] || [ "$PHASE" = "session" ]; then
  # Each variant object made from these sources, timed after the main build on two
  # steps: Atari emulation at 65,536 consoles after 200 warm-up acts (the consoles drift
  # apart) and the vector env (its noop starts desynchronise it at once).
  variant_args need
  args=("${VARGS[@]}")
  echo "== variants: ${args[*]}"
  WARMUP=200 timeout "$(limit 200 80)" bash scripts/gpu_variants.sh "$OUT" "atari,65536,0,1" "${args[@]}"
  echo "emulation variants rc=$? after $(( $(date +%s) - T0 )) s"
  timeout "$(limit 200 5)" bash scripts/gpu_variants.sh "$OUT" "vec,16384,1,4" "${args[@]}"
  echo "pipeline variants rc=$? after $(( $(date +%s) - T0 )) s"
  # A run cut short may leave a variant linked.
  bash scripts/gpu_variants.sh "$OUT" - "main=$main_obj" > /dev/null 2>&1 || true
  "$PY" scripts/timing_summary.py "$OUT/cuda_timing.jsonl"
  echo "== done after $(( $(date +%s) - T0 )) s$([ $FAILED -eq 0 ] || echo ', with test failures')"
  exit $FAILED
fi
if [ "$PHASE" = "pick" ]; then
  variant_args
  args=("${VARGS[@]}")
  echo "== pick: ${args[*]}"
  VARIANT_LIMIT=60 timeout "$(limit 260 230)" bash scripts/gpu_variants.sh "$OUT" "atari,65536,0,1;vec,65536,1,4" "${args[@]}" 2>&1 \
    | grep -v "UserWarning\|_warn_once" | cut -c1-400
  echo "variants rc=${PIPESTATUS[0]} after $(( $(date +%s) - T0 )) s"
  names=""; for a in "${args[@]}"; do names="$names ${a%%=*}"; done
  best=$("$PY" scripts/pick_variant.py "$OUT/cuda_timing.jsonl" $names)
  [ -n "$best" ] || best=main
  obj="$main_obj"; [ "$best" = main ] || obj=".whl/variants/$best.o"
  echo "$best" > "$OUT/chosen.txt"
  echo "== chosen: $best ($obj), linked for what follows"
  bash scripts/gpu_variants.sh "$OUT" - "$best=$obj" > /dev/null 2>&1 || echo "could not link $obj"
fi
echo "== benchmark (pong: emulation = cule.Atari render=False frameskip 1; pipeline = the vector env;"
echo "   ale-vector at 256 envs as the same-run reference: 16 threads are busy with that many,"
echo "   and making and resetting 1,024 of them took 100 s on a 2-core machine)"
timeout -k 30 "$(limit 200 $([ "$PHASE" = bench ] && echo 150 || echo 100))" "$PY" -m cule.benchmark --backends ale-vector cule-cuda --games pong \
  --num-envs 256 16384 65536 $([ "$PHASE" = pick ] && echo 131072) --modes emulation pipeline --warmup 0.5 --window 1 --windows 2 \
  --out-dir "$OUT" 2>&1
echo "benchmark rc=$? after $(( $(date +%s) - T0 )) s"
if [ "$PHASE" = "bench" ]; then
  echo "== step timings (scripts/cuda_timing.py: a synchronisation after every step)"
  # The vec items carry each kernel's time per step (kernel_ms).  The noop_max=1 item
  # starts every env without noops (FIRE only), so its consoles start as alike as
  # cule.Atari's: beside atari,65536,1,4 and vec,65536,1,4 it tells whether the noop
  # starts' spread (consoles up to 29 frames apart) is what slows k_vec_step.
  timeout "$(limit 150 100)" "$PY" scripts/cuda_timing.py main \
    "atari,32,0,1;atari,65536,0,1;atari,131072,0,1;atari,16384,1,4;vec,16384,1,4;atari,65536,1,4;vec,65536,1,4;vec,65536,1,4,pong,,noop_max=1;vec,131072,1,4" \
    "$OUT/cuda_timing.jsonl" 2>&1
  # The prebuilt variants (scripts/build_cuda_variants.sh) against the lines above, when
  # they and the main object were made from these sources, in this order while time
  # lasts: table (-DCULE_DEVICE_OPCODE_SWITCH=0: the table-driven 6507 step, the default
  # until 2026-12-04), opsw48 (-DCULE_DEVICE_OPCODE_SWITCH=2: per-opcode copies of the 48
  # most frequent opcodes only, cpu6507.hpp), nohigh (-DCULE_DEVICE_CPU_HIGH=0: without
  # ALE's cpu="high" core); about 35 s each.  The main object is relinked afterwards.
  want=$(bash scripts/cuda_sources_sha.sh "${CULE_CUDA_ARCHS:-90}")
  vargs=()
  for v in table opsw48 nohigh; do [ -f ".whl/variants/$v.o" ] && vargs+=("$v=.whl/variants/$v.o"); done
  if [ ${#vargs[@]} -gt 0 ] && [ "$want" = "$(cat .whl/variants/sources.sha256 2>/dev/null)" ] \
     && [ "$want" = "$(cat .whl/cuda_backend.sha256 2>/dev/null)" ]; then
    if [ "$(left)" -gt 160 ]; then
      echo "== variants ${vargs[*]} (step timings as above)"
      timeout "$(limit 110 120)" bash scripts/gpu_variants.sh "$OUT" "atari,65536,0,1;vec,65536,1,4" "${vargs[@]}" 2>&1
      echo "variants rc=$? after $(( $(date +%s) - T0 )) s"
      bash scripts/gpu_variants.sh "$OUT" - "main=.whl/cuda_backend.o" > /dev/null 2>&1 \
        || echo "could not relink the main object"
    else
      echo "== variants skipped: $(left) s left, the profiles need the rest"
    fi
  elif [ ${#vargs[@]} -gt 0 ]; then
    echo "== variants skipped: .whl/variants or .whl/cuda_backend.o were made from other sources (want $want)"
  fi
fi
"$PY" - "$OUT" <<'PYEOF'
import json, sys, torch, cule
out = sys.argv[1]
summary = {"build": cule.build_info(), "gpu": torch.cuda.get_device_name(0)}
try:
    summary["chosen_variant"] = open(f"{out}/chosen.txt").read().strip()
except OSError:
    pass
try:
    # Device memory per env (console state, two frame buffers), from two batch sizes, and
    # what a batch holds once (ROM, palette, the reset_game memo; a vector env's batch
    # also the noop-start memo's 48.7 MB); the largest batch the free memory holds.
    e = cule.Atari("pong", 4096, device="cuda", render=False)
    e2 = cule.Atari("pong", 8192, device="cuda", render=False)
    b1, b2 = e._cuda.batch.device_bytes, e2._cuda.batch.device_bytes
    per_env = (b2 - b1) / 4096
    fixed = b1 - 4096 * per_env
    del e2
    free, total = torch.cuda.mem_get_info()
    v = cule.AtariVectorEnv("pong", 4096, device="cuda")
    summary["device_bytes_per_env"] = per_env
    summary["device_bytes_per_batch"] = fixed
    summary["vector_env_bytes_per_env"] = v._vec.device_bytes / 4096 + per_env
    summary["largest_batch_estimate"] = int((free - fixed) // per_env)
    summary["gpu_memory_free_total"] = [free, total]
    del e, v
except Exception as ex:  # noqa: BLE001
    summary["memory_error"] = repr(ex)
try:
    # The CUDA backend against the CPU backend, byte for byte, on small batches: loading
    # (the power-on state copies, reset_game) of games with the auto-detection frames,
    # paddles, the DPC and E0 carts and a PAL screen, 30 random acts, the screens, a
    # snapshot restored, and three vector-env configurations stepped
    # (scripts/gpu_quick_parity.py; the tests phase checks far more).
    sys.path.insert(0, "scripts")
    from gpu_quick_parity import quick_parity
    same = quick_parity(emulate=False)
    summary["load_matches_cpu"] = same
    print("load matches the CPU backend:", same)
except Exception as ex:  # noqa: BLE001
    summary["load_check_error"] = repr(ex)
try:
    summary["benchmark"] = json.load(open(f"{out}/benchmark.json"))
except Exception as ex:  # noqa: BLE001
    summary["benchmark_error"] = repr(ex)
json.dump(summary, open(f"{out}/gpu_check.json", "w"), indent=2)
print("wrote", f"{out}/gpu_check.json")
PYEOF
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if { [ "$PHASE" = "bench" ] || { [ "$PHASE" = "pick" ] && [ "$(left)" -gt 150 ]; }; } && [ -n "$NCU" ] && [ "$(left)" -gt 60 ]; then
  echo "== ncu: k_vec_step, pong vector env defaults, 16384 envs (full set; per-instruction page gzipped)"
  rm -f /tmp/ncu_k_vec_step.ncu-rep
  timeout "$(limit 120 45)" "$NCU" --clock-control none --set full --import-source yes --kernel-name k_vec_step \
    --launch-skip 3 --launch-count 1 -f -o /tmp/ncu_k_vec_step "$PY" -c "
import torch, cule
e = cule.AtariVectorEnv('pong', 16384, device='cuda')
e.reset(seed=1)
g = torch.Generator(device='cuda').manual_seed(0)
for _ in range(5):
    e.step(torch.randint(int(e.single_action_space.n), (16384,), device='cuda', generator=g))
torch.cuda.synchronize()
" > /tmp/ncu_k_vec_step.log 2>&1
  echo "ncu rc=$?"; tail -3 /tmp/ncu_k_vec_step.log
  "$NCU" -i /tmp/ncu_k_vec_step.ncu-rep --page details > "$OUT/ncu_k_vec_step.txt" 2>&1
  "$NCU" -i /tmp/ncu_k_vec_step.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > "$OUT/ncu_k_vec_step_sass.csv.gz"
  grep -E "Duration|Threads Per Warp|Warp Cycles Per Issued|Achieved Occ|Registers Per" "$OUT/ncu_k_vec_step.txt" | head
fi
if [ "$PHASE" = "bench" ] && [ -n "$NCU" ] && [ "$(left)" -gt 40 ]; then
  echo "== ncu: k_act, pong, 16384 consoles, frameskip 1, render=False"
  # Divergence (threads per warp instruction), occupancy, stall reasons, memory.
  timeout "$(limit 120 5)" "$NCU" --clock-control none --kernel-name k_act --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats \
    --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum \
    "$PY" -c "
import torch, cule
e = cule.Atari('pong', 16384, device='cuda', frameskip=1, render=False)
g = torch.Generator().manual_seed(0)
for _ in range(6):
    e.act(e.action_set[torch.randint(len(e.action_set), (16384,), generator=g)].cuda())
e.synchronize()
" > "$OUT/ncu_k_act.txt" 2>&1
  echo "ncu rc=$?"; grep -E "Threads|Branch|Hit Rate|Occupancy|Registers|Duration|Issued|No Eligible|Stall" "$OUT/ncu_k_act.txt" | head -40
fi
# The device tool brings back 8 files: the plot is the one left out.
[ "$PHASE" = "bench" ] || [ "$PHASE" = "pick" ] && rm -f "$OUT/benchmark.png"
if [ "$PHASE" = "bench" ]; then
  echo "== step timings, summary"
  "$PY" scripts/timing_summary.py "$OUT/cuda_timing.jsonl"
fi
[ "$PHASE" = "all" ] && lockstep
echo "== done after $(( $(date +%s) - T0 )) s$([ $FAILED -eq 0 ] || echo ', with test failures')"
exit $FAILED
