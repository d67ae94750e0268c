"""Resets with and without the reset_game memo (csrc/ale_env.hpp), side by side in one run.

Three measurements per game, each alternating between envs built with the memo (the
default: the reset_game memo, its power-on slots and the noop-start memo) and envs built
with ``CULE_RESET_MEMO=0`` (every reset and noop start emulated in full):

* set-up: making ``cule.AtariVectorEnv`` (loadROM: power-on and ``reset_game`` of every
  env) and its first ``reset(seed=1)`` (power-on, ``reset_game`` twice, the noop starts),
  in seconds (median over the windows; the ratio is the time without over the time with);
* ``reset_game``: ``cule.Atari.reset()`` of all envs, over and over (after one reset
  has recorded the memo), in resets/s;
* vector env: ``cule.AtariVectorEnv`` (ale-py's defaults: frameskip 4, noop starts,
  84x84 grayscale, stack 4) with random actions and ``max_num_frames_per_episode``
  short enough that episodes end often, in frames/s; also how many of the FIRE / noop
  start frames the memo side took from the noop-start memo instead of emulating them.

Both sides give the same bytes (tests/test_reset_memo.py); this shows what it saves.
Runs on the CPU backend, or on a GPU with --device cuda.

    python examples/benchmark_resets.py --games pong breakout --num-envs 16 --threads 2
"""
import argparse
import os
import time

import numpy as np
import torch

import cule


def build(memo, make):
    old = os.environ.get("CULE_RESET_MEMO")
    os.environ["CULE_RESET_MEMO"] = "1" if memo else "0"
    try:
        return make()
    finally:
        if old is None:
            del os.environ["CULE_RESET_MEMO"]
        else:
            os.environ["CULE_RESET_MEMO"] = old


def memo_hits(batch):
    """Resets that took a recorded end state, over all memo slots (the running games' and
    the power-on ones: a reset takes any slot whose console matches)."""
    return sum(h for _, h in batch.reset_memo_stats() + batch.power_on_memo_stats())


def alternate(work, windows, seconds):
    """work[k]() does one unit and returns how many items it did; windows alternate
    between the two sides.  Returns items/s per side (median over windows)."""
    rates = [[], []]
    for w in range(2 * windows):
        k = w % 2
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            n += work[k]()
        rates[k].append(n / (time.perf_counter() - t0))
    return [float(np.median(r)) for r in rates]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=["pong", "breakout"],
                    help="ALE game ids or ROM paths (default: pong breakout)")
    ap.add_argument("--num-envs", type=int, default=16, help="envs in each batch (default 16)")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    ap.add_argument("--episode-frames", type=int, default=2000,
                    help="max_num_frames_per_episode of the vector env, in frames (truncation makes episodes end)")
    ap.add_argument("--windows", type=int, default=3, help="timed windows per side and measurement (default 3)")
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one window, in seconds (default 2)")
    a = ap.parse_args()
    for what, bad in (("--num-envs must be >= 1", a.num_envs < 1), ("--threads must be >= 0", a.threads < 0),
                      ("--windows must be >= 1", a.windows < 1), ("--seconds must be > 0", a.seconds <= 0),
                      ("--episode-frames must be >= 0", a.episode_frames < 0)):
        if bad:
            ap.error(what)
    for i, game in enumerate(a.games):   # every name checked before the first is measured
        try:
            a.games[i] = cule.load_rom(game).game
        except ValueError as e:
            ap.error(str(e))
    try:
        run(a)
    except ValueError as e:   # unknown game or device, no GPU, a bad CULE_RESET_MEMO ...
        ap.error(str(e).replace("device='cpu'", "--device cpu"))   # the flag, not the API's keyword


def run(a):
    n = a.num_envs
    threads = a.threads or None   # cule.Atari: None = all cores
    print(f"{'game':16s} {'measure':10s} {'memo':>14s} {'no memo':>14s} {'ratio':>7s}")
    for game in a.games:
        times = [[], []]
        for w in range(2 * a.windows):
            k = w % 2
            t0 = time.perf_counter()
            v = build(k == 0, lambda: cule.AtariVectorEnv(game, n, device=a.device, num_threads=a.threads))
            v.reset(seed=1)
            if v.device.type == "cuda":
                torch.cuda.synchronize()
            times[k].append(time.perf_counter() - t0)
            if k == 0:
                stats = v.atari._batch.power_on_memo_stats()
            v.close()
        on, off = (float(np.median(t)) for t in times)
        print(f"{game:16s} {'set-up':10s} {on:12.3f} s {off:12.3f} s {off / on:6.2f}x   "
              f"(power-on memo slots (state, hits): {stats})")
        def make_atari():
            return cule.Atari(game, n, device=a.device, num_threads=threads, seed=1)
        ats = [build(True, make_atari), build(False, make_atari)]
        for e in ats:
            e.reset()   # the memo records here (the load's reset follows a power-on)

        def resets(e):
            def one():
                e.reset()
                e.synchronize()
                return n
            return one
        on, off = alternate([resets(ats[0]), resets(ats[1])], a.windows, a.seconds)
        hits = memo_hits(ats[0]._batch)
        print(f"{game:16s} {'reset_game':10s} {on:11,.0f}/s {off:11,.0f}/s {on / off:6.2f}x   (memo hits {hits})")
        del ats

        def make_vec():
            return cule.AtariVectorEnv(game, n, device=a.device, num_threads=a.threads,
                                       max_num_frames_per_episode=a.episode_frames)
        vecs = [build(True, make_vec), build(False, make_vec)]
        gens = []
        for v in vecs:
            v.reset(seed=1)
            gens.append(torch.Generator(device=v.device).manual_seed(0))

        def steps(v, g):
            na = int(v.single_action_space.n)

            def one():
                v.step(torch.randint(na, (n,), device=v.device, generator=g))
                if v.device.type == "cuda":
                    torch.cuda.synchronize()
                return n * 4
            return one
        on, off = alternate([steps(vecs[0], gens[0]), steps(vecs[1], gens[1])], a.windows, a.seconds)
        batch = vecs[0].atari._batch
        hits = memo_hits(batch)
        taken = sum(s for s, _ in batch.start_memo_stats())
        run_ = sum(r for _, r in batch.start_memo_stats())
        share = f"{100 * taken / (taken + run_):.0f}%" if taken + run_ else "-"
        print(f"{game:16s} {'vector env':10s} {on:11,.0f}/s {off:11,.0f}/s {on / off:6.2f}x   "
              f"(frames/s; memo hits {hits}; noop-start frames from the memo {taken:,} of {taken + run_:,}, "
              f"{share})", flush=True)
        for v in vecs:
            v.close()


if __name__ == "__main__":
    main()
