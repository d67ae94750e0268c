"""The CUDA backend: the same results as the CPU backend, bit for bit.

Skipped where no CUDA device exists (or cule was built without CUDA).  With a GPU:
every game runs 5,000 frames (CULE_LOCKSTEP_FRAMES) with sticky actions on both
backends, 32 consoles each, and must give identical RAM, screens, rewards, flags and
whole console states; a 65,536-env batch works; the setters and sound observations
match; bad input raises the same errors.
"""
import os
import threading

# More hardware work queues than CUDA's 8, read when the CUDA context is made: the
# all-games lock step keeps up to GPU_WORKERS (below) streams in flight, and streams
# beyond the queues share one, each kernel then waiting behind another stream's.
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "32")

import numpy as np
import pytest
import torch

import cule
from cule.cuda_atari import cuda_available

from _lockstep import cpu_high_lockstep, lockstep_every_game

from cule.atari import _no_cuda_reason  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason=_no_cuda_reason() if not cuda_available() else "")

# Frames per game of the all-games lock step: 5,000 (CULE_LOCKSTEP_FRAMES to change;
# scripts/gpu_check.sh's 8-minute run sets 800), run on the GPU in CULE_LOCKSTEP_SEGMENTS
# segments side by side (25: 200 frames each; see tests/_lockstep.py), the GPU parts of
# at most CULE_LOCKSTEP_GPU_WORKERS games at once (24), the CPU references in as many
# threads as there are cores.
FRAMES = int(os.environ.get("CULE_LOCKSTEP_FRAMES", "5000"))
SEGMENTS = int(os.environ.get("CULE_LOCKSTEP_SEGMENTS", "25"))
GPU_WORKERS = int(os.environ.get("CULE_LOCKSTEP_GPU_WORKERS", "24"))
# CULE_LOCKSTEP_GAMES: a comma-separated subset (e.g. the games a run cut short left).
GAMES = [g for g in os.environ.get("CULE_LOCKSTEP_GAMES", "").split(",") if g]


def test_cuda_matches_cpu_every_game():
    # Every game, 32 consoles (one full warp) each.  Each game's CPU reference runs in
    # one of a core's worth of threads; then its GPU part, in one of GPU_WORKERS threads,
    # each with its own stream, so the games run side by side; on the GPU the length
    # runs in segments side by side (a GPU thread runs a console's frames one after
    # another, tens of milliseconds each).  Run with -s to see a line per game and,
    # every 30 s, how far each game has got.
    games = cule.list_games()
    unknown = sorted(set(GAMES) - set(games))
    assert not unknown, f"CULE_LOCKSTEP_GAMES names unknown games: {unknown}"
    games = [g for g in games if g in GAMES] if GAMES else games
    local = threading.local()

    def stream(g):
        if not hasattr(local, "stream"):
            local.stream = torch.cuda.Stream()
        return torch.cuda.stream(local.stream)

    failures = lockstep_every_game(games, FRAMES, lambda g, n, **kw: cule.Atari(g, n, device="cuda", **kw),
                                   stream=stream, to_dev=lambda t: t.cuda(),
                                   log=lambda line: print(line, flush=True), segments=SEGMENTS,
                                   cpu_workers=len(os.sched_getaffinity(0)), gpu_workers=GPU_WORKERS, progress_every=30)
    assert not failures, f"{len(failures)} of {len(games)} games differ: {failures}"


def test_outputs_are_cuda_tensors():
    e = cule.Atari("pong", 4, seed=0, device="cuda")
    r = e.act(torch.zeros(4, dtype=torch.int64, device="cuda"))
    for t in (r, e.ram, e.screen_rgb(), e.screen_grayscale(), e.lives, e.terminated, e.frame_number):
        assert t.is_cuda


def test_large_batch():
    e = cule.Atari("pong", 65536, seed=0, device="cuda")
    r = e.act(torch.zeros(65536, dtype=torch.int64, device="cuda"))
    assert r.shape == (65536,)
    assert int(e.frame_number.min()) == int(e.frame_number.max())


def test_power_on_resets_are_led_by_one_console(monkeypatch):
    # The kernels' leader launches (csrc/cuda_backend.cu k_load, cuda_vector_env.cuh
    # k_vec_reset): one console powers on and resets first, alone, and every other
    # console takes the memo slot it recorded.  (The host emulation runs lanes in env
    # order, so only a real GPU can tell whether the leader ran first.)  Pong: loading
    # records slot 2; a reseeded vector-env reset's two reset_games take it as well.
    monkeypatch.setenv("CULE_RESET_MEMO", "1")
    n = 4096
    e = cule.Atari("pong", n, seed=0, device="cuda")
    assert e._cuda.batch.power_on_memo_stats() == [(2, n - 1), (0, 0)]
    v = cule.AtariVectorEnv("pong", n, device="cuda")
    v.reset(seed=3)
    assert v.atari._cuda.batch.power_on_memo_stats() == [(2, n - 1 + 2 * n), (0, 0)]
    v.close()


