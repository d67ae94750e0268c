"""Lock step of every game between the CPU backend and a CUDA batch (real or emulated).

Used by tests/test_cuda.py on a GPU (one CUDA stream per game, so the games run side by
side) and by tests/test_cuda_emu.py through the host emulation (to check this code on
machines without a GPU).
"""
import contextlib
import os
import time
from concurrent.futures import ThreadPoolExecutor

import torch

import cule


# The per-env values both backends report after every act.
FLAGS = ("lives", "terminated", "truncated", "episode_frame_number", "frame_number")


def first_difference(ref, other, screens=False, consoles=False):
    """What first differs between two cule.Atari batches (`other` may live on another
    device): "RAM", a name from FLAGS, with screens=True "screen_rgb" /
    "screen_grayscale", with consoles=True "console state" / "frame buffers" (whole
    consoles: CPU, TIA, RIOT, cartridge, RNGs, byte for byte); None when all agree."""
    if not torch.equal(ref.ram, other.ram.cpu()):
        return "RAM"
    for name in FLAGS:
        if not torch.equal(getattr(ref, name), getattr(other, name).cpu()):
            return name
    if screens:
        if not torch.equal(ref.screen_rgb(), other.screen_rgb().cpu()):
            return "screen_rgb"
        if not torch.equal(ref.screen_grayscale(), other.screen_grayscale().cpu()):
            return "screen_grayscale"
    if consoles:
        s1, s2 = ref.clone_state(), other.clone_state()
        if not torch.equal(s1["consoles"], s2["consoles"].cpu()):
            return "console state"
        if not torch.equal(s1["frame_buffers"], s2["frame_buffers"].cpu()):
            return "frame buffers"
    return None


def lockstep_every_game(games, frames, new_gpu, stream=None, to_dev=lambda t: t, n=32, frameskip=4, seed=11,
                        log=None):
    """Steps `n` consoles of each game on both backends with the same sticky random
    actions for `frames` frames, resetting finished envs.  new_gpu(game, n, **kw) makes the
    CUDA batch; stream(game) gives the context its work is queued in.  Returns
    {game: "step t: what"} for the games that differ (each is dropped at its first
    difference).  log(line), if given, hears how far it got (after the batches are made,
    then every 25 steps), so a run cut short still tells."""
    log = log or (lambda line: None)
    t0 = time.perf_counter()
    stream = stream or (lambda g: contextlib.nullcontext())
    kw = dict(seed=seed, frameskip=frameskip, max_num_frames_per_episode=3000)
    def make(g):
        # Built in a thread pool: each CUDA batch loads on its own stream, side by side.
        with stream(g):
            return cule.Atari(g, n, num_threads=1, **kw), new_gpu(g, n, **kw)

    pool = ThreadPoolExecutor(max(1, min(16, os.cpu_count() or 1)))
    made = dict(zip(games, pool.map(make, games)))
    cpu = {g: made[g][0] for g in games}
    gpu = {g: made[g][1] for g in games}
    gens = {g: torch.Generator().manual_seed(seed) for g in games}
    steps = frames // frameskip
    failures = {}
    live = list(games)
    log(f"lockstep: {len(games)} games x {n} consoles made in {time.perf_counter() - t0:.1f} s; {steps} steps")

    def compare(g, t, r_cpu, r_gpu):
        if not torch.equal(r_cpu, r_gpu.cpu()):
            return "rewards"
        return first_difference(cpu[g], gpu[g], screens=t % 25 == 0, consoles=t % 50 == 0 or t == steps - 1)

    with pool:
        for t in range(steps):
            acts = {g: cpu[g].action_set[torch.randint(len(cpu[g].action_set), (n,), generator=gens[g])]
                    for g in live}
            r_gpu = {}
            for g in live:   # queued on each game's stream; nothing waits here
                with stream(g):
                    r_gpu[g] = gpu[g].act(to_dev(acts[g]))
            r_cpu = dict(zip(live, pool.map(lambda g: cpu[g].act(acts[g]), live)))
            for g in list(live):
                with stream(g):
                    what = compare(g, t, r_cpu[g], r_gpu[g])
                    if what:
                        failures[g] = f"step {t}: {what}"
                        live.remove(g)
                        continue
                    done = (cpu[g].terminated | cpu[g].truncated).nonzero().flatten()
                    if len(done):
                        cpu[g].reset(done)
                        gpu[g].reset(to_dev(done))
            if (t + 1) % 25 == 0 or t + 1 == steps:
                log(f"lockstep: step {t + 1}/{steps} ({(t + 1) * frameskip} frames) after "
                    f"{time.perf_counter() - t0:.1f} s, {len(failures)} games differ so far")
    for g in games:
        with stream(g):
            gpu[g].synchronize()
    return failures
