"""The CUDA backend's own code, run on the CPU through its host emulation.

``cule._cuda_emu`` is csrc/cuda_backend.cu compiled for the host (csrc/cuda_emu.cpp,
csrc/cuda_shim.hpp): every kernel launch runs its threads one by one over host
memory.  ``cule.Atari(..., _emulate_cuda=True)`` drives it through the device="cuda"
code path (cule/atari.py -> cule/cuda_atari.py -> bindings -> kernels) with CPU
tensors and stream 0, so everything but the torch.cuda calls is checked here, on
machines without a GPU: lockstep against the CPU backend (as tests/test_cuda.py does
on a GPU), batch sizes that fill warps and blocks partially, modes, save / restore
across backends, bad input and memory accounting.
"""
import re
import time

import numpy as np
import pytest
import torch

import cule
from cule.cuda_atari import emulated_module

from _lockstep import cpu_high_lockstep, first_difference, lockstep_every_game


def make(game, n, emulated, **kw):
    kw.setdefault("seed", 11)
    kw.setdefault("frameskip", 4)
    kw.setdefault("max_num_frames_per_episode", 3000)
    if emulated:
        return cule.Atari(game, n, _emulate_cuda=True, **kw)
    return cule.Atari(game, n, num_threads=2, **kw)


def assert_same(cpu, emu, where):
    what = first_difference(cpu, emu)
    assert what is None, f"{where}: {what}"


def assert_same_screens(cpu, emu, where):
    what = first_difference(cpu, emu, screens=True)
    assert what is None, f"{where}: {what}"


def lockstep(cpu, emu, steps, seed=0, screen_every=25, start=0):
    """Step both with the same random actions, resetting finished envs, comparing all."""
    n = cpu.num_envs
    gen = torch.Generator().manual_seed(seed)
    resets = 0
    for t in range(start, start + steps):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (n,), generator=gen)]
        r1 = cpu.act(a)
        r2 = emu.act(a)
        assert r2.dtype == torch.int32 and r2.shape == (n,)
        assert torch.equal(r1, r2), f"step {t}: rewards"
        assert_same(cpu, emu, f"step {t}")
        if t % screen_every == 0:
            assert_same_screens(cpu, emu, f"step {t}")
        done = (cpu.terminated | cpu.truncated).nonzero().flatten()
        if len(done):
            resets += len(done)
            cpu.reset(done)
            emu.reset(done)
            assert_same(cpu, emu, f"step {t} after reset")
    return resets


def test_emulated_module_is_the_host_build():
    m = emulated_module()
    assert m.emulated is True
    e = make("pong", 2, True)
    assert type(e._batch).__module__ == "cule._cuda_emu"
    assert e._cuda is not None and e.device.type == "cpu"


# (game, num_envs, frames): NTSC 2K paddles (pong, breakout), E0 (montezuma_revenge),
# DPC (pitfall2), F8 (ms_pacman), a PAL F8 game (mr_do, 250 lines), a PAL game whose
# default mode is not 0 (air_raid) and another paddle game (kaboom).  33 and 130 envs
# leave the last warp and the last 128-thread block partly empty.
GAMES = [
    ("pong", 33, 800),
    ("breakout", 130, 400),
    ("montezuma_revenge", 33, 600),
    ("pitfall2", 33, 600),
    ("ms_pacman", 33, 600),
    ("mr_do", 33, 400),
    ("air_raid", 33, 400),
    ("kaboom", 33, 600),
]