@pytest.mark.parametrize("actions,match", [
    (torch.zeros(3, dtype=torch.int64), "shape"),
    (torch.zeros(4, dtype=torch.float32), "integers"),
    (torch.tensor([0, 18, 0, 0]), "outside"),
])
def test_bad_actions(actions, match):
    # Host actions are checked at once; ids already on the GPU by the step kernel, and
    # the error comes from a later call (synchronize() always reports it).
    e = cule.Atari("pong", 4, seed=0, device="cuda")
    before = e.clone_state()
    with pytest.raises(ValueError, match=match):
        e.act(actions)
    with pytest.raises(ValueError, match=match):
        e.act(actions.cuda())
        e.synchronize()
    after = e.clone_state()
    assert torch.equal(before["consoles"], after["consoles"])
    assert torch.equal(before["frame_buffers"], after["frame_buffers"])
    e.synchronize()   # reported once


def test_act_queues_without_host_sync():
    # Steps are queued on PyTorch's stream: a long run of act() calls returns before
    # the GPU has finished them (no host synchronisation per step).
    e = cule.Atari("pong", 16384, seed=0, frameskip=4, device="cuda")
    a = torch.zeros(16384, dtype=torch.int64, device="cuda")
    e.synchronize()
    done = torch.cuda.Event()
    for _ in range(20):
        e.act(a)
    done.record()
    assert not done.query(), "20 steps of 16,384 consoles finished before act() returned: act() synchronised"
    e.synchronize()


def test_clone_state_matches_cpu_bytes_and_moves_between_backends():
    # The CUDA backend's snapshots are the CPU backend's bytes (consoles and frame
    # buffers), so whole states compare exactly and move across backends.
    n = 33
    cpu = cule.Atari("ms_pacman", n, seed=3, frameskip=4)
    gpu = cule.Atari("ms_pacman", n, seed=3, frameskip=4, device="cuda")
    gen = torch.Generator().manual_seed(0)
    for _ in range(50):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
        cpu.act(a)
        gpu.act(a.cuda())
    sc, sg = cpu.clone_state(), gpu.clone_state()
    assert sg["consoles"].is_cuda
    assert torch.equal(sc["consoles"], sg["consoles"].cpu())
    assert torch.equal(sc["frame_buffers"], sg["frame_buffers"].cpu())
    other = cule.Atari("ms_pacman", n, seed=99, frameskip=4, device="cuda")
    other.restore_state(sc)
    back = cule.Atari("ms_pacman", n, seed=98, frameskip=4)
    back.restore_state(sg)
    for _ in range(20):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
        r = back.act(a)
        assert torch.equal(r, other.act(a.cuda()).cpu())
        assert torch.equal(back.ram, other.ram.cpu())
    assert torch.equal(back.clone_state()["consoles"], other.clone_state()["consoles"].cpu())


