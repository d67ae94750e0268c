"""CPU throughput of cule.AtariVectorEnv against ale_py.vector_env.AtariVectorEnv.

Both run the same game with the same settings (ale-py's defaults: 84x84 grayscale,
stack 4, frameskip 4, noop resets, NEXT_STEP autoreset) and the same number of
threads, on the same random actions, one after the other in this run.  Prints agent
steps/s and frames/s (frames = steps x frameskip, an upper bound with early stops)
of each and the ratio cule / ale-py.  Not a test: numbers depend on the machine.

    python examples/benchmark_vector_env.py --game pong --num-envs 16 --threads 2 --steps 300
"""
import argparse
import time

import numpy as np


def run(make, num_envs, steps, seed, warmup=20):
    env = make()
    rng = np.random.default_rng(seed)
    n = env.single_action_space.n
    actions = [rng.integers(0, n, num_envs) for _ in range(64)]
    env.reset(seed=seed)
    for i in range(warmup):
        env.step(actions[i % 64])
    t0 = time.perf_counter()
    for i in range(steps):
        env.step(actions[i % 64])
    dt = time.perf_counter() - t0
    env.close()
    return steps * num_envs / dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", nargs="+", default=["pong", "breakout"], help="ALE game id(s) (default: pong breakout)")
    ap.add_argument("--num-envs", type=int, default=16, help="envs of each vector env (default 16)")
    ap.add_argument("--threads", type=int, default=2, help="worker threads of both vector envs (0: one per core; default 2)")
    ap.add_argument("--steps", type=int, default=300, help="agent steps per env (timed; default 300)")
    ap.add_argument("--frameskip", type=int, default=4, help="frames per agent step, both envs (default 4)")
    ap.add_argument("--seed", type=int, default=0, help="reset seed of both vector envs (default 0)")
    args = ap.parse_args()
    for name in ("num_envs", "steps", "frameskip"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.threads < 0:
        ap.error("--threads must be >= 0 (0: one per core)")
    if args.seed < 0:
        ap.error("--seed must be >= 0")

    import cule
    from ale_py.vector_env import AtariVectorEnv as AleVec

    games = []
    for game in args.game:
        try:
            # ale-py takes the snake_case ALE id only; cule also "Pong", "ALE/Pong-v5" ...
            games.append(cule.roms.load_rom(game).game)
        except ValueError as e:
            ap.error(str(e))
    for game in games:
        kw = dict(num_threads=args.threads, frameskip=args.frameskip)
        ale = run(lambda: AleVec(game, args.num_envs, **kw), args.num_envs, args.steps, args.seed)
        cul = run(lambda: cule.AtariVectorEnv(game, args.num_envs, device="cpu", **kw), args.num_envs, args.steps,
                  args.seed)
        fs = args.frameskip
        print(f"{game:16s} envs={args.num_envs} threads={args.threads}  "
              f"ale-py {ale:9.0f} steps/s ({ale * fs:9.0f} frames/s)  "
              f"cule {cul:9.0f} steps/s ({cul * fs:9.0f} frames/s)  ratio {cul / ale:5.2f}x")


if __name__ == "__main__":
    main()
