"""ALEInterface's setRAM / setMode / setDifficulty on a batch (``cule.Atari.set_ram``,
``set_mode``, ``set_difficulty``): each console against its own ale-py ALEInterface
given the same calls (the golden), the CUDA backend's code through its host emulation,
and bad input."""
import numpy as np
import pytest
import torch

import cule
from ale_harness import HAVE_ALE, compare_state, make_ale

need_ale = pytest.mark.skipif(not HAVE_ALE, reason="ale-py not installed")


def drive(emus, ales, game, frames, seed):
    """Random actions with setter calls at fixed frames, on every emulator in `emus` and
    on the ALEInterfaces `ales` (one per console of each emulator).  Returns the first
    difference from ALE, or None."""
    n = emus[0].num_envs
    info = emus[0].rom.info
    modes, diffs = info["modes"], info["difficulties"]
    rng = np.random.default_rng(seed)
    actions = emus[0].action_set.numpy()
    for t in range(frames):
        if t % 17 == 3:
            # Different bytes per console, into a random subset of consoles.
            ids = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
            index = int(rng.integers(128))
            values = rng.integers(256, size=len(ids))
            for e in emus:
                e.set_ram(index, torch.from_numpy(values) if t % 2 else values.tolist(), env_ids=ids)
            for i, v in zip(ids, values):
                ales[i].setRAM(index, int(v))
        if t == 40:
            for e in emus:
                e.set_difficulty(diffs[-1], env_ids=[0])
            ales[0].setDifficulty(diffs[-1])
        if t == 90:
            for e in emus:
                e.set_mode(modes[-1], env_ids=[n - 1])
            ales[n - 1].setMode(modes[-1])
        a = actions[rng.integers(len(actions), size=n)]
        rewards = [e.act(torch.from_numpy(a)) for e in emus]
        for i, ale in enumerate(ales):
            r = ale.act(int(a[i]))
            for e, rw in zip(emus, rewards):
                if int(rw[i]) != r:
                    return f"frame {t} env {i}: reward {int(rw[i])} != ALE {r}"
                diff = compare_state(ale, e, i, f"frame {t} env {i}")
                if diff:
                    return diff
        done = [i for i, ale in enumerate(ales) if ale.game_over() or t in (120, 200)]
        for i in done:
            ales[i].reset_game()
        if done:
            for e in emus:
                e.reset(done)
    return None


@need_ale
@pytest.mark.parametrize("game,mode_addr", [("pong", 0x16), ("breakout", 0x32), ("space_invaders", 0x5C)])
def test_setters_match_ale_interface(game, mode_addr):
    n, seed = 3, 11
    emus = [cule.Atari(game, n, seed=seed, num_threads=2),
            cule.Atari(game, n, seed=seed, _emulate_cuda=True)]   # the CUDA backend's code
    ales = [make_ale(game, seed + i, 0.25) for i in range(n)]
    assert drive(emus, ales, game, 260, seed=3) is None
    # The mode set at frame 90 was selected by the resets at 120 and 200 (the mode bytes
    # of ALE 0.12.1's RomSettings); the other consoles kept the default mode.
    modes = emus[0].rom.info["modes"]
    for e in emus:
        ram = e.ram.numpy()
        assert ram[n - 1, mode_addr] == modes[-1] != ram[0, mode_addr]
    assert torch.equal(emus[0].clone_state()["consoles"], emus[1].clone_state()["consoles"].cpu())


@need_ale
def test_reload_returns_to_the_batchs_own_mode_and_difficulty():
    # ALE loadROM drops setMode / setDifficulty; Gymnasium's AtariEnv then sets its own
    # again, which cule.Atari's constructor mode / difficulty stand for.
    e = cule.Atari("breakout", 2, seed=4, mode=8, difficulty=1)
    e.set_mode(44)
    e.set_difficulty(0, env_ids=[1])
    e.reset()
    assert e.ram[:, 0x32].tolist() == [44, 44]
    e.reload([4, 5])
    ales = [make_ale("breakout", s, 0.25, mode=8, difficulty=1) for s in (4, 5)]
    for i, ale in enumerate(ales):
        assert compare_state(ale, e, i, "after reload") is None