@pytest.mark.parametrize("game,n,frames", GAMES, ids=[g for g, _, _ in GAMES])
def test_lockstep_with_cpu_backend(game, n, frames):
    cpu = make(game, n, False)
    emu = make(game, n, True)
    assert_same(cpu, emu, "after load")
    assert_same_screens(cpu, emu, "after load")
    lockstep(cpu, emu, frames // 4)
    assert_same_screens(cpu, emu, "end")


# ALE's cpu="high" core in the kernels (run_frame's out-of-line table-driven copy of the
# CPU loop): pitfall2's DPC cart parts from the default core in play, the others after
# RAM pokes (games found with scripts/setram_fuzz.py --cpu high; seeds where the default
# core parts within the run).  33 envs: a warp and one.
@pytest.mark.parametrize("game,seed", [("pitfall2", 1), ("haunted_house", 3), ("double_dunk", 30), ("kangaroo", 2)])
def test_cpu_high_as_on_cpu(game, seed):
    assert cpu_high_lockstep(lambda g, n, **kw: cule.Atari(g, n, _emulate_cuda=True, **kw), game, 33, seed, 40)


def test_lockstep_resets_and_truncation():
    # Short episodes: truncation and resets of a subset of envs happen many times.
    cpu = make("breakout", 37, False, max_num_frames_per_episode=60, frameskip=3)
    emu = make("breakout", 37, True, max_num_frames_per_episode=60, frameskip=3)
    assert lockstep(cpu, emu, 80, seed=3) > 0
    cpu.reset([0, 5, 36])
    emu.reset(torch.tensor([0, 5, 36]))
    assert_same(cpu, emu, "explicit reset")


def test_truncate_on_loss_of_life_as_on_cpu():
    # truncate_on_loss_of_life reaches the kernels' EnvParams: breakout's episodes end
    # at the first life lost (ALE's isGameTruncated), never at game over.
    kw = dict(max_num_frames_per_episode=0, truncate_on_loss_of_life=True)
    cpu, emu = make("breakout", 37, False, **kw), make("breakout", 37, True, **kw)
    assert lockstep(cpu, emu, 60, seed=5) > 0
    # bank_heist: truncated right after every reset_game.
    cpu, emu = make("bank_heist", 3, False, **kw), make("bank_heist", 3, True, **kw)
    assert cpu.truncated.all() and emu.truncated.all()
    assert lockstep(cpu, emu, 3) == 9


def test_no_sticky_actions_and_frameskip_1():
    cpu = make("pong", 5, False, repeat_action_probability=0.0, frameskip=1)
    emu = make("pong", 5, True, repeat_action_probability=0.0, frameskip=1)
    lockstep(cpu, emu, 150, screen_every=30)


@pytest.mark.parametrize("game,mode,difficulty", [("pacman", 2, 1), ("breakout", 12, 1), ("pong", 1, 3)])
def test_modes_and_difficulties(game, mode, difficulty):
    cpu = make(game, 3, False, mode=mode, difficulty=difficulty)
    emu = make(game, 3, True, mode=mode, difficulty=difficulty)
    assert_same(cpu, emu, "after set_mode")
    assert_same_screens(cpu, emu, "after set_mode")
    lockstep(cpu, emu, 100, screen_every=50)


def test_set_mode_mid_run_takes_effect_at_reset():
    # ALE setMode / setDifficulty between episodes (what cule.gym_env does on a load).
    cpu = make("pacman", 33, False)
    emu = make("pacman", 33, True)
    lockstep(cpu, emu, 10)
    for e in (cpu, emu):
        e.set_mode(3)
        e.set_difficulty(1)
    assert torch.equal(cpu.clone_state()["consoles"], emu.clone_state()["consoles"])
    cpu.reset()
    emu.reset()
    assert_same(cpu, emu, "after reset in the new mode")
    lockstep(cpu, emu, 40, seed=5, screen_every=20)


@pytest.mark.parametrize("render,frameskip", [(True, 5), (False, 4), (True, 2)])
def test_render_settings_give_the_cpu_backends_bytes(render, frameskip):
    # Drawing only the observed frames (render=True, the last two of each act, redone
    # in full when they leave a buffer inexact) or none (render=False) must leave every
    # console byte, frame buffers included, as on the CPU backend.
    cpu = make("ms_pacman", 33, False, render=render, frameskip=frameskip, max_num_frames_per_episode=400)
    emu = make("ms_pacman", 33, True, render=render, frameskip=frameskip, max_num_frames_per_episode=400)
    assert emu._batch.render_last == cpu._batch.render_last == (2 if render else 0)
    gen = torch.Generator().manual_seed(1)
    for t in range(60):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (33,), generator=gen)]
        assert torch.equal(cpu.act(a), emu.act(a)), f"step {t}: rewards"
        done = (cpu.terminated | cpu.truncated).nonzero().flatten()
        if len(done):
            cpu.reset(done)
            emu.reset(done)
        if t % 10 == 0:
            sc, se = cpu.clone_state(), emu.clone_state()
            assert torch.equal(sc["consoles"], se["consoles"]), f"step {t}: console bytes"
            assert torch.equal(sc["frame_buffers"], se["frame_buffers"]), f"step {t}: frame buffers"
    assert_same(cpu, emu, "end")
    if render:
        assert_same_screens(cpu, emu, "end")
    else:
        with pytest.raises(RuntimeError):
            emu.screen_rgb()
    with pytest.raises(ValueError):
        emu._batch.render_last = 1


