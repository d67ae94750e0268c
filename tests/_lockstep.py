"""Lock step of every game between the CPU backend and a CUDA batch (real or emulated).

Used by tests/test_cuda.py on a GPU (one CUDA stream per game, so the games run side by
side) and by tests/test_cuda_emu.py through the host emulation (to check this code on
machines without a GPU).
"""
import contextlib
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import torch

import cule


# The per-env values both backends report after every act.
FLAGS = ("lives", "terminated", "truncated", "episode_frame_number", "frame_number")


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


def observe(a, screens=False, consoles=False, ids=None, digest=lambda x: x.cpu()):
    """What the lock steps compare of a cule.Atari batch, as CPU tensors, in the order
    they are checked: "RAM", the FLAGS, with screens=True "screen_rgb" /
    "screen_grayscale", with consoles=True "console state" / "frame buffers" (whole
    consoles of the envs `ids`, default all: CPU, TIA, RIOT, cartridge, RNGs, byte for
    byte).  digest(tensor) is what is kept of the screens and frame buffers (default:
    all their bytes)."""
    out = {"RAM": a.ram.cpu()}
    for name in FLAGS:
        out[name] = getattr(a, name).cpu()
    if screens:
        out["screen_rgb"] = digest(a.screen_rgb())
        out["screen_grayscale"] = digest(a.screen_grayscale())
    if consoles:
        st = a.clone_state(ids)
        out["console state"] = st["consoles"].cpu()
        out["frame buffers"] = digest(st["frame_buffers"])
    return out


def first_difference(ref, other, screens=False, consoles=False):
    """What first differs between two cule.Atari batches (`other` may live on another
    device), by observe()'s names; None when all agree."""
    a, b = observe(ref, screens, consoles), observe(other, screens, consoles)
    return next((name for name in a if not torch.equal(a[name], b[name])), None)


