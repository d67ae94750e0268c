#!/usr/bin/env bash
# Runs the CUDA backend's host emulation (cule._cuda_emu) under AddressSanitizer and
# UndefinedBehaviorSanitizer: an out-of-bounds access or misaligned load in a kernel
# or in the backend's host code (what would be an illegal-address or misaligned-
# address fault on a GPU) stops the run with a report.  No GPU needed; about 1 to 2
# minutes on 2 cores (the vector env part included).  Needs a built tree (python setup.py build_ext --inplace).
#
#   bash scripts/cuda_emu_sanitize.sh [WORKDIR]
set -euo pipefail
# PYTHON as an absolute path (a venv's python kept as it is): the run changes directory.
PY="$(command -v "${PYTHON:-python3}")"
case "$PY" in /*) ;; *) PY="$PWD/$PY" ;; esac
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="${1:-$(mktemp -d)}"
PYINC=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PBINC=$("$PY" -c "import pybind11; print(pybind11.get_include())")
EXT=$("$PY" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p "$WORK/cule"
cp "$ROOT"/cule/*.py "$WORK/cule/"
cp "$ROOT"/cule/_core*.so "$ROOT"/cule/_vector*.so "$WORK/cule/"
echo "== building the sanitized cule._cuda_emu in $WORK"
# -O0: the optimised core takes far longer to compile with the sanitizers.
g++ -std=c++17 -O0 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -fPIC -shared -I"$ROOT/csrc" -I"$PYINC" -I"$PBINC" -DCULE_CUDA_MODULE=_cuda_emu -DCULE_CUDA_EMULATED=1 \
  "$ROOT/csrc/cuda_bindings.cpp" "$ROOT/csrc/cuda_emu.cpp" -o "$WORK/cule/_cuda_emu$EXT"
echo "== running"
cd "$WORK"
LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)" \
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 PYTHONPATH="$WORK" "$PY" - <<'PYEOF'
import torch
import cule
import cule._cuda_emu as m
assert m.__file__.startswith(cule.__path__[0]) and "/cule/" in m.__file__, m.__file__
for game, n, steps in [("pong", 33, 30), ("pitfall2", 3, 15), ("mr_do", 2, 10), ("montezuma_revenge", 2, 10),
                       ("breakout", 2, 10)]:
    cpu = cule.Atari(game, n, seed=1, frameskip=4, max_num_frames_per_episode=40)
    emu = cule.Atari(game, n, seed=1, frameskip=4, max_num_frames_per_episode=40, _emulate_cuda=True)
    g = torch.Generator().manual_seed(0)
    for t in range(steps):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=g)]
        assert torch.equal(cpu.act(a), emu.act(a))
        assert torch.equal(cpu.ram, emu.ram)
        for k in ("lives", "terminated", "truncated", "episode_frame_number", "frame_number"):
            assert torch.equal(getattr(cpu, k), getattr(emu, k))
        done = (cpu.terminated | cpu.truncated).nonzero().flatten()
        if len(done):
            cpu.reset(done)
            emu.reset(done)
    assert torch.equal(cpu.screen_rgb(), emu.screen_rgb())
    assert torch.equal(cpu.screen_grayscale(), emu.screen_grayscale())
    ids = list(range(n))[::-1]
    s = emu.clone_state(ids)
    assert torch.equal(s["consoles"], cpu.clone_state(ids)["consoles"])
    emu.restore_state(s)
    emu.restore_state(cpu.clone_state())
    emu.reload(5, env_ids=[0])
    print(game, "ok", flush=True)
# The vector env kernels (csrc/cuda_vector_env.cuh): resize paths, RGB, SAME_STEP, 33 envs,
# resets with noop starts.
import numpy as np
for game, n, steps, kw in [("breakout", 33, 6, {}), ("pong", 3, 6, {"img_height": 80, "img_width": 70}),
                           ("pong", 2, 6, {"grayscale": False, "img_height": 105, "img_width": 80}),
                           ("breakout", 3, 40, {"autoreset_mode": "SameStep", "episodic_life": True,
                                                "stale_frame_on_early_stop": False, "frameskip": 2}),
                           # short episodes: resets through both memos (noop-start nodes recorded, then used)
                           ("tennis", 8, 120, {"max_num_frames_per_episode": 200, "repeat_action_probability": 0.25})]:
    cpu = cule.AtariVectorEnv(game, n, **kw)
    emu = cule.AtariVectorEnv(game, n, _emulate_cuda=True, **kw)
    assert torch.equal(cpu.reset(seed=4)[0], emu.reset(seed=4)[0])
    rng = np.random.default_rng(0)
    for t in range(steps):
        a = rng.integers(0, cpu.single_action_space.n, n)
        x, y = cpu.step(a), emu.step(a)
        for u, v in zip(x[:4], y[:4]):
            assert torch.equal(u, v), (game, t)
    print("vector env", game, kw, "ok", flush=True)
print("sanitized emulation run: clean")
PYEOF