def test_full_action_space_and_per_env_seeds():
    seeds = [0, 7, 2**31 - 1]
    cpu = make("ms_pacman", 3, False, seed=seeds, full_action_space=True)
    emu = make("ms_pacman", 3, True, seed=seeds, full_action_space=True)
    lockstep(cpu, emu, 100, screen_every=50)


@pytest.mark.parametrize("actions,match", [
    (torch.zeros(3, dtype=torch.int64), "shape"),
    (torch.zeros(4, dtype=torch.float32), "integers"),
    (torch.tensor([0, 18, 0, 0]), "outside"),
    (torch.tensor([0, -1, 0, 0]), "outside"),
    (np.zeros(4, dtype=np.float64), "integers"),
    ([0, 1, 2], "shape"),
])
def test_bad_actions_raise_as_on_cpu_and_change_nothing(actions, match):
    cpu = make("pong", 4, False, seed=0)
    emu = make("pong", 4, True, seed=0)
    before = emu.clone_state()
    with pytest.raises(ValueError, match=match):
        cpu.act(actions)
    with pytest.raises(ValueError, match=match):
        emu.act(actions)
    after = emu.clone_state()
    assert torch.equal(before["consoles"], after["consoles"])


def test_action_types_accepted_as_on_cpu():
    # CPU tensors of any integer dtype, numpy arrays and lists all step the same.
    cpu = make("pong", 4, False, seed=0)
    emu = make("pong", 4, True, seed=0)
    for a in (torch.tensor([0, 1, 3, 4]), torch.tensor([1, 1, 0, 5], dtype=torch.uint8),
              np.array([3, 4, 0, 1], dtype=np.int32), [0, 0, 1, 1]):
        assert torch.equal(cpu.act(a), emu.act(a))
        assert_same(cpu, emu, repr(a))


def test_bad_reset_ids_raise_as_on_cpu():
    cpu = make("pong", 4, False, seed=0)
    emu = make("pong", 4, True, seed=0)
    for ids in ([4], [-1], [0.5], torch.tensor([True, False])):
        for e in (cpu, emu):
            with pytest.raises(ValueError):
                e.reset(ids)
    for e in (cpu, emu):
        e.reset(np.zeros(0, dtype=np.int64))   # nothing to do
    assert_same(cpu, emu, "after empty reset")


def test_bad_constructor_arguments():
    with pytest.raises(ValueError):
        cule.Atari("pong", 0, _emulate_cuda=True)
    with pytest.raises(ValueError):
        cule.Atari("pong", 2, mode=99, _emulate_cuda=True)
    with pytest.raises(ValueError):
        cule.Atari("pong", 2, device="cuda", _emulate_cuda=True)


