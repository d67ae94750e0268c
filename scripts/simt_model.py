"""Compare lane-scheduling policies for the GPU's CPU loop on the host (no GPU needed).

Builds scripts/simt_model.cpp (g++ + pybind11) into a temporary folder, then runs 32
desynchronised consoles of each game under each policy and prints, per policy, the
rounds a warp needs per frame and what it executes in them (see the .cpp for the
policies and the metrics: cases/rd the table-driven step's distinct operation cases a
round, ops/rd the distinct opcodes, which a per-opcode switch would run in turn, hot48/rd
the partial switch's distinct paths).  Every run checks that the consoles end exactly as when run
one by one.  A model: what a round costs on a real GPU is not measured here.

    python scripts/simt_model.py [--games pong breakout] [--frames 60] [--render]
"""
import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

POLICIES = [("free", 0, 0), ("io_wait8", 1, 8), ("io_wait32", 1, 32), ("min_pc", 2, 0),
            ("min_pc_w16", 4, 16), ("min_cyc0", 3, 0), ("min_cyc2", 3, 2), ("min_cyc4", 3, 4),
            ("min_cyc8", 3, 8), ("min_cyc16", 3, 16), ("cyc4_pc", 5, 4), ("cyc16_pc", 5, 16)]

# A guess at what a round costs a warp, in GPU instructions: the shared part of a step,
# each distinct operation case, each distinct I/O instruction among the lanes calling out.
# Only for ranking policies; not measured.
COST_ROUND, COST_CASE, COST_IO = 120, 30, 200


def build(out_dir):
    try:
        import pybind11
    except ImportError:
        raise SystemExit("simt_model.py compiles a small pybind11 module: pip install pybind11")
    ext = sysconfig.get_config_var("EXT_SUFFIX")
    target = os.path.join(out_dir, "simt_model" + ext)
    cmd = ["g++", "-O2", "-std=c++17", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "csrc"),
           "-I" + pybind11.get_include(), "-I" + sysconfig.get_paths()["include"],
           os.path.join(HERE, "simt_model.cpp"), "-o", target]
    subprocess.run(cmd, check=True)
    sys.path.insert(0, out_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["pong", "breakout", "space_invaders", "ms_pacman", "seaquest"])
    ap.add_argument("--frames", type=int, default=60, help="frames per game and policy (>= 1)")
    ap.add_argument("--render", action="store_true", help="draw every frame (default: none drawn)")
    ap.add_argument("--noop-max", type=int, default=30,
                    help="each console starts after a random 0..N-1 noop frames (0: all start alike)")
    ap.add_argument("--policies", nargs="+", default=[p[0] for p in POLICIES], choices=[p[0] for p in POLICIES],
                    metavar="POLICY", help="of: " + ", ".join(p[0] for p in POLICIES))
    ap.add_argument("--build-dir", default=None, help="keep the compiled module there (default: a temporary folder)")
    a = ap.parse_args()
    if a.frames < 1:
        ap.error("--frames must be >= 1")
    if a.noop_max < 0:
        ap.error("--noop-max must be >= 0")
    from cule.roms import load_rom, native_config
    roms = {}
    for game in a.games:
        try:
            roms[game] = load_rom(game)
        except ValueError as e:
            ap.error(str(e))
    out_dir = a.build_dir or tempfile.mkdtemp(prefix="simt_")
    try:
        os.makedirs(out_dir, exist_ok=True)
        build(out_dir)
        import simt_model
        run_all(a, roms, simt_model, native_config)
    finally:
        if not a.build_dir:
            shutil.rmtree(out_dir, ignore_errors=True)


def run_all(a, roms, simt_model, native_config):
    inexact = 0
    print(f"{'game':16s} {'policy':11s} {'rounds/f':>9s} {'vs ideal':>8s} {'lanes/rd':>8s} "
          f"{'modes/rd':>8s} {'cases/rd':>8s} {'ops/rd':>7s} {'hot48/rd':>8s} {'io rd/f':>8s} {'io cases/f':>10s} "
          f"{'model':>6s} ok")
    for game in a.games:
        rom = roms[game]
        cfg = native_config(rom)
        free_cost = None
        for name, pol, par in POLICIES:
            if name not in a.policies:
                continue
            r = simt_model.run(cfg, rom.data, pol, par, frames=a.frames, render=int(a.render),
                               noop_max=a.noop_max)
            f = r["frames"]
            cost = (COST_ROUND * r["rounds"] + COST_CASE * r["cases_sum"] + COST_IO * r["io_cases_sum"]) / f
            if name == "free":
                free_cost = cost
            model = f"{cost / free_cost:6.2f}" if free_cost else "     -"
            print(f"{game:16s} {name:11s} {r['rounds'] / f:9.0f} {r['rounds'] / r['ideal_rounds']:8.2f} "
                  f"{r['lane_steps'] / r['rounds']:8.1f} {r['modes_sum'] / r['rounds']:8.2f} "
                  f"{r['cases_sum'] / r['rounds']:8.2f} {r['opcodes_sum'] / r['rounds']:7.2f} "
                  f"{r['hot_paths_sum'] / r['rounds']:8.2f} {r['io_rounds'] / f:8.0f} {r['io_cases_sum'] / f:10.0f} {model} "
                  f"{'yes' if r['mismatches'] == 0 else 'NO (%d)' % r['mismatches']}", flush=True)
            inexact += r["mismatches"]
    if inexact:
        raise SystemExit(f"{inexact} consoles ended differently from running them one by one")


if __name__ == "__main__":
    main()
