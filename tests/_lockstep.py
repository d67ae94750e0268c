"""Lock step of every game between the CPU backend and a CUDA batch (real or emulated).

Used by tests/test_cuda.py on a GPU (one CUDA stream per game, so the games run side by
side) and by tests/test_cuda_emu.py through the host emulation (to check this code on
machines without a GPU).
"""
import contextlib
import threading
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
    {game: "step t: what"} for the games that differ (each stops at its first
    difference).

    Every game runs in its own thread (its CPU batch steps there, its GPU work is queued
    on its stream), so the games go side by side and one whose frames are slow on the GPU
    holds back only itself.  log(line), if given, hears of each game as it finishes (its
    result and times), so a run cut short still tells how far it got."""
    log = log or (lambda line: None)
    t0 = time.perf_counter()
    stream = stream or (lambda g: contextlib.nullcontext())
    kw = dict(seed=seed, frameskip=frameskip, max_num_frames_per_episode=3000)
    steps = frames // frameskip
    lock = threading.Lock()
    finished = []

    def compare(cpu, gpu, t, r_cpu, r_gpu):
        if not torch.equal(r_cpu, r_gpu.cpu()):
            return "rewards"
        return first_difference(cpu, gpu, screens=t % 25 == 0, consoles=t % 50 == 0 or t == steps - 1)

    def run(g):
        with stream(g):
            cpu, gpu = cule.Atari(g, n, num_threads=1, **kw), new_gpu(g, n, **kw)
            made = time.perf_counter() - t0
            gen = torch.Generator().manual_seed(seed)
            what, t = None, -1
            for t in range(steps):
                acts = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
                r_gpu = gpu.act(to_dev(acts))   # queued on the game's stream: runs while the CPU steps
                r_cpu = cpu.act(acts)
                what = compare(cpu, gpu, t, r_cpu, r_gpu)
                if what:
                    what = f"step {t}: {what}"
                    break
                done = (cpu.terminated | cpu.truncated).nonzero().flatten()
                if len(done):
                    cpu.reset(done)
                    gpu.reset(to_dev(done))
            gpu.synchronize()
        with lock:
            finished.append(g)
            log(f"lockstep: {g}: {'differs at ' + what if what else 'same'} over {t + 1} of {steps} steps "
                f"({(t + 1) * frameskip} frames); made after {made:.1f} s, finished after "
                f"{time.perf_counter() - t0:.1f} s ({len(finished)}/{len(games)} games)")
        return what

    with ThreadPoolExecutor(max(1, len(games))) as pool:
        results = dict(zip(games, pool.map(run, games)))
    return {g: what for g, what in results.items() if what}