def lockstep_every_game(games, frames, new_gpu, stream=None, to_dev=lambda t: t, n=32, frameskip=4, seed=11,
                        log=None, segments=1, cpu_workers=None, gpu_workers=None, progress_every=None):
    """Steps `n` consoles of each game on both backends with the same sticky random
    actions for `frames` frames, resetting finished envs, and compares after every step
    (observe(): screens, hashed, every 25 steps; whole consoles, frame buffers hashed,
    every 50 steps and at each segment's last step).  new_gpu(game, n, **kw) makes the
    CUDA batch; stream(game) gives the context its work is queued in (called in the
    thread that runs the game's GPU part).  Returns {game: "step t: what"} for the games
    that differ (each stops at the first difference it finds).

    One GPU thread runs a console's frames one after another, so the GPU run is cut into
    `segments` that run side by side: the CPU batch runs the whole length first,
    recording what it did and saw and, at each segment's first step, its consoles
    (clone_state); the GPU batch holds `segments` x n consoles, the first n from its own
    power-on and reset, each further group of n restored from the CPU's snapshot at its
    segment's start, and steps them all at once, each group with its segment's actions
    and resets.  At the end each group's whole consoles must equal the CPU's snapshot
    the next group started from (its last step's resets included): so the segments
    chain into one run of the whole length on the GPU, compared frame by frame.

    The CPU parts run in `cpu_workers` threads (default: one per game), and each game's
    GPU part, once its CPU part is done, in one of `gpu_workers` threads (default: one
    per game).  Bounding the GPU threads keeps the streams in flight within the GPU's
    hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 unless set, at most 32): more
    streams than queues share them, and a stream's kernel then waits behind another
    game's.  log(line), if given, hears of each game as it finishes (its result and
    times), and, every `progress_every` seconds, how far every game has got, so a run
    cut short still tells where the time went.  A part that raises ends its game at
    once, reported as differing with "error in the CPU reference: ..." or "error on the
    GPU: ...".  PyTorch runs single-threaded meanwhile (the threads are the
    parallelism)."""
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
    progress = {}   # game -> (phase, step): how far each started game has got

    def record(g):
        # The CPU reference, recorded.
        cpu = cule.Atari(g, n, num_threads=1, **kw)
        gen = torch.Generator().manual_seed(seed)
        records, starts = [], {}
        for t in range(steps):
            progress[g] = ("CPU", t)
            if t % seg_len == 0 and t > 0:
                starts[t // seg_len] = cpu.clone_state()
            acts = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
            rec = {"actions": acts, "rewards": cpu.act(acts)}
            rec.update(observe(cpu, screens=t % 25 == 0, consoles=t % 50 == 0 or t == steps - 1 or (t + 1) % seg_len == 0,
                               digest=_row_hashes))
            rec["done"] = (cpu.terminated | cpu.truncated).nonzero().flatten()
            if len(rec["done"]):
                cpu.reset(rec["done"])
            records.append(rec)
        progress[g] = ("waiting for the GPU", steps)
        return records, starts, time.perf_counter() - t0

    def replay(g, records, starts, cpu_done):
        # The GPU segments, side by side.
        what = None
        with stream(g):
            gpu = new_gpu(g, nseg * n, **kw)
            for s, st in starts.items():
                gpu.restore_state(st, env_ids=torch.arange(s * n, (s + 1) * n))
            noop = torch.zeros(n, dtype=records[0]["actions"].dtype)
            for u in range(seg_len):
                progress[g] = ("GPU", u)
                live = [s for s in range(nseg) if s * seg_len + u < steps]
                acts = torch.cat([records[s * seg_len + u]["actions"] if s in live else noop for s in range(nseg)])
                seen = {"rewards": gpu.act(to_dev(acts)).cpu()}
                seen.update(observe(gpu, screens=any((s * seg_len + u) % 25 == 0 for s in live), digest=_row_hashes))
                for s in live:
                    t = s * seg_len + u
                    rec = records[t]
                    mine = {name: v[s * n:(s + 1) * n] for name, v in seen.items()}
                    if "console state" in rec:
                        st = gpu.clone_state(torch.arange(s * n, (s + 1) * n))
                        mine["console state"] = st["consoles"].cpu()
                        mine["frame buffers"] = _row_hashes(st["frame_buffers"])
                    diff = next((name for name in rec if name not in ("actions", "done")
                                 and not torch.equal(mine[name], rec[name])), None)
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
        return what

    def finish(g, what, cpu_done):
        with lock:
            finished.append(g)
            progress.pop(g, None)
            cpu = f"CPU done after {cpu_done:.1f} s" if cpu_done is not None else "no CPU reference"
            log(f"lockstep: {g}: {'differs at ' + what if what else 'same'} ({steps} steps of {frameskip} "
                f"frames in {nseg} segment(s)); {cpu}, GPU after "
                f"{time.perf_counter() - t0:.1f} s ({len(finished)}/{len(games)} games)")
        return what

    # A part that raises ends its game with "differs at error ..." at once (the other
    # games go on), so a run under a time limit still prints the error.
    def cpu_part(g):
        try:
            recorded = record(g)
        except Exception as e:  # noqa: BLE001
            return finish(g, f"error in the CPU reference: {e!r}", None)
        return gpu_pool.submit(gpu_part, g, *recorded)

    def gpu_part(g, records, starts, cpu_done):
        try:
            what = replay(g, records, starts, cpu_done)
        except Exception as e:  # noqa: BLE001
            what = f"error on the GPU: {e!r}"
        return finish(g, what, cpu_done)

    stop = threading.Event()

    def report():
        # How far each game has got, every progress_every seconds.
        while not stop.wait(progress_every):
            with lock:   # the same moment for both (finish() moves a game under the lock)
                now, done = dict(progress), len(finished)
            phases = {}
            for g, (phase, t) in sorted(now.items()):
                phases.setdefault(phase, []).append(f"{g} {t}" if phase != "waiting for the GPU" else g)
            parts = [f"{phase} ({len(gs)}): {', '.join(gs)}" for phase, gs in phases.items()]
            log(f"lockstep progress after {time.perf_counter() - t0:.0f} s: {done}/{len(games)} games "
                f"done, {len(games) - done - len(now)} not started; steps reached: "
                f"{'; '.join(parts) or 'none'} (CPU: of {steps}; GPU: of {seg_len} per segment)")

    watcher = None
    if progress_every:
        watcher = threading.Thread(target=report, daemon=True)
        watcher.start()
    # The parallelism is across games: PyTorch's own threads (OpenMP teams for the large
    # hash products) in each of these threads would oversubscribe the cores, and their
    # spinning barriers slowed the CPU references several times over.
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(max(1, gpu_workers or len(games))) as gpu_pool:
            with ThreadPoolExecutor(max(1, cpu_workers or len(games))) as cpu_pool:
                pending = {g: cpu_pool.submit(cpu_part, g) for g in games}
                first = {g: f.result() for g, f in pending.items()}
            results = {g: r.result() if isinstance(r, Future) else r for g, r in first.items()}
    finally:
        torch.set_num_threads(torch_threads)
        stop.set()
        if watcher is not None:
            watcher.join()
    return {g: what for g, what in results.items() if what}


def cpu_high_lockstep(make, game, n, seed, acts, to_dev=lambda t: t):
    """ALE's cpu="high" core (cule.Atari(cpu="high")) of the batch `make(game, n, **kw)`
    makes, against the CPU backend's (itself checked against ale-py's M6502High,
    tests/test_cpu_high.py): random actions (full action space, sticky 0.25) and a
    random RAM byte poked in every env every 5 acts, which drives games into code where
    ALE's two cores part; RAM, rewards and the flags compared after every act, screens
    every 10 and whole consoles at the end; finished envs reset.  Returns whether a CPU
    batch on the default core ("low"), run beside them, parted from them (so a caller
    can check that the run tells the cores apart)."""
    kw = dict(seed=seed, frameskip=3, repeat_action_probability=0.25, full_action_space=True)
    ref, low, dut = cule.Atari(game, n, cpu="high", **kw), cule.Atari(game, n, **kw), make(game, n, cpu="high", **kw)
    assert dut.cpu == "high"
    gen = torch.Generator().manual_seed(seed)
    parted = False
    for t in range(acts):
        if t % 5 == 0:
            index, values = int(torch.randint(128, (1,), generator=gen)), torch.randint(256, (n,), generator=gen)
            for e in (ref, low, dut):
                e.set_ram(index, values, env_ids=torch.arange(n))
        a = torch.randint(18, (n,), generator=gen)
        r = ref.act(a)
        assert torch.equal(r, dut.act(to_dev(a)).cpu()), f"act {t}: rewards"
        low.act(a)
        parted = parted or not torch.equal(ref.ram, low.ram)
        what = first_difference(ref, dut, screens=t % 10 == 9)
        assert what is None, f"act {t}: {what}"
        done = (ref.terminated | ref.truncated).nonzero().flatten()
        if len(done):
            ref.reset(done)
            dut.reset(to_dev(done))
        ldone = (low.terminated | low.truncated).nonzero().flatten()
        if len(ldone):
            low.reset(ldone)
    assert first_difference(ref, dut, consoles=True) is None
    return parted
