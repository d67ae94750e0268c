"""Throughput benchmark: cule against ale-py and Gymnasium, side by side.

Measures frames/s (a frame is one emulated Atari frame) for each backend, game,
number of envs and mode, all in one run on this machine, and prints the speed-up of
every cule backend over every reference backend from that same run.

Backends (each where available):
  cule-cuda    cule.Atari / cule.AtariVectorEnv on the GPU
  cule-cpu     the same on CPU threads
  ale-vector   ale_py.vector_env.AtariVectorEnv (ALE's C++ vector env)
  gym-async    gymnasium.vector.AsyncVectorEnv over ale_py AtariEnv
  ale-single   a plain single ale_py.ALEInterface loop (1 env)
Modes:
  emulation    frameskip 1, no observation (cule draws no pixels; ALE backends still
               render: they always do)
  pipeline     the full Atari pipeline with ale_py AtariVectorEnv's defaults
               (frameskip 4, max-pool, 84x84 grayscale, stack 4, noop starts)
  inference    pipeline plus a Nature-CNN forward pass per step (optional)

    python -m cule.benchmark --quick                # < 2 minutes on a 2-core machine
    python -m cule.benchmark --games pong breakout --backends cule-cpu ale-vector
Outputs: a table on stdout; benchmark.csv, benchmark.json (with machine facts) and
benchmark.png (frames/s against envs, log-log, one line per backend) in --out-dir.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import threading
import time

import numpy as np

BACKENDS = ["cule-cuda", "cule-cpu", "ale-vector", "gym-async", "ale-single"]
REFERENCES = ["ale-vector", "gym-async", "ale-single"]
MODES = ["emulation", "pipeline", "inference"]
DEFAULT_GAMES = ["pong", "breakout", "space_invaders", "ms_pacman"]
DEFAULT_ENVS = [1, 16, 64, 256, 1024, 4096, 16384, 65536]

# Largest batch each backend is measured at; beyond it CPU backends only queue work.
MAX_ENVS = {"cule-cuda": 1 << 20, "cule-cpu": 4096, "ale-vector": 1024, "gym-async": 16, "ale-single": 1}


def _camel(game):
    return "".join(w.capitalize() for w in game.split("_"))


# ---------------------------------------------------------------------------
# Runners: each builds the backend and returns a step(n) function that advances
# every env n agent steps, plus frames per agent step per env.  step(n) returns the
# frames emulated where the runner counts them, else None (n x frames per step x envs).
# ---------------------------------------------------------------------------

class Unavailable(Exception):
    pass


def _nature_cnn(n_actions, device):
    import torch
    from torch import nn
    net = nn.Sequential(
        nn.Conv2d(4, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(),
        nn.Conv2d(64, 64, 3, 1), nn.ReLU(), nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(),
        nn.Linear(512, n_actions)).to(device)
    net.eval()
    return net


# Emulation mode: finished episodes of cule.Atari are reset after every this many act
# calls (calls on a finished console emulate nothing and are not counted as frames).
DONE_CHECK_EVERY = 64


def make_runner(backend, game, num_envs, mode, threads, seed):
    import torch
    infer = mode == "inference"
    if backend in ("cule-cpu", "cule-cuda"):
        import cule
        device = "cuda" if backend == "cule-cuda" else "cpu"
        if device == "cuda" and not (cule.build_info()["cuda"] and torch.cuda.is_available()):
            from cule.atari import _no_cuda_reason
            raise Unavailable(_no_cuda_reason())
        if mode == "emulation":
            # No observation: frames are emulated (collisions included) but not drawn.
            emu = cule.Atari(game, num_envs, device=device, frameskip=1, repeat_action_probability=0.25,
                             seed=seed, num_threads=threads, render=False)
            # Random actions drawn where the emulator runs (on a GPU as a policy's would
            # be: no host-to-device copy in the step).
            acts = emu.action_set.to(device)
            gen = torch.Generator(device=device).manual_seed(seed)
            emu.reset()
            calls = [0]

            def step(n):
                # ALE emulates nothing for a console whose game is over (act returns 0
                # at once).  So the frames counted are those the consoles' frame
                # counters advanced by (one read per call of step), and finished
                # episodes are reset every DONE_CHECK_EVERY calls, not on every call,
                # so that a GPU step makes no host synchronisation.
                before = int(emu.frame_number.sum())
                for _ in range(n):
                    emu.act(acts[torch.randint(len(acts), (num_envs,), generator=gen, device=device)])
                    calls[0] += 1
                    if calls[0] % DONE_CHECK_EVERY == 0:
                        done = (emu.terminated | emu.truncated).nonzero().flatten()
                        if len(done):
                            emu.reset(done)
                if device == "cuda":
                    torch.cuda.synchronize()
                return int(emu.frame_number.sum()) - before
            return step, 1, None
        if not hasattr(cule, "AtariVectorEnv"):
            raise Unavailable("cule.AtariVectorEnv is not available in this build")
        env = cule.AtariVectorEnv(game, num_envs, device=device, num_threads=threads)
        return _vector_runner(env, num_envs, device, infer, seed, torch_outputs=True)
    if backend == "ale-vector":
        from ale_py.vector_env import AtariVectorEnv
        if mode == "emulation":
            env = AtariVectorEnv(game, num_envs, num_threads=threads, frameskip=1, stack_num=1, maxpool=False,
                                 noop_max=0, use_fire_reset=False, repeat_action_probability=0.25)
            return _vector_runner(env, num_envs, "cpu", False, seed, frames_per_step=1)
        env = AtariVectorEnv(game, num_envs, num_threads=threads)
        return _vector_runner(env, num_envs, "cpu", infer, seed)
    if backend == "gym-async":
        import functools
        import gymnasium as gym
        env_id = f"ALE/{_camel(game)}-v5"
        # Workers are started with "spawn": forking a process that already runs
        # thread pools (ALE's, cule's, PyTorch's) is unsafe.
        fn = functools.partial(_make_gym_env, env_id, mode != "emulation")
        env = gym.vector.AsyncVectorEnv([fn] * num_envs, context="spawn")
        if mode == "emulation":
            return _vector_runner(env, num_envs, "cpu", False, seed, frames_per_step=1)
        return _vector_runner(env, num_envs, "cpu", infer, seed)
    if backend == "ale-single":
        if num_envs != 1:
            raise Unavailable("ale-single runs one env")
        if mode != "emulation":
            raise Unavailable("ale-single is measured in emulation mode only")
        from ale_py import ALEInterface, LoggerMode, roms
        ALEInterface.setLoggerMode(LoggerMode.Error)
        ale = ALEInterface()
        ale.setInt("random_seed", seed)
        ale.setFloat("repeat_action_probability", 0.25)
        ale.loadROM(roms.get_rom_path(game))
        acts = list(ale.getMinimalActionSet())
        rng = np.random.default_rng(seed)

        def step(n):
            for a in rng.integers(0, len(acts), size=n):
                ale.act(acts[a])
                if ale.game_over():
                    ale.reset_game()
        return step, 1, None
    raise Unavailable(f"unknown backend {backend}")


def _make_gym_env(env_id, pipeline):
    """One Gymnasium env for the gym-async backend (top level so workers can unpickle it)."""
    import ale_py
    import gymnasium as gym
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)   # no banner from the workers
    gym.register_envs(ale_py)
    if not pipeline:
        return gym.make(env_id, frameskip=1, obs_type="ram")
    e = gym.make(env_id, frameskip=1, repeat_action_probability=0.0)
    e = gym.wrappers.AtariPreprocessing(e, noop_max=30, frame_skip=4, screen_size=84, grayscale_obs=True)
    return gym.wrappers.FrameStackObservation(e, 4)


def _vector_runner(env, num_envs, device, infer, seed, torch_outputs=False, frames_per_step=4):
    import torch
    env.reset(seed=seed)
    n_actions = int(env.single_action_space.n)
    rng = np.random.default_rng(seed)
    # cule's torch-output envs get random actions drawn on their device (no copy).
    gen = torch.Generator(device=device).manual_seed(seed) if torch_outputs else None
    net = _nature_cnn(n_actions, device) if infer else None

    def step(n):
        for _ in range(n):
            if net is not None:
                obs = step.obs
                x = torch.as_tensor(obs, device=device).float().div_(255)
                with torch.no_grad():
                    actions = net(x).argmax(1)
                actions = actions if torch_outputs else actions.cpu().numpy()
            elif torch_outputs:
                actions = torch.randint(n_actions, (num_envs,), generator=gen, device=device)
            else:
                actions = rng.integers(0, n_actions, size=num_envs)
            step.obs = env.step(actions)[0]
        if device == "cuda":
            torch.cuda.synchronize()
    step.obs = env.reset(seed=seed)[0]
    return step, frames_per_step, env


# ---------------------------------------------------------------------------

def measure(step, frames_per_step, num_envs, warmup_s, window_s, windows):
    """Median and spread of frames/s over `windows` timed windows after a warm-up."""
    n = 1
    t0 = time.perf_counter()
    step(1)
    while time.perf_counter() - t0 < warmup_s:
        step(n)
        n = min(n * 2, 64)
    # Calibrate the steps per window from the warm-up speed.
    t1 = time.perf_counter()
    step(n)
    per_step = max((time.perf_counter() - t1) / n, 1e-7)
    steps = max(1, int(window_s / per_step))
    rates = []
    for _ in range(windows):
        t = time.perf_counter()
        frames = step(steps)   # frames emulated, where the runner counts them
        if frames is None:
            frames = steps * frames_per_step * num_envs
        rates.append(frames / (time.perf_counter() - t))
    return statistics.median(rates), min(rates), max(rates)


def machine_info():
    info = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "cpu_model": platform.processor(),
    }
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for mod in ("cule", "ale_py", "gymnasium", "torch", "numpy"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - a missing library is just not listed
            pass
    info["versions"] = versions
    try:
        import torch
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
            info["cuda"] = torch.version.cuda
            info["driver"] = _nvidia_driver()
    except Exception:  # noqa: BLE001
        pass
    return info


def _nvidia_driver():
    try:
        import subprocess
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    except Exception:  # noqa: BLE001
        return None


def ratios(rows):
    """Speed-up of each cule backend over each reference, per game and mode, from
    the best (peak over env counts) median frames/s each reached in this run."""
    best = {}
    for r in rows:
        if r.get("fps") is None:
            continue
        key = (r["game"], r["mode"], r["backend"])
        best[key] = max(best.get(key, 0.0), r["fps"])
    out = []
    for (game, mode, backend), fps in sorted(best.items()):
        if not backend.startswith("cule"):
            continue
        for ref in REFERENCES:
            ref_fps = best.get((game, mode, ref))
            if ref_fps:
                out.append({"game": game, "mode": mode, "backend": backend, "reference": ref,
                            "cule_fps": fps, "reference_fps": ref_fps, "speedup": fps / ref_fps})
    return out


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = sorted({(r["game"], r["mode"]) for r in rows if r.get("fps")})
    if not panels:
        panels = [("none", "none")]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (game, mode) in zip(axes[0], panels):
        for backend in BACKENDS:
            pts = sorted((r["num_envs"], r["fps"]) for r in rows
                         if r["game"] == game and r["mode"] == mode and r["backend"] == backend and r.get("fps"))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=backend)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("envs")
        ax.set_ylabel("frames/s")
        ax.set_title(f"{game} ({mode})")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv=None, prog="python -m cule.benchmark"):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", nargs="+", default=BACKENDS, help="backends to measure (default: all available)")
    ap.add_argument("--games", nargs="+", default=None,
                    help=f"ALE game ids or ROM paths (default: {' '.join(DEFAULT_GAMES)}; --quick: pong)")
    ap.add_argument("--num-envs", nargs="+", type=int, default=None,
                    help=f"env counts to sweep (default: {' '.join(map(str, DEFAULT_ENVS))}; --quick: 1 16 64)")
    ap.add_argument("--modes", nargs="+", default=["emulation", "pipeline"], help=f"from {MODES}")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="CPU threads for CPU backends")
    ap.add_argument("--warmup", type=float, default=None,
                    help="warm-up seconds per measurement (default: 1.0; --quick: 0.2)")
    ap.add_argument("--window", type=float, default=None, help="seconds per timed window (default: 1.0; --quick: 0.4)")
    ap.add_argument("--windows", type=int, default=None, help="timed windows per measurement (default: 3)")
    ap.add_argument("--seed", type=int, default=0, help="env i of a batch is seeded seed + i (default: 0)")
    ap.add_argument("--out-dir", default="benchmark_results",
                    help="folder for benchmark.csv / .json / .png (default: benchmark_results)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke preset: pong, envs 1/16/64 (gym-async: 1 only, as it is "
                         "capped at 2 envs), short windows (< 2 minutes on 2 cores); options given "
                         "explicitly are kept")
    args = ap.parse_args(argv)
    # The defaults, or --quick's for the options not given.
    for name, normal, quick in (("games", DEFAULT_GAMES, ["pong"]), ("num_envs", DEFAULT_ENVS, [1, 16, 64]),
                                ("warmup", 1.0, 0.2), ("window", 1.0, 0.4), ("windows", 3, 3)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else normal)
    if args.quick:
        args.quick_max_envs = {"gym-async": 2}
    for b in args.backends:
        if b not in BACKENDS:
            ap.error(f"unknown backend {b!r}; choose from {', '.join(BACKENDS)}")
    for m in args.modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}; choose from {', '.join(MODES)}")
    import cule
    games = []
    for g in args.games:
        try:
            games.append(cule.load_rom(g).game)   # the ALE id every backend takes ("Pong", a path: "pong")
        except ValueError as e:
            ap.error(f"game {g!r}: {e}")
    args.games = games
    if any(n < 1 for n in args.num_envs):
        ap.error("--num-envs values must be >= 1")
    if args.windows < 1 or args.warmup < 0 or args.window <= 0 or args.threads < 1:
        ap.error("--windows >= 1, --warmup >= 0, --window > 0 and --threads >= 1 are required")
    top = 2**31 - max(args.num_envs)   # ALE's random_seed is an int32; env i gets seed + i
    if not 0 <= args.seed <= top:
        ap.error(f"--seed must be in [0, {top}] (env i is seeded seed + i, an int32), got {args.seed}")
    try:
        _check_out_dir(args.out_dir)
    except OSError as e:
        ap.error(f"--out-dir {args.out_dir!r} cannot be written: {e.strerror or e}")
    return args


def _check_out_dir(path):
    """OSError unless ``path`` is (or can be made as) a folder this process can write
    files in; makes and removes what it tries, so a bad --out-dir fails before the sweep."""
    made = _missing_folders(path)
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    finally:
        _remove_folders(made)


def _missing_folders(path):
    """The folders ``os.makedirs(path)`` would make, innermost first."""
    made = []
    d = os.path.abspath(path)
    while d and not os.path.exists(d):
        made.append(d)
        d = os.path.dirname(d)
    return made


def _remove_folders(made):
    """Removes folders ``_missing_folders`` listed, innermost first, down to the first
    one something else wrote into (which stays, with those above it)."""
    for d in made:
        try:
            os.rmdir(d)
        except OSError:
            break


class _Stopped(BaseException):
    """Raised by the SIGTERM handler (a BaseException, so no backend's error handling
    swallows it)."""


def _stop(signum, frame):
    raise _Stopped()


def _sweep(args, rows):
    """Measures every (game, mode, backend, envs) cell, appending one row per cell."""
    for game in args.games:
        for mode in args.modes:
            for backend in args.backends:
                for n in args.num_envs:
                    if n > MAX_ENVS[backend] or n > getattr(args, "quick_max_envs", {}).get(backend, n):
                        continue
                    row = {"game": game, "mode": mode, "backend": backend, "num_envs": n}
                    env = None
                    # Each row is kept as soon as its cell is decided, before it is printed
                    # and the env closed, so a SIGTERM in between loses nothing measured.
                    try:
                        step, fps_frames, env = make_runner(backend, game, n, mode, args.threads, args.seed)
                        med, lo, hi = measure(step, fps_frames, n, args.warmup, args.window, args.windows)
                        row.update(fps=med, fps_min=lo, fps_max=hi)
                        rows.append(row)
                        print(f"{game:<15} {mode:<10} {backend:<11} {n:>6} {med:>12,.0f} {lo:>10,.0f} - {hi:<10,.0f}")
                    except Unavailable as e:
                        row.update(fps=None, skipped=str(e))
                        rows.append(row)
                    except ImportError as e:
                        row.update(fps=None, skipped=f"not installed: {e}")
                        rows.append(row)
                    except Exception as e:  # noqa: BLE001 - one failing backend must not stop the sweep
                        row.update(fps=None, skipped=f"failed: {e!r}")
                        rows.append(row)
                        print(f"{game:<15} {mode:<10} {backend:<11} {n:>6} {'failed':>12}  {e!r}")
                    finally:
                        if env is not None and hasattr(env, "close"):
                            _close(env)


def _close(env):
    """Closes a runner's env.  A stop (SIGTERM / Ctrl-C to the process group) may have
    killed an AsyncVectorEnv's workers already: its close then fails (EOFError, a broken
    pipe), and that error must not replace the stop, so the workers are terminated instead."""
    try:
        env.close()
    except Exception:  # noqa: BLE001
        try:
            env.close(terminate=True)
        except Exception:  # noqa: BLE001
            pass


def main(argv=None, prog="python -m cule.benchmark"):
    """Runs the sweep and writes benchmark.csv/.json/.png to --out-dir (created if
    needed; a folder this call created is removed again when nothing was measured).
    ``prog`` is the program name --help and the usage errors show."""
    args = parse_args(argv, prog)
    try:  # keep ALE's banner out of the results table
        from ale_py import ALEInterface, LoggerMode
        ALEInterface.setLoggerMode(LoggerMode.Error)
    except ImportError:
        pass
    # Made before the sweep, so a folder that cannot be made fails before minutes of
    # measuring; the folders this call made are noted, to be removed if nothing is written.
    made = _missing_folders(args.out_dir)
    os.makedirs(args.out_dir, exist_ok=True)
    rows = []
    print(f"{'game':<15} {'mode':<10} {'backend':<11} {'envs':>6} {'frames/s':>12} {'spread (min-max)':>22}")
    # SIGTERM (e.g. `timeout`) or Ctrl-C ends the sweep early; what was measured is
    # still reported and written.
    previous = signal.signal(signal.SIGTERM, _stop) if threading.current_thread() is threading.main_thread() else None
    stopped = False
    try:
        _sweep(args, rows)
    except (_Stopped, KeyboardInterrupt) as e:
        # the exit status a shell gives a process the signal killed (143 / 130), so
        # that `python -m cule.benchmark ... && next` does not go on after a stop
        stopped = 128 + (signal.SIGTERM if isinstance(e, _Stopped) else signal.SIGINT)
        print("\nstopped early: reporting what was measured so far")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    speedups = ratios(rows)
    if speedups:
        print("\nspeed-up (peak frames/s over env counts, this run):")
        for s in speedups:
            print(f"  {s['game']:<15} {s['mode']:<10} {s['backend']:<10} vs {s['reference']:<11} "
                  f"{s['speedup']:8.2f}x  ({s['cule_fps']:,.0f} vs {s['reference_fps']:,.0f})")
    skipped = sorted({(r["backend"], r["skipped"]) for r in rows if r.get("skipped")})
    for b, why in skipped:
        print(f"skipped {b}: {why}")
    if not any(r.get("fps") for r in rows):
        # Every backend asked for was skipped or failed (e.g. cule-cuda without a GPU), or
        # the run was stopped before its first cell: nothing is written, so earlier
        # results in --out-dir stay as they were.
        _remove_folders(made)
        if stopped:
            print(f"stopped before anything was measured; nothing was written to {args.out_dir}",
                  file=sys.stderr)
            raise SystemExit(stopped)
        raise SystemExit("nothing was measured: every backend asked for was skipped or failed "
                         f"(see above); nothing was written to {args.out_dir}")
    csv_path = os.path.join(args.out_dir, "benchmark.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["game", "mode", "backend", "num_envs", "fps", "fps_min", "fps_max", "skipped"])
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k) for k in w.fieldnames})
    with open(os.path.join(args.out_dir, "benchmark.json"), "w") as f:
        json.dump({"machine": machine_info(), "args": vars(args), "results": rows, "speedups": speedups,
                   "stopped_early": bool(stopped)}, f, indent=2)
    plot(rows, os.path.join(args.out_dir, "benchmark.png"))
    print(f"\nwrote benchmark.csv, benchmark.json and benchmark.png in {args.out_dir}")
    if stopped:   # written, but the sweep is incomplete: exit as the signal would
        raise SystemExit(stopped)
    return rows


if __name__ == "__main__":
    main()