def test_failed_construction_leaves_no_pending_error():
    # A batch on a device that does not exist fails; the error must not resurface in
    # the next launch's check of another batch.
    from cule.roms import load_rom, native_config
    rom = load_rom("pong")
    with pytest.raises(RuntimeError, match="cudaSetDevice"):
        emulated_module().CudaBatch(native_config(rom), rom.data, 4, 1)
    emu = make("pong", 4, True)
    cpu = make("pong", 4, False)
    lockstep(cpu, emu, 5)


def test_device_bytes_accounting():
    m = emulated_module()
    b1 = make("pong", 1, True)._batch.device_bytes
    b33 = make("pong", 33, True)._batch.device_bytes
    b64 = make("pong", 64, True)._batch.device_bytes
    cs, fs = m.CudaBatch.console_state_bytes, m.CudaBatch.frame_buffer_bytes
    # States are allocated in whole groups of 32 consoles (4-byte words), frame buffers
    # and a cur_buf byte per env; the ROM (>= 16 KiB), the palette and the reset_game
    # memo (four slots: two consoles and two frame-buffer pairs each, and a header) and the
    # power-on state (a console and its frame-buffer pair) once.  (The noop-start memo's
    # nodes come with a vector env: see the vector env tests.)
    words = (cs + 3) // 4
    fixed = b1 - (32 * words * 4 + fs + 1)
    memo = m.CudaBatch.reset_memo_bytes
    assert 4 * (2 * cs + 2 * fs) < memo < 4 * (2 * cs + 2 * fs) + 256
    assert fixed == 16384 + 256 * 4 + memo + cs + fs
    assert b33 == fixed + 64 * words * 4 + 33 * (fs + 1)
    assert b64 == fixed + 64 * words * 4 + 64 * (fs + 1)


# ---- save / restore ----

def test_clone_matches_cpu_bytes_and_moves_between_backends():
    n = 33
    cpu = make("ms_pacman", n, False)
    emu = make("ms_pacman", n, True)
    lockstep(cpu, emu, 40)
    sc, se = cpu.clone_state(), emu.clone_state()
    for key in ("format", "game", "md5", "console_state_bytes", "frame_buffer_bytes"):
        assert sc[key] == se[key]
    assert torch.equal(sc["env_ids"], se["env_ids"])
    assert se["consoles"].dtype == torch.uint8 and se["consoles"].shape == (n, se["console_state_bytes"])
    assert se["frame_buffers"].shape == (n, se["frame_buffer_bytes"])
    assert torch.equal(sc["consoles"], se["consoles"])
    assert torch.equal(sc["frame_buffers"], se["frame_buffers"])

    # A subset, out of order: rows follow env_ids.
    ids = [32, 0, 17, 31]
    assert torch.equal(cpu.clone_state(ids)["consoles"], emu.clone_state(ids)["consoles"])

    # Emulated CUDA state into a fresh CPU env and CPU state into a fresh CUDA env,
    # then both pairs run in lockstep.
    cpu2 = make("ms_pacman", n, False, seed=500)
    emu2 = make("ms_pacman", n, True, seed=900)
    cpu2.restore_state(se)
    emu2.restore_state(sc)
    assert torch.equal(emu2.clone_state()["consoles"], sc["consoles"])
    assert_same(cpu2, emu2, "after cross restore")
    assert_same_screens(cpu2, emu2, "after cross restore")
    lockstep(cpu2, emu2, 60, seed=9, screen_every=20)


def test_clone_step_restore_step_is_bit_identical():
    emu = make("montezuma_revenge", 35, True, max_num_frames_per_episode=0)
    cpu = make("montezuma_revenge", 35, False, max_num_frames_per_episode=0)
    lockstep(cpu, emu, 20)
    state = emu.clone_state()
    gen = torch.Generator().manual_seed(4)
    actions = [emu.action_set[torch.randint(len(emu.action_set), (35,), generator=gen)] for _ in range(15)]
    first = [(emu.act(a), emu.ram.clone()) for a in actions]
    after = emu.clone_state()
    emu.restore_state(state)
    second = [(emu.act(a), emu.ram.clone()) for a in actions]
    for (r1, m1), (r2, m2) in zip(first, second):
        assert torch.equal(r1, r2) and torch.equal(m1, m2)
    assert torch.equal(after["consoles"], emu.clone_state()["consoles"])
    assert torch.equal(after["frame_buffers"], emu.clone_state()["frame_buffers"])


