"""A short check, for a GPU session's `bench` call, that the CUDA backend still gives the
CPU backend's results, covering every kernel that has changed since the last full GPU
test run: loading and reset_game (the power-on state copies), acts, `screen_rgb` /
`screen_grayscale` (`k_screen`), `clone_state` / `restore_state` (`k_export_consoles`,
`k_import_consoles`, `k_copy_frame_buffers`), ALE's cpu="high" core in the kernels, and
the vector env's steps (`k_vec_step`, `k_vec_pool`, `k_vec_process`, `k_vec_obs`: word
and byte copies, SAME_STEP `final_obs`, asynchronous mode's steps of some envs).

It is small (64 consoles, tens of steps, about half a minute on a GPU) and prints one
line per check; `gpu_check.sh` stores the dict in `gpu_check.json` as
`load_matches_cpu`.  The tests phase (`gpu_check.sh OUT tests`) checks far more.

    python scripts/gpu_quick_parity.py            # on a CUDA machine
    python scripts/gpu_quick_parity.py --emulate  # the host emulation of the CUDA backend

`--emulate` runs the same code through `cule._cuda_emu` on the CPU
(`tests/test_gpu_kit.py` does, so the script itself is checked before a GPU runs it).
"""
from __future__ import annotations

import argparse
import json
import sys

import torch

import cule

GAMES = ("pong", "breakout", "kaboom", "pitfall2", "montezuma_revenge", "video_pinball", "skiing")
# cule.Atari checks with other settings: ALE's cpu="high" core (pitfall2's DPC cart is
# where it parts from the default core in play).
ATARI_CONFIGS = {
    "pitfall2_cpu_high": ("pitfall2", {"cpu": "high"}),
}
# The vector env's configurations: its defaults (84 x 84 grayscale: whole-word copies),
# an odd RGB size (85 x 85 x 3: the observation copied byte by byte) and SAME_STEP with
# life losses ending episodes (final_obs).
VECTOR_CONFIGS = {
    "vector_env_pong": ("pong", {}),
    "vector_env_breakout_85x85_rgb": ("breakout", dict(img_height=85, img_width=85, grayscale=False, stack_num=3)),
    "vector_env_breakout_same_step": ("breakout", dict(autoreset_mode="SameStep", episodic_life=True)),
    # Asynchronous mode: 6 of the 16 envs a step, first-in first-out.
    "vector_env_breakout_async": ("breakout", dict(batch_size=6, autoreset_mode="SameStep", episodic_life=True)),
}


def _pair(cls, emulate: bool, *args, **kw):
    """(the CUDA backend's object, the CPU backend's), built alike."""
    gpu = cls(*args, device="cpu", _emulate_cuda=True, **kw) if emulate else cls(*args, device="cuda", **kw)
    return gpu, cls(*args, device="cpu", **kw)


def _equal(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.cpu(), b.cpu())


def _same_state(g, c) -> bool:
    sg, sc = g.clone_state(), c.clone_state()
    return all(_equal(sg[k], sc[k]) for k in ("consoles", "frame_buffers"))


def atari_checks(game: str, emulate: bool, n: int = 64, acts: int = 30, **kw) -> bool:
    """Loading, ``acts`` random acts, the screens, and a snapshot restored after 10 more
    (``kw``: more cule.Atari arguments)."""
    g, c = _pair(cule.Atari, emulate, game, n, seed=7, **kw)
    ok = _same_state(g, c)
    gen = torch.Generator().manual_seed(1)

    def act():
        a = g.action_set[torch.randint(len(g.action_set), (n,), generator=gen)]
        return _equal(g.act(a.to(g.device)), c.act(a))

    for _ in range(acts):
        ok = act() and ok
    ok = ok and _same_state(g, c)
    ok = ok and _equal(g.screen_rgb(), c.screen_rgb()) and _equal(g.screen_grayscale(), c.screen_grayscale())
    rows = [1, n - 1, 5]
    sg, sc = g.clone_state(rows), c.clone_state(rows)
    for _ in range(10):
        ok = act() and ok
    g.restore_state(sg)
    c.restore_state(sc)
    return bool(ok and _same_state(g, c) and _equal(g.ram, c.ram))


def vector_check(game: str, kw: dict, emulate: bool, n: int = 16, steps: int = 40) -> bool:
    """A seeded reset and ``steps`` random steps (asynchronous: a reset halfway): every result
    equal, info included."""
    g, c = _pair(cule.AtariVectorEnv, emulate, game, n, **kw)

    def same(rg, rc) -> bool:
        ok = all(_equal(x, y) for x, y in zip(rg[:-1], rc[:-1]))
        return ok and set(rg[-1]) == set(rc[-1]) and all(_equal(rg[-1][k], rc[-1][k]) for k in rc[-1])

    ok = same(g.reset(seed=3), c.reset(seed=3))
    gen = torch.Generator().manual_seed(2)
    for t in range(steps):
        if c.batch_size < n and t == steps // 2:   # asynchronous: a reset while results wait
            ok = same(g.reset(), c.reset()) and ok
        a = torch.randint(int(c.single_action_space.n), (c.batch_size,), generator=gen)
        ok = same(g.step(a.to(g.device)), c.step(a)) and ok
    g.close()
    c.close()
    return bool(ok)


def quick_parity(emulate: bool = False, games=GAMES, vector_configs=None, log=print, atari_configs=None) -> dict:
    """{check name: True when the CUDA backend gave the CPU backend's results}; an
    exception in a check counts as False, with its message logged."""
    results = {}
    configs = VECTOR_CONFIGS if vector_configs is None else vector_configs
    atari = ATARI_CONFIGS if atari_configs is None else atari_configs
    checks = [(game, lambda game=game: atari_checks(game, emulate)) for game in games]
    checks += [(name, lambda g=g, kw=kw: atari_checks(g, emulate, **kw)) for name, (g, kw) in atari.items()]
    checks += [(name, lambda g=g, kw=kw: vector_check(g, kw, emulate)) for name, (g, kw) in configs.items()]
    for name, fn in checks:
        try:
            results[name] = fn()
        except Exception as e:  # noqa: BLE001 - a failed check is reported, the rest still run
            log(f"{name}: {type(e).__name__}: {e}")
            results[name] = False
        log(f"{name}: {'same' if results[name] else 'DIFFERENT'}")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--emulate", action="store_true", help="the host emulation of the CUDA backend (no GPU)")
    args = ap.parse_args(argv)
    if not args.emulate and not cule.cuda_atari.cuda_available():
        ap.error("no CUDA device (or no CUDA build of cule); --emulate runs the host emulation")
    results = quick_parity(args.emulate)
    print(json.dumps(results))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
