"""Random rollout: step a batch of consoles through an ALE game with random actions.

Steps ale-py's ROM (default Pong) through cule.Atari with uniformly random actions
from the minimal action set, restarts finished episodes, shows frames/s with a
progress bar (on a terminal) and writes a PNG grid of the final screens (the first
64 envs' at most).

    python examples/random_rollout.py                       # pong, 64 envs, 20,000 steps
    python examples/random_rollout.py --game breakout --envs 16 --steps 2000 --out grid.png

A step is one act() call on every console, i.e. --frameskip frames each.
"""
import argparse
import math
import os
import tempfile
import time

import numpy as np
import torch
from PIL import Image
from tqdm import tqdm

import cule


GRID_MAX = 64   # screens in the PNG grid at most (the first envs')


def screen_grid(screens: np.ndarray, cols: int) -> np.ndarray:
    """Tile uint8 screens [N, H, W, 3] into one [rows*H, cols*W, 3] image."""
    n, h, w, _ = screens.shape
    rows = math.ceil(n / cols)
    grid = np.zeros((rows * h, cols * w, 3), dtype=np.uint8)
    for i in range(n):
        r, c = divmod(i, cols)
        grid[r * h:(r + 1) * h, c * w:(c + 1) * w] = screens[i]
    return grid


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="pong", help="ALE game id or ROM path (default: pong)")
    ap.add_argument("--envs", type=int, default=64, help="number of consoles (default 64)")
    ap.add_argument("--steps", type=int, default=20000, help="act() calls (default 20000)")
    ap.add_argument("--frameskip", type=int, default=1, help="frames per step (default 1)")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="rollout_screens.png", help="PNG grid of the final screens (of the first 64 envs at most)")
    args = ap.parse_args()
    if args.envs < 1 or args.steps < 1 or args.frameskip < 1:
        ap.error("--envs, --steps and --frameskip must be >= 1")
    # The output is checked before the rollout, not found unwritable after it.
    parent = os.path.dirname(os.path.abspath(args.out))
    if os.path.isdir(args.out):
        ap.error(f"--out {args.out} is a directory: name a .png file")
    if not os.path.isdir(parent):
        ap.error(f"--out {args.out}: no such directory {parent}")
    try:   # a file can be made there (a read-only folder is found now, too)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        ap.error(f"--out {args.out}: cannot write in {parent}: {e.strerror or e}")
    if os.path.splitext(args.out)[1].lower() not in Image.registered_extensions():
        ap.error(f"--out {args.out}: Pillow cannot write that file type; use .png")
    try:
        emu = cule.Atari(args.game, args.envs, frameskip=args.frameskip, seed=args.seed,
                         num_threads=args.threads)
    except ValueError as e:
        ap.error(str(e))

    gen = torch.Generator().manual_seed(args.seed)
    actions = emu.action_set
    episodes, returns = 0, torch.zeros(args.envs, dtype=torch.int64)
    finished = []
    frames = 0
    t0 = time.perf_counter()
    bar = tqdm(range(args.steps), unit="step", desc=f"{emu.game} x{args.envs}", disable=None)   # no bar off a terminal
    for step in bar:
        a = actions[torch.randint(len(actions), (args.envs,), generator=gen)]
        returns += emu.act(a)
        frames += args.envs * args.frameskip
        done = (emu.terminated | emu.truncated).nonzero().flatten()
        if len(done):
            finished.extend(returns[done].tolist())
            returns[done] = 0
            episodes += len(done)
            emu.reset(done)
        if step % 100 == 0:
            bar.set_postfix(fps=f"{frames / (time.perf_counter() - t0):,.0f}", episodes=episodes)
    elapsed = time.perf_counter() - t0
    print(f"{frames:,} frames in {elapsed:.1f} s: {frames / elapsed:,.0f} frames/s "
          f"({args.envs} envs, {emu._batch.num_threads} threads, frameskip {args.frameskip})")
    if finished:
        print(f"{episodes} episodes finished, mean return {np.mean(finished):.1f}")
    grid = screen_grid(emu.screen_rgb()[:GRID_MAX].numpy(), cols=min(8, args.envs))
    Image.fromarray(grid).save(args.out)
    print(f"final screens written to {args.out}")


if __name__ == "__main__":
    main()