def test_restore_subset_into_other_envs():
    cpu = make("pitfall2", 34, False)
    emu = make("pitfall2", 34, True)
    lockstep(cpu, emu, 30)
    part_c = cpu.clone_state([1, 33])
    part_e = emu.clone_state([1, 33])
    assert torch.equal(part_c["consoles"], part_e["consoles"])
    lockstep(cpu, emu, 10, seed=1)
    cpu.restore_state(part_c, env_ids=[32, 2])
    emu.restore_state(part_e, env_ids=[32, 2])
    assert_same(cpu, emu, "after subset restore")
    assert_same_screens(cpu, emu, "after subset restore")
    lockstep(cpu, emu, 30, seed=2, screen_every=10)


def test_reload_matches_cpu():
    cpu = make("space_invaders", 3, False, repeat_action_probability=0.25)
    emu = make("space_invaders", 3, True, repeat_action_probability=0.25)
    lockstep(cpu, emu, 20)
    cpu.reload([123, 2**32 - 5, 9])
    emu.reload([123, 2**32 - 5, 9])
    assert torch.equal(cpu.clone_state()["consoles"], emu.clone_state()["consoles"])
    lockstep(cpu, emu, 20, seed=1)
    cpu.reload(7, env_ids=[1])
    emu.reload(7, env_ids=[1])
    assert torch.equal(cpu.clone_state()["consoles"], emu.clone_state()["consoles"])
    lockstep(cpu, emu, 20, seed=2)


def test_out_of_range_ids_on_the_device_are_caught_without_a_sync():
    # Ids already on the GPU are range-checked by the step kernel (k_check_actions):
    # that step changes nothing and a later call raises.  The emulation's "device"
    # tensors are CPU tensors, so call the backend directly to skip the host-side check.
    emu = make("pong", 5, True)
    cpu = make("pong", 5, False)
    before = emu.clone_state()
    r = emu._cuda.act(torch.tensor([0, 3, 18, 0, 2]), emu._params())
    assert torch.equal(r, torch.zeros(5, dtype=torch.int32))
    after = emu.clone_state()
    assert torch.equal(before["consoles"], after["consoles"]) and torch.equal(before["frame_buffers"], after["frame_buffers"])
    with pytest.raises(ValueError, match="outside"):
        emu.act(torch.zeros(5, dtype=torch.int64))
    # The error is reported once; the emulator carries on exactly as the CPU one.
    lockstep(cpu, emu, 30)
    emu._cuda.act(torch.tensor([-1, 0, 0, 0, 0]), emu._params())
    with pytest.raises(ValueError, match="outside"):
        emu.synchronize()
    emu.synchronize()
    lockstep(cpu, emu, 10, start=30)


def test_render_false_and_render_last_as_on_cpu():
    # render=False draws nothing on both backends; the consoles stay byte-identical.
    cpu = make("breakout", 33, False, render=False)
    emu = make("breakout", 33, True, render=False)
    lockstep_ram_only = 40
    gen = torch.Generator().manual_seed(2)
    for t in range(lockstep_ram_only):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (33,), generator=gen)]
        assert torch.equal(cpu.act(a), emu.act(a))
        assert_same(cpu, emu, f"step {t}")
    assert torch.equal(cpu.clone_state()["consoles"], emu.clone_state()["consoles"])
    with pytest.raises(RuntimeError, match="render=False"):
        emu.screen_rgb()


