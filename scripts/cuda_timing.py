"""Per-step timings of cule on a CUDA GPU (pong), for GPU sessions: wall clock with a
synchronisation after every step, and CUDA-event time over the same steps.

    python scripts/cuda_timing.py LABEL SPEC OUT.jsonl [SECONDS [WARMUP_STEPS]]

SPEC is a ';'-separated list of KIND,NUM_ENVS,RENDER,FRAMESKIP[,GAME[,MAX_FRAMES[,KEY=VALUE...]]]
(GAME default pong; MAX_FRAMES: max_num_frames_per_episode, empty for the env's default;
KEY=VALUE: further keyword arguments of the env, integers, e.g. noop_max=1) with KIND
  atari  cule.Atari(device="cuda", frameskip=FRAMESKIP, render=RENDER == 1), random
         actions from the minimal action set drawn on the GPU, one ``act`` a step;
  vec    cule.AtariVectorEnv(device="cuda") with its defaults (frameskip 4, 84x84x4
         grayscale; RENDER and FRAMESKIP are ignored), random actions drawn on the GPU.
Each item is measured for SECONDS (default 1.2) after WARMUP_STEPS steps (default 2; the
consoles of an `atari` item start from the same reset and drift apart as the random
actions steer them, so more warm-up measures warps that diverge more); a JSON line per
item (frames/s, ms per step, set-up seconds; for `vec` also split into construction and
the first reset, and `kernel_ms`: each kernel's GPU time per step over two more steps,
from PyTorch's profiler) is printed and appended to OUT.jsonl.
Example: python scripts/cuda_timing.py main "atari,65536,0,1;vec,65536,1,4" t.jsonl
Steady state with resets (episodes ending all the time, warm-up long enough that every
env has ended one): python scripts/cuda_timing.py main "vec,16384,1,4,breakout" t.jsonl 2 300
(and again with CULE_RESET_MEMO=0 in the environment for the memos' share; each line
carries the memos' counters).
"""
import json
import os
import sys
import time

# kernel_times profiles with CUPTI; detach it afterwards (PyTorch keeps it attached
# otherwise), so the items timed after a profiled one are timed as those before it.
os.environ.setdefault("TEARDOWN_CUPTI", "1")

import torch  # noqa: E402

import cule


def parse_item(item):
    """One SPEC item -> (kind, num_envs, render, frameskip, game, env kwargs)."""
    kind, n, render, fs, *rest = item.split(",")
    game = rest[0] if rest and rest[0] else "pong"
    extra = {"max_num_frames_per_episode": int(rest[1])} if len(rest) > 1 and rest[1] else {}
    for kv in rest[2:]:
        key, value = kv.split("=")
        extra[key] = int(value)
    return kind, int(n), render == "1", int(fs), game, extra


def kernel_times(one, steps):
    """GPU milliseconds per step of each kernel over `steps` calls of `one`, largest
    first (PyTorch's profiler, CUDA activity); {"error": ...} if the profiler fails."""
    try:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                one()
            torch.cuda.synchronize()
        times = {}
        for ev in prof.key_averages():
            us = getattr(ev, "self_device_time_total", None)
            if us is None:
                us = getattr(ev, "self_cuda_time_total", 0)
            if us > 0:
                times[ev.key] = times.get(ev.key, 0.0) + us / 1e3 / steps
        return dict(sorted(((k, round(v, 3)) for k, v in times.items()), key=lambda kv: -kv[1])[:12])
    except Exception as ex:  # noqa: BLE001 (a diagnosis; the timing above stands)
        return {"error": repr(ex)}


def main(label, spec, out, secs=1.2, warmup=2):
    for item in spec.split(";"):
        kind, n, render, fs, game, extra = parse_item(item)
        t0 = time.time()
        g = torch.Generator(device="cuda").manual_seed(0)
        made = None
        if kind == "atari":
            e = cule.Atari(game, n, device="cuda", frameskip=fs, render=render, seed=1, **extra)
            acts = e.action_set.cuda()

            def one():
                e.act(acts[torch.randint(len(acts), (n,), device="cuda", generator=g)])
        elif kind == "vec":
            e = cule.AtariVectorEnv(game, n, device="cuda", **extra)
            torch.cuda.synchronize()
            made = time.time() - t0   # the set-up's parts: construction (power-on and
            e.reset(seed=1)           # reset_game of every console), then the first reset
            na = int(e.single_action_space.n)
            fs = 4

            def one():
                e.step(torch.randint(na, (n,), device="cuda", generator=g))
        else:
            raise SystemExit(f"unknown kind {kind!r} (atari or vec)")
        torch.cuda.synchronize()
        setup = time.time() - t0
        for _ in range(warmup):
            one()
        torch.cuda.synchronize()
        k = 0
        ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t = time.time()
        ev0.record()
        while True:
            one()
            k += 1
            torch.cuda.synchronize()
            if time.time() - t > secs:
                break
        ev1.record()
        torch.cuda.synchronize()
        dt = time.time() - t
        r = dict(label=label, kind=kind, game=game, n=n, render=render, frameskip=fs, warmup=warmup, steps=k,
                 ms_per_step=dt / k * 1e3,
                 gpu_ms_per_step=ev0.elapsed_time(ev1) / k, frames_per_s=n * fs * k / dt, setup_s=setup)
        if made is not None:
            r["construct_s"], r["first_reset_s"] = made, setup - made
            r["kernel_ms"] = kernel_times(one, 2)
        if extra:
            r["env_kwargs"] = extra
        batch = (e.atari if kind == "vec" else e)._batch
        # The memos' counters (csrc/ale_env.hpp): reset_game memo (state, hits) per slot (the
        # running games' two, then the power-on resets' two) and noop-start frames (from
        # nodes, emulated) per slot; [] when CULE_RESET_MEMO=0.
        r["reset_memo"] = [list(x) for x in batch.reset_memo_stats() + batch.power_on_memo_stats()]
        r["start_memo"] = [list(x) for x in batch.start_memo_stats()]
        print(json.dumps(r), flush=True)
        with open(out, "a") as f:
            f.write(json.dumps(r) + "\n")
        del e, one
        torch.cuda.empty_cache()


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5, 6):
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) >= 5 else 1.2,
         int(sys.argv[5]) if len(sys.argv) == 6 else 2)
