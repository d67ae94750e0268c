"""Record a video of a grid of environments of a cule.AtariVectorEnv.

Each frame of the video tiles the full-size RGB screens of all sub-environments
(``AtariVectorEnv.screens()``, uint8 [num_envs, 210, 160, 3]) after every agent step,
with random actions.  Writes an MP4 when imageio's ffmpeg plugin (imageio-ffmpeg) is
installed and the path ends in .mp4, else a GIF (imageio + Pillow).

    python examples/record_video.py --game breakout --num-envs 4 --steps 200 --out breakout.gif
"""
import argparse
import math
import os
import tempfile

import numpy as np


def tile(screens: np.ndarray, cols: int) -> np.ndarray:
    """[n, H, W, 3] -> one [rows*H, cols*W, 3] image (empty cells black)."""
    n, h, w, c = screens.shape
    rows = math.ceil(n / cols)
    grid = np.zeros((rows * h, cols * w, c), np.uint8)
    for i in range(n):
        r, q = divmod(i, cols)
        grid[r * h:(r + 1) * h, q * w:(q + 1) * w] = screens[i]
    return grid


def record(game: str, num_envs: int, steps: int, out: str, seed: int = 0, fps: int = 15) -> str:
    import imageio.v2 as imageio

    import cule

    env = cule.AtariVectorEnv(game, num_envs, device="cpu", num_threads=min(2, num_envs))
    env.reset(seed=seed)
    cols = math.ceil(math.sqrt(num_envs))
    rng = np.random.default_rng(seed)
    frames = [tile(env.screens().numpy(), cols)]
    for _ in range(steps):
        env.step(rng.integers(0, env.single_action_space.n, num_envs))
        frames.append(tile(env.screens().numpy(), cols))
    env.close()
    if out.lower().endswith(".mp4"):
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            out = out[:-4] + ".gif"
            print(f"imageio-ffmpeg is not installed: writing a GIF instead ({out}"
                  + (", which exists and is overwritten)" if os.path.exists(out) else ")")
                  + (f", at 50 frames/s instead of {fps}, a GIF's most" if fps > 50 else ""))
            fps = min(fps, 50)
    if out.lower().endswith(".mp4"):
        imageio.mimwrite(out, frames, fps=fps, macro_block_size=1)
    else:
        # GIF times frames in 10 ms steps: durations that keep the running total on time.
        ends = [round(i * 100 / fps) * 10 for i in range(len(frames) + 1)]
        imageio.mimwrite(out, frames, duration=[b - a for a, b in zip(ends, ends[1:])], loop=0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="breakout", help="ALE game id or ROM path (default: breakout)")
    ap.add_argument("--num-envs", type=int, default=4, help="envs tiled in each video frame (default 4)")
    ap.add_argument("--steps", type=int, default=200,
                    help="agent steps recorded (4 emulated frames each, the vector env's frameskip); the "
                         "video has steps + 1 frames, the reset's first (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="reset seed and random actions' seed (default 0)")
    ap.add_argument("--fps", type=int, default=15,
                    help="video frames per second (default 15; at most 50 for a GIF, whose players show "
                         "shorter frame delays as 100 ms)")
    ap.add_argument("--out", default="cule_grid.gif", help="a .gif or .mp4 file (default: cule_grid.gif)")
    args = ap.parse_args()
    for name in ("num_envs", "steps", "fps"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.fps > 50 and args.out.lower().endswith(".gif"):
        ap.error(f"--fps {args.fps}: a GIF plays at most 50 frames/s (players show frame delays under 20 ms "
                 "as 100 ms); use --fps 50 or less, or an .mp4")
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    # The output is checked before recording, not found unwritable after it.
    if os.path.isdir(args.out):
        ap.error(f"--out {args.out} is a directory: name a .gif or .mp4 file")
    if os.path.splitext(args.out)[1].lower() not in (".gif", ".mp4"):
        ap.error(f"--out {args.out}: write a .gif or an .mp4")
    parent = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(parent):
        ap.error(f"--out {args.out}: no such directory {parent}")
    try:   # a file can be made there (a read-only folder is found now, too)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        ap.error(f"--out {args.out}: cannot write in {parent}: {e.strerror or e}")
    import cule

    try:
        cule.roms.load_rom(args.game)
    except ValueError as e:   # unknown game, unreadable ROM file ...
        ap.error(str(e))
    path = record(args.game, args.num_envs, args.steps, args.out, args.seed, args.fps)
    print("wrote", path)


if __name__ == "__main__":
    main()