@pytest.mark.parametrize("game", ["space_invaders", "berzerk"])
def test_setters_and_sound_match_cpu(game):
    # k_set (setRAM / setMode / setDifficulty per env) and the audio the act kernel
    # writes (sound observations), against the CPU backend: two warps and a bit.
    n = 70
    cpu = cule.Atari(game, n, seed=5, frameskip=3, sound=True)
    gpu = cule.Atari(game, n, seed=5, frameskip=3, sound=True, device="cuda")
    assert gpu.audio.is_cuda and torch.equal(cpu.audio, gpu.audio.cpu())
    modes, diffs = cpu.rom.info["modes"], cpu.rom.info["difficulties"]
    gen = torch.Generator().manual_seed(1)
    for t in range(300):
        if t % 25 == 5:
            ids = torch.randperm(n, generator=gen)[: n // 3]
            values = torch.randint(256, (len(ids),), generator=gen)
            for e in (cpu, gpu):
                e.set_ram(int(t) % 128, values, env_ids=ids)
                e.set_difficulty(diffs[t % len(diffs)], env_ids=ids[:5])
                e.set_mode(modes[t % len(modes)], env_ids=ids[5:9])
        a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
        assert torch.equal(cpu.act(a), gpu.act(a.cuda()).cpu()), t
        assert torch.equal(cpu.audio, gpu.audio.cpu()), t
        if t % 60 == 59:
            cpu.reset(list(range(0, n, 3)))
            gpu.reset(list(range(0, n, 3)))
    assert torch.equal(cpu.clone_state()["consoles"], gpu.clone_state()["consoles"].cpu())
    assert bool((cpu.audio != 128).any())


def test_truncate_on_loss_of_life_matches_cpu():
    # ALE's truncate_on_loss_of_life reaches the kernels (EnvParams.max_lives): breakout's
    # episodes end at the first life lost, and bank_heist's start truncated.
    for game, steps in (("breakout", 150), ("bank_heist", 5)):
        n = 40
        cpu = cule.Atari(game, n, seed=2, frameskip=4, truncate_on_loss_of_life=True)
        gpu = cule.Atari(game, n, seed=2, frameskip=4, truncate_on_loss_of_life=True, device="cuda")
        gen = torch.Generator().manual_seed(3)
        truncations = 0
        for t in range(steps):
            a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
            assert torch.equal(cpu.act(a), gpu.act(a.cuda()).cpu()), (game, t)
            assert torch.equal(cpu.truncated, gpu.truncated.cpu()) and torch.equal(cpu.ram, gpu.ram.cpu())
            done = (cpu.terminated | cpu.truncated).nonzero().flatten()
            truncations += int(cpu.truncated.sum())
            cpu.reset(done)
            gpu.reset(done.cuda())
        assert truncations > n, game
        assert torch.equal(cpu.clone_state()["consoles"], gpu.clone_state()["consoles"].cpu())


@pytest.mark.parametrize("game,seed", [("pitfall2", 1), ("haunted_house", 3)])
def test_cpu_high_matches_cpu(game, seed):
    # ALE's cpu="high" core (an out-of-line copy of the CPU loop in the kernels) against
    # the CPU backend's, with RAM pokes; the default core parts from both.  40 envs: a
    # warp and a part.
    assert cpu_high_lockstep(lambda g, n, **kw: cule.Atari(g, n, device="cuda", **kw), game, 40, seed, 50,
                             to_dev=lambda t: t.cuda())


def test_cpu_actions_on_a_cuda_env():
    e = cule.Atari("pong", 4, seed=0, device="cuda")
    c = cule.Atari("pong", 4, seed=0)
    for a in (torch.tensor([0, 1, 3, 4]), np.array([3, 4, 0, 1], dtype=np.int32), [0, 0, 1, 1]):
        assert torch.equal(c.act(a), e.act(a).cpu())
    assert torch.equal(c.ram, e.ram.cpu())


# ---- cule.AtariVectorEnv(device="cuda"): the whole preprocessed step on the GPU ----

# A GPU thread runs a console's frames one after the other, so few consoles step
# slowly (about 0.1 s per frameskip-4 step with drawing); the runs are kept short, and
# episodes are cut short (max_num_frames_per_episode) so resets are covered.
VEC_CASES = [
    ("pong", 37, 60, {}),
    ("breakout", 33, 100, {"autoreset_mode": "SameStep", "episodic_life": True, "max_num_frames_per_episode": 240}),
    ("space_invaders", 8, 60, {"img_height": 80, "img_width": 70, "repeat_action_probability": 0.25}),
    ("ms_pacman", 5, 50, {"grayscale": False, "max_num_frames_per_episode": 120}),
    ("breakout", 6, 150, {"frameskip": 1, "maxpool": False, "max_num_frames_per_episode": 100}),
    # Asynchronous mode: 8 of the 24 envs a step, handed out first-in first-out, with a
    # reset in mid-run (the results waiting come first, some envs twice).
    ("breakout", 24, 100, {"batch_size": 8, "autoreset_mode": "SameStep", "episodic_life": True,
                           "max_num_frames_per_episode": 120}),
]


@pytest.mark.parametrize("game,n,steps,kw", VEC_CASES)
def test_cuda_vector_env_matches_cpu(game, n, steps, kw):
    cpu = cule.AtariVectorEnv(game, n, **kw)
    gpu = cule.AtariVectorEnv(game, n, device="cuda", **kw)

    def same(a, b, where):
        for k, (x, y) in enumerate(zip(a[:-1], b[:-1])):
            assert y.is_cuda and torch.equal(x, y.cpu()), f"{game} {where}: result {k}"
        assert set(a[-1]) == set(b[-1]), f"{game} {where}: info keys"
        for key in a[-1]:
            assert torch.equal(a[-1][key], b[-1][key].cpu()), f"{game} {where}: info {key}"

    same(cpu.reset(seed=1), gpu.reset(seed=1), "reset")
    gen = np.random.default_rng(0)
    for t in range(steps):
        if cpu.batch_size < n and t == steps // 2:
            same(cpu.reset(), gpu.reset(), f"reset at {t}")
        actions = gen.integers(0, cpu.single_action_space.n, cpu.batch_size)
        same(cpu.step(actions), gpu.step(torch.from_numpy(actions).cuda()), f"step {t}")


def test_cuda_vector_env_bad_actions_raise_later():
    gpu = cule.AtariVectorEnv("pong", 4, device="cuda")
    gpu.reset(seed=0)
    gpu.step(torch.tensor([0, 1, 2, 99], device="cuda"))
    with pytest.raises(ValueError, match="action space"):
        gpu.atari.synchronize()
