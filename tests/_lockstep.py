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


def _row_hashes(x, cache={}):
    """One int64 per row of a uint8 tensor (a fixed pseudo-random weighting of the row's
    bytes, wrapping): equal rows give equal hashes on either device.  Eight rows at a
    time, so the int64 copy stays small (a screen_rgb row is 100,800 bytes)."""
    x = x.reshape(len(x), -1)
    key = (x.shape[1], str(x.device))
    if key not in cache:
        g = torch.Generator().manual_seed(x.shape[1])
        cache[key] = torch.randint(-(2 ** 62), 2 ** 62, (x.shape[1],), generator=g, dtype=torch.int64).to(x.device)
    w = cache[key]
    return torch.cat([(x[i:i + 8].to(torch.int64) * w).sum(1).cpu() for i in range(0, len(x), 8)])


def _observe(a, t, steps, seg_len):
    """What the lock step compares after step t of `steps`, as CPU tensors: RAM and the
    flags every step, screens (hashed) every 25 steps, whole consoles (frame buffers
    hashed) every 50 steps and at the last step of each segment of seg_len steps."""
    out = {"RAM": a.ram.cpu()}
    for name in FLAGS:
        out[name] = getattr(a, name).cpu()
    if t % 25 == 0:
        out["screen_rgb"] = _row_hashes(a.screen_rgb())
        out["screen_grayscale"] = _row_hashes(a.screen_grayscale())
    if t % 50 == 0 or t == steps - 1 or (t + 1) % seg_len == 0:
        st = a.clone_state()
        out["console state"] = st["consoles"].cpu()
        out["frame buffers"] = _row_hashes(st["frame_buffers"])
    return out


def lockstep_every_game(games, frames, new_gpu, stream=None, to_dev=lambda t: t, n=32, frameskip=4, seed=11,
                        log=None, segments=1):
    """Steps `n` consoles of each game on both backends with the same sticky random
    actions for `frames` frames, resetting finished envs, and compares after every step
    (see _observe).  new_gpu(game, n, **kw) makes the CUDA batch; stream(game) gives the
    context its work is queued in.  Returns {game: "step t: what"} for the games that
    differ (each stops at the first difference it finds).

    One GPU thread runs a console's frames one after another, so the GPU run is cut into
    `segments` that run side by side: the CPU batch runs the whole length first,
    recording what it did and saw and, at each segment's first step, its consoles
    (clone_state); the GPU batch holds `segments` x n consoles, the first n from its own
    power-on and reset, each further group of n restored from the CPU's snapshot at its
    segment's start, and steps them all at once, each group with its segment's actions
    and resets.  At the end each group's whole consoles must equal the CPU's snapshot
    the next group started from (its last step's resets included): so the segments
    chain into one run of the whole length on the GPU, compared frame by frame.

    Every game runs in its own thread (its GPU work on its stream), so the games go side
    by side.  log(line), if given, hears of each game as it finishes (its result and
    times), so a run cut short still tells how far it got."""
    log = log or (lambda line: None)
    t0 = time.perf_counter()
    stream = stream or (lambda g: contextlib.nullcontext())
    kw = dict(seed=seed, frameskip=frameskip, max_num_frames_per_episode=3000)
    steps = frames // frameskip
    if steps < 1:
        raise ValueError(f"frames ({frames}) must be at least frameskip ({frameskip})")
    seg_len = -(-steps // max(1, min(segments, steps)))   # steps per segment (the last may be shorter)
    nseg = -(-steps // seg_len)
    lock = threading.Lock()
    finished = []

    def compare(seen, rec, rows):
        for what, ref in rec.items():
            if what in ("actions", "rewards", "done"):
                continue
            if not torch.equal(seen[what][rows], ref):
                return what
        return None

    def run(g):
        # The CPU reference, recorded.
        cpu = cule.Atari(g, n, num_threads=1, **kw)
        gen = torch.Generator().manual_seed(seed)
        records, starts = [], {}
        for t in range(steps):
            if t % seg_len == 0 and t > 0:
                starts[t // seg_len] = cpu.clone_state()
            acts = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
            rec = {"actions": acts, "rewards": cpu.act(acts)}
            rec.update(_observe(cpu, t, steps, seg_len))
            rec["done"] = (cpu.terminated | cpu.truncated).nonzero().flatten()
            if len(rec["done"]):
                cpu.reset(rec["done"])
            records.append(rec)
        cpu_done = time.perf_counter() - t0
        # The GPU segments, side by side.
        what = None
        with stream(g):
            gpu = new_gpu(g, nseg * n, **kw)
            for s, st in starts.items():
                gpu.restore_state(st, env_ids=torch.arange(s * n, (s + 1) * n))
            noop = torch.zeros(n, dtype=records[0]["actions"].dtype)
            for u in range(seg_len):
                live = [s for s in range(nseg) if s * seg_len + u < steps]
                acts = torch.cat([records[s * seg_len + u]["actions"] if s in live else noop for s in range(nseg)])
                rewards = gpu.act(to_dev(acts)).cpu()
                seen = {"RAM": gpu.ram.cpu()}
                for name in FLAGS:
                    seen[name] = getattr(gpu, name).cpu()
                if any((s * seg_len + u) % 25 == 0 for s in live):
                    seen["screen_rgb"] = _row_hashes(gpu.screen_rgb())
                    seen["screen_grayscale"] = _row_hashes(gpu.screen_grayscale())
                for s in live:
                    t = s * seg_len + u
                    rows = slice(s * n, (s + 1) * n)
                    rec = records[t]
                    if "console state" in rec:
                        st = gpu.clone_state(torch.arange(s * n, (s + 1) * n))
                        seen["console state"] = torch.zeros(nseg * n, st["consoles"].shape[1], dtype=torch.uint8)
                        seen["console state"][rows] = st["consoles"].cpu()
                        seen["frame buffers"] = torch.zeros(nseg * n, dtype=torch.int64)
                        seen["frame buffers"][rows] = _row_hashes(st["frame_buffers"])
                    diff = "rewards" if not torch.equal(rewards[rows], rec["rewards"]) else compare(seen, rec, rows)
                    if diff:
                        what = f"step {t}: {diff}"
                        break
                if what:
                    break
                done = [records[s * seg_len + u]["done"] + s * n for s in live]
                done = torch.cat(done)
                if len(done):
                    gpu.reset(to_dev(done))
            # Each group ends where the next one started (after its last resets).
            for s in range(nseg - 1 if not what else 0):
                st = gpu.clone_state(torch.arange(s * n, (s + 1) * n))
                nxt = starts[s + 1]
                if not torch.equal(st["consoles"].cpu(), nxt["consoles"]):
                    what = f"step {(s + 1) * seg_len - 1}: console state after the resets"
                elif not torch.equal(_row_hashes(st["frame_buffers"]), _row_hashes(nxt["frame_buffers"])):
                    what = f"step {(s + 1) * seg_len - 1}: frame buffers after the resets"
                if what:
                    break
            gpu.synchronize()
        with lock:
            finished.append(g)
            log(f"lockstep: {g}: {'differs at ' + what if what else 'same'} ({steps} steps of {frameskip} "
                f"frames in {nseg} segment(s)); CPU done after {cpu_done:.1f} s, GPU after "
                f"{time.perf_counter() - t0:.1f} s ({len(finished)}/{len(games)} games)")
        return what

    with ThreadPoolExecutor(max(1, len(games))) as pool:
        results = dict(zip(games, pool.map(run, games)))
    return {g: what for g, what in results.items() if what}
