r"""Emulator throughput: one thread of cule.Atari against an ale-py ALEInterface loop.

Both run the same game at frameskip 1 with the screen rendered every frame (ALE
always renders; cule's core draws every frame the same way), random actions from the
minimal set and sticky actions at 0.25.  Prints frames/s of each and their ratio,
measured side by side in this run.

    python examples/benchmark_emulator.py --game pong --frames 20000
    python examples/benchmark_emulator.py --game pong breakout space_invaders seaquest \
        ms_pacman montezuma_revenge pitfall2          # a spread of games, one table
"""
import argparse
import time

import numpy as np
import torch

import cule


def bench_cule(game, frames, num_envs, threads, seed):
    emu = cule.Atari(game, num_envs, seed=seed, num_threads=threads)
    rng = np.random.default_rng(seed)
    acts = emu.action_set.numpy()
    steps = max(1, frames // num_envs)
    batch = [torch.from_numpy(rng.choice(acts, size=num_envs)) for _ in range(256)]
    emu.act(batch[0])
    t0 = time.perf_counter()
    for i in range(steps):
        emu.act(batch[i % 256])
        if i % 64 == 63:
            done = (emu.terminated | emu.truncated).nonzero().flatten()
            if len(done):
                emu.reset(done)
    dt = time.perf_counter() - t0
    return steps * num_envs / dt


def bench_ale(game, frames, seed):
    from ale_py import ALEInterface, LoggerMode, roms
    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setInt("random_seed", seed)
    ale.setFloat("repeat_action_probability", 0.25)
    ale.loadROM(roms.get_rom_path(game))
    acts = list(ale.getMinimalActionSet())
    rng = np.random.default_rng(seed)
    seq = [acts[i] for i in rng.integers(0, len(acts), size=4096)]
    t0 = time.perf_counter()
    for i in range(frames):
        ale.act(seq[i % 4096])
        if ale.game_over():
            ale.reset_game()
    dt = time.perf_counter() - t0
    return frames / dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", nargs="+", default=["pong"], help="ALE game id(s) (default: pong)")
    ap.add_argument("--frames", type=int, default=20000, help="frames per measurement (default 20000)")
    ap.add_argument("--envs", type=int, default=16, help="consoles in the cule batch (default 16)")
    ap.add_argument("--repeats", type=int, default=3, help="measurements each; the median is reported (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="ALE random_seed; cule's env i gets seed + i (default 0)")
    args = ap.parse_args()
    if args.frames < 1 or args.envs < 1 or args.repeats < 1:
        ap.error("--frames, --envs and --repeats must be >= 1")
    if not 0 <= args.seed <= 2**31 - args.envs:
        ap.error(f"--seed must be in [0, {2**31 - args.envs}] (env i is seeded seed + i, an int32)")
    for i, game in enumerate(args.game):
        try:
            args.game[i] = cule.load_rom(game).game   # the ALE id ale-py's ROM lookup takes ("Pong": "pong")
        except ValueError as e:
            ap.error(str(e))
    rows = []
    for game in args.game:
        # Alternate the two so load changes on a shared machine hit both alike.
        c, a = [], []
        for _ in range(args.repeats):
            c.append(bench_cule(game, args.frames, args.envs, 1, args.seed))
            a.append(bench_ale(game, args.frames, args.seed))
        c.sort()
        a.sort()
        cm, am = c[len(c) // 2], a[len(a) // 2]
        rows.append((game, cm, am))
        print(f"game: {game}   frameskip 1, screen rendered every frame, sticky actions 0.25")
        print(f"cule.Atari, 1 thread, {args.envs} envs : {cm:12,.0f} frames/s   (runs: {', '.join(f'{v:,.0f}' for v in c)})")
        print(f"ale-py ALEInterface.act loop   : {am:12,.0f} frames/s   (runs: {', '.join(f'{v:,.0f}' for v in a)})")
        print(f"ratio cule / ale-py            : {cm / am:12.2f}x")
    if len(rows) > 1:
        print(f"\n{'game':<20} {'cule (1 thread)':>16} {'ale-py':>12} {'ratio':>7}")
        for game, cm, am in rows:
            print(f"{game:<20} {cm:16,.0f} {am:12,.0f} {cm / am:6.2f}x")


if __name__ == "__main__":
    main()