@pytest.mark.parametrize("call,match", [
    (lambda e: e.set_ram(128, 0), "index"),
    (lambda e: e.set_ram(-1, 0), "index"),
    (lambda e: e.set_ram(True, 0), "index"),
    (lambda e: e.set_ram(1.0, 0), "index"),
    (lambda e: e.set_ram(0, 256), "outside"),
    (lambda e: e.set_ram(0, [1, 2, -1]), "outside"),
    (lambda e: e.set_ram(0, 1.5), "integer"),
    (lambda e: e.set_ram(0, True), "integer"),
    (lambda e: e.set_ram(0, [1, 2]), "one per env"),
    (lambda e: e.set_ram(0, [1, 2], env_ids=[0, 0]), "duplicates"),
    (lambda e: e.set_ram(0, 1, env_ids=[3]), "outside"),
    (lambda e: e.set_mode(2), "not available"),
    (lambda e: e.set_mode([0, 1, 7]), "not available"),
    (lambda e: e.set_difficulty(4), "not available"),
    (lambda e: e.set_difficulty(torch.tensor([0.0])), "integer"),
])
def test_bad_setter_input_changes_nothing(call, match):
    e = cule.Atari("pong", 3, seed=1, num_threads=1)
    e.act(torch.ones(3, dtype=torch.int64))
    before = e.clone_state()
    with pytest.raises(ValueError, match=match):
        call(e)
    assert torch.equal(before["consoles"], e.clone_state()["consoles"])


def test_set_ram_writes_the_byte_and_the_data_bus():
    # System::poke (ALE 0.12.1 StellaEnvironment::setRAM) leaves the value on the bus.
    e = cule.Atari("pong", 2, seed=1, num_threads=1)
    e.set_ram(5, [0xA7, 0x3C])
    assert e.ram[:, 5].tolist() == [0xA7, 0x3C]
    assert [e._batch.debug_state(i)["data_bus"] for i in range(2)] == [0xA7, 0x3C]
    e.set_ram(127, 9, env_ids=torch.tensor([1]))
    assert e.ram[:, 127].tolist()[1] == 9 and e._batch.debug_state(0)["data_bus"] == 0xA7


BOARD = [a for base in (0x80, 0x89, 0x92, 0x9B) for a in range(base, base + 8)]   # video_checkers' squares


@need_ale
def test_video_checkers_rules_follow_the_last_reset_not_the_stored_mode():
    # ALE's VideoCheckers scores by m_reverse_checkers, set by the mode selection of a
    # reset_game: a setMode(11) waits for the next reset, and restoreState does not load
    # the flag.  Taking white's pieces off the board (setRAM) ends the game at once: +1
    # under the normal rules, -1 under the giveaway rules of modes 11..19.
    def remove_white_reward(ale, emu):
        ram = ale.getRAM()
        assert np.array_equal(ram, emu.ram[0].numpy())
        for a in BOARD:
            if ram[a - 0x80] in (0x90, 0xA0):
                ale.setRAM(a - 0x80, 0)
                emu.set_ram(a - 0x80, 0)
        r = ale.act(0)
        assert int(emu.act(torch.zeros(1, dtype=torch.int64))[0]) == r
        assert ale.game_over() and bool(emu.terminated[0])
        return r

    ale = make_ale("video_checkers", 3, 0.0)
    emu = cule.Atari("video_checkers", 1, seed=3, repeat_action_probability=0.0)
    ale.setMode(11)
    emu.set_mode(11)
    assert remove_white_reward(ale, emu) == 1          # still mode 1's rules
    ale.reset_game()
    emu.reset()
    giveaway = ale.cloneState(), emu.clone_state(include_rng=False)
    assert remove_white_reward(ale, emu) == -1         # mode 11, selected by the reset
    ale.setMode(1)
    emu.set_mode(1)
    ale.reset_game()
    emu.reset()
    ale.restoreState(giveaway[0])                      # a mode-11 state into a mode-1 game
    emu.restore_state(giveaway[1], ale_semantics=True)
    assert compare_state(ale, emu, 0, "after the restore") is None
    assert remove_white_reward(ale, emu) == 1          # the flag stays mode 1's