def test_every_game_lockstep_helper():
    # The helper behind tests/test_cuda.py's all-games lock step, on a few games (one of
    # each mapper family) through the emulation, and it reports a difference.
    games = ["pong", "montezuma_revenge", "pitfall2", "ms_pacman"]
    new = lambda g, n, **kw: cule.Atari(g, n, _emulate_cuda=True, **kw)   # noqa: E731
    lines = []
    assert lockstep_every_game(games, 16, new, log=lines.append) == {}
    # A line per game as it finishes (a GPU run cut short by a time limit still shows how
    # far it got).
    assert sorted(line.split(":")[1].strip() for line in lines) == sorted(games)
    assert all(": same (4 steps of 4 frames in 1 segment(s)); CPU done after " in line for line in lines)
    assert lines[-1].endswith("(4/4 games)")
    # Bounded pools (a CPU thread and a GPU thread): games finish in order, and the
    # progress lines say how far each game has got while the run goes on.
    lines = []

    def slow(g, n, **kw):
        time.sleep(0.3)
        return new(g, n, **kw)
    assert lockstep_every_game(games, 16, slow, log=lines.append, cpu_workers=1, gpu_workers=1,
                               progress_every=0.05) == {}
    done = [line for line in lines if not line.startswith("lockstep progress")]
    assert [line.split(":")[1].strip() for line in done] == games
    progress = [line for line in lines if line.startswith("lockstep progress")]
    assert progress and all(re.match(r"lockstep progress after \d+ s: [0-4]/4 games done, [0-4] not started; "
                                     r"steps reached: .*\(CPU: of 4; GPU: of 4 per segment\)$", line)
                            for line in progress), progress
    assert any("waiting for the GPU" in line for line in progress), progress
    # A part that raises ends only its own game, reported at once.
    def broken(g, n, **kw):
        if g == "pitfall2":
            raise RuntimeError("no GPU batch")
        return new(g, n, **kw)
    lines = []
    found = lockstep_every_game(games, 16, broken, log=lines.append, gpu_workers=1)
    assert found == {"pitfall2": "error on the GPU: RuntimeError('no GPU batch')"}, found
    assert len(lines) == 4 and lines[-1].endswith("(4/4 games)")
    found = lockstep_every_game(["pong", "no_such_game"], 16, new)
    assert list(found) == ["no_such_game"] and found["no_such_game"].startswith("error in the CPU reference: "), found
    # In segments (the GPU batch holds one group of consoles per segment, the later ones
    # restored from the CPU's snapshots), over a length with resets (max frames 3000 cut
    # episodes short) and whole-console comparisons inside segments.
    lines = []
    assert lockstep_every_game(["pong", "ms_pacman"], 3200, new, log=lines.append, segments=3, n=4) == {}
    assert all("(800 steps of 4 frames in 3 segment(s))" in line for line in lines)
    wrong = lambda g, n, **kw: cule.Atari(g, n, _emulate_cuda=True, **{**kw, "seed": 12})   # noqa: E731
    assert set(lockstep_every_game(["pong", "ms_pacman"], 40, wrong)) == {"pong", "ms_pacman"}
    # A difference that shows only in a later segment: its group's actions become NOOP.
    def late(g, n, **kw):
        a = cule.Atari(g, n, _emulate_cuda=True, **kw)
        real_act = a.act
        a.act = lambda acts: real_act(torch.cat([acts[:n // 2], acts[n // 2:] * 0]))
        return a
    found = lockstep_every_game(["pong"], 160, late, segments=2, n=4)
    assert set(found) == {"pong"} and int(found["pong"].split()[1].rstrip(":")) >= 20, found
    # A reset left out at a segment's last step (episodes are cut at 3,000 frames: step 749
    # here) shows only in the check that each group ends where the next one started.
    def no_last_reset(g, n, **kw):
        a = cule.Atari(g, n, _emulate_cuda=True, **kw)
        real_act, real_reset, acts = a.act, a.reset, [0]
        def act(x):
            acts[0] += 1
            return real_act(x)
        a.act, a.reset = act, (lambda ids: None if acts[0] == 750 else real_reset(ids))
        return a
    found = lockstep_every_game(["pong"], 6000, no_last_reset, segments=2, n=2)
    assert found == {"pong": "step 749: console state after the resets"}, found
