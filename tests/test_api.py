"""The public Python API: shapes, dtypes, defaults, and clear errors for bad input
that leave every console untouched."""
import hashlib
import os
import time

import numpy as np
import pytest
import torch

import cule


@pytest.fixture(scope="module")
def emu():
    return cule.Atari("pong", 3, seed=5, num_threads=2)


def snapshot(e):
    return (e.ram.clone(), e.frame_number.clone(), e.episode_frame_number.clone(), e.screen_rgb().clone())


def unchanged(before, after):
    return all(torch.equal(a, b) for a, b in zip(before, after))


def test_list_games_and_build_info():
    games = cule.list_games()
    assert games == sorted(games)
    assert {"pong", "breakout", "space_invaders", "seaquest", "freeway", "ms_pacman"} <= set(games)
    info = cule.build_info()
    assert info["version"] == cule.__version__
    try:
        from cule import _cuda  # noqa: F401
        built = True
    except ImportError:
        built = False
    assert info["cuda"] is built
    # The per-console state (RNG states included) fits the 8 KB target.
    assert 0 < info["console_state_bytes"] <= 8192


def test_shapes_and_dtypes(emu):
    assert emu.action_set.tolist() == [0, 1, 3, 4, 11, 12]      # ALE minimal set for Pong
    assert emu.action_set.dtype == torch.int64
    assert emu.ram.shape == (3, 128) and emu.ram.dtype == torch.uint8
    assert emu.screen_rgb().shape == (3, 210, 160, 3)
    assert emu.screen_grayscale().shape == (3, 210, 160)
    r = emu.act(torch.zeros(3, dtype=torch.int64))
    assert r.shape == (3,) and r.dtype == torch.int32
    for t in (emu.lives, emu.episode_frame_number, emu.frame_number):
        assert t.shape == (3,) and t.dtype == torch.int32
    assert emu.terminated.dtype == torch.bool and emu.truncated.dtype == torch.bool


def test_full_action_space():
    e = cule.Atari("breakout", 1, full_action_space=True, seed=0)
    assert e.action_set.tolist() == list(range(18))


def test_game_ids_and_paths():
    from ale_py import roms
    a = cule.Atari("SpaceInvaders", 1, seed=1)
    b = cule.Atari(str(roms.get_rom_path("space_invaders")), 1, seed=1)
    assert a.game == b.game == "space_invaders"
    assert torch.equal(a.ram, b.ram)


@pytest.mark.parametrize("actions,match", [
    (torch.zeros(2, dtype=torch.int64), "shape"),
    (torch.zeros((3, 1), dtype=torch.int64), "shape"),
    (torch.zeros(3, dtype=torch.float32), "integers"),
    (torch.zeros(3, dtype=torch.bool), "integers"),
    (torch.tensor([0, 18, 0]), "outside"),
    (torch.tensor([0, -1, 0]), "outside"),
    (np.array([0.0, 1.0, 0.0]), "integers"),
])
def test_bad_actions_raise_and_change_nothing(emu, actions, match):
    before = snapshot(emu)
    with pytest.raises(ValueError, match=match):
        emu.act(actions)
    assert unchanged(before, snapshot(emu))


@pytest.mark.parametrize("actions", [None, "000", b"000"])
def test_non_array_actions_raise_type_error_and_change_nothing(emu, actions):
    before = snapshot(emu)
    with pytest.raises(TypeError, match=r"actions must be an integer tensor or array of shape \(3,\)"):
        emu.act(actions)
    assert unchanged(before, snapshot(emu))


def test_more_threads_than_envs_steps_like_one_thread():
    many = cule.Atari("breakout", 2, seed=4, num_threads=64)
    one = cule.Atari("breakout", 2, seed=4, num_threads=1)
    for a in ([1, 1], [3, 4], [4, 3]) * 20:
        assert torch.equal(many.act(torch.tensor(a)), one.act(torch.tensor(a)))
    assert torch.equal(many.ram, one.ram)


def test_an_id_listed_twice_is_reset_once():
    twice = cule.Atari("breakout", 2, seed=6, num_threads=1)
    once = cule.Atari("breakout", 2, seed=6, num_threads=1)
    for e in (twice, once):
        for _ in range(30):
            e.act(torch.tensor([1, 3]))
    twice.reset([1, 1])
    once.reset([1])
    assert torch.equal(twice.clone_state()["consoles"], once.clone_state()["consoles"])


@pytest.mark.parametrize("ids", [[3], [-1], [0.5], torch.tensor([True])])
def test_bad_reset_ids(emu, ids):
    before = snapshot(emu)
    with pytest.raises(ValueError):
        emu.reset(ids)
    assert unchanged(before, snapshot(emu))


def test_partial_reset_only_touches_given_envs():
    e = cule.Atari("breakout", 3, seed=2)
    for _ in range(50):
        e.act(torch.tensor([1, 3, 4]))
    frames = e.episode_frame_number.clone()
    e.reset([1])
    after = e.episode_frame_number
    assert after[0] == frames[0] and after[2] == frames[2]
    assert after[1] < frames[1]


@pytest.mark.parametrize("kwargs,match", [
    ({"num_envs": 0}, "num_envs"),
    ({"num_envs": -3}, "num_envs"),
    ({"num_envs": 1.5}, "num_envs"),
    ({"num_envs": 1, "mode": 7}, "mode"),
    ({"num_envs": 1, "difficulty": 9}, "difficulty"),
    ({"num_envs": 1, "frameskip": 0}, "frameskip"),
    ({"num_envs": 1, "repeat_action_probability": 1.5}, "repeat_action_probability"),
    ({"num_envs": 1, "max_num_frames_per_episode": -1}, "max_num_frames_per_episode"),
    ({"num_envs": 1, "num_threads": 0}, "num_threads"),
    ({"num_envs": 2, "seed": [1]}, "seed"),
    ({"num_envs": 1, "seed": -5}, "seed"),
    ({"num_envs": 1, "device": "cuda"}, "device"),
    ({"num_envs": 1, "device": "tpu"}, "invalid device 'tpu': use 'cpu', 'cuda' or 'cuda:N'"),
    ({"num_envs": 1, "device": "CPU"}, "invalid device 'CPU'"),
    ({"num_envs": 1, "device": -1}, "invalid device -1"),
    ({"num_envs": 1, "device": "meta"}, "not supported"),
    ({"num_envs": 1, "render": "yes"}, "render"),
    ({"num_envs": 1, "mode": 1.0}, "mode must be an integer"),
    ({"num_envs": 1, "mode": True}, "mode must be an integer"),
    ({"num_envs": 1, "difficulty": 1.0}, "difficulty must be an integer"),
    ({"num_envs": 1, "full_action_space": "yes"}, "full_action_space"),
    ({"num_envs": 1, "truncate_on_loss_of_life": 1}, "truncate_on_loss_of_life"),
])
def test_bad_constructor_arguments(kwargs, match):
    n = kwargs.pop("num_envs")
    with pytest.raises(ValueError, match=match):
        cule.Atari("pong", n, **kwargs)


def test_device_none_and_cpu_n_are_the_cpu():
    # As PyTorch's device=None: the default device; 'cpu:N' is the CPU, where PyTorch
    # puts its tensors (the env reported 'cpu:1', its tensors 'cpu').
    for d in (None, "cpu:1", torch.device("cpu", 0)):
        a = cule.Atari("pong", 1, device=d)
        assert a.device == torch.device("cpu") and a.ram.device == torch.device("cpu")
    if not cule.cuda_atari.cuda_available():
        # As PyTorch, an int is the accelerator's ordinal; the message names the device
        # as a user writes it (it showed "device(type='cuda', index=1)").
        with pytest.raises(ValueError, match=r"^device 'cuda:3' is not available"):
            cule.Atari("pong", 1, device=3)
        with pytest.raises(ValueError, match=r"^device 'cuda:1' is not available"):
            cule.Atari("pong", 1, device=torch.device("cuda", 1))


def test_unknown_games_and_rom_files(tmp_path):
    with pytest.raises(ValueError, match="unknown game"):
        cule.Atari("not_a_game", 1)
    with pytest.raises(ValueError, match="multiplayer"):
        cule.Atari("warlords", 1)
    missing = tmp_path / "missing.bin"
    with pytest.raises(ValueError, match="cannot read"):
        cule.Atari(str(missing), 1)
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x00" * 1000)
    with pytest.raises(ValueError, match="size"):
        cule.Atari(str(odd), 1)
    fake = tmp_path / "fake.bin"
    fake.write_bytes(b"\xea" * 4096)
    with pytest.raises(ValueError, match="MD5"):
        cule.Atari(str(fake), 1)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        cule.Atari(str(empty), 1)


def test_game_names_do_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    # A game id names the game even where a file of that name lies in the working
    # directory (gymnasium.make("ALE/Breakout-v5") is not affected by such a file
    # either); the file is read when given as a path.
    import gymnasium as gym
    from ale_py import roms
    monkeypatch.chdir(tmp_path)
    (tmp_path / "breakout").write_bytes(b"hi\n")
    (tmp_path / "pong").write_bytes(roms.get_rom_path("pong").read_bytes())
    gym.register_envs(cule)
    assert gym.make("cule/Breakout-v5").unwrapped.atari.game == "breakout"
    assert cule.Atari("breakout", 1).game == cule.AtariVectorEnv("Breakout", 1).atari.game == "breakout"
    assert cule.Atari("Space Invaders", 1).game == "space_invaders"
    for path in (tmp_path / "breakout", "./breakout"):
        with pytest.raises(ValueError, match="size"):
            cule.Atari(path, 1)
    assert cule.Atari(tmp_path / "pong", 1).rom.path == str(tmp_path / "pong")
    ale = cule.ALEInterface()
    with pytest.raises(ValueError, match="size"):
        ale.loadROM("breakout")                    # loadROM takes a path, as ale-py's
    assert cule.Atari("ale/breakout-v5", 1).game == "breakout"   # the namespace in any case too
    for bad in ("ALE/", "cule/Nothing-v5", "nothing"):
        with pytest.raises(ValueError, match="unknown game"):
            cule.Atari(bad, 1)


def test_out_of_range_ids_are_named_as_given():
    # A uint64 above 2**63 - 1 is reported as given, not wrapped to a negative int64.
    e = cule.Atari("pong", 2, num_threads=1)
    with pytest.raises(ValueError, match="contains 9223372036854775808, outside"):
        e.act(np.array([2**63, 0], np.uint64))
    with pytest.raises(ValueError, match="contains 18446744073709551615, outside"):
        e.reset(np.array([2**64 - 1], np.uint64))


def test_vector_env_refuses_a_batch_larger_than_memory_as_invalid_argument():
    import gymnasium as gym
    from cule.vector_env import InvalidArgument
    gym.register_envs(cule)
    for make in (lambda: gym.make_vec("cule/Pong-v5", num_envs=10**8), lambda: cule.AtariVectorEnv("pong", 10**8),
                 lambda: cule.AtariVectorEnv("no_such_game", 2)):
        with pytest.raises(InvalidArgument):
            make()


def test_seeds_follow_ale_random_seed():
    # env i with seed s + i behaves like a single env seeded s + i, and like ALE with
    # random_seed s + i (sticky actions 0.25 draw from that seed's RNG).
    from ale_py import ALEInterface, LoggerMode, roms
    ALEInterface.setLoggerMode(LoggerMode.Error)
    a = cule.Atari("breakout", 2, seed=40)
    b = cule.Atari("breakout", 1, seed=41)
    ale = ALEInterface()
    ale.setInt("random_seed", 41)
    ale.loadROM(str(roms.get_rom_path("breakout")))
    rng = np.random.default_rng(0)
    for _ in range(200):
        act = int(rng.choice([0, 1, 3, 4]))
        a.act(torch.tensor([act, act]))
        b.act(torch.tensor([act]))
        ale.act(act)
    assert torch.equal(a.ram[1], b.ram[0])
    np.testing.assert_array_equal(b.ram[0].numpy(), ale.getRAM())
    assert not torch.equal(a.ram[0], a.ram[1])   # the seeds steered the two envs apart


def test_truncation():
    e = cule.Atari("pong", 1, seed=0, max_num_frames_per_episode=100, frameskip=4)
    for _ in range(30):
        e.act(torch.tensor([0]))
    assert bool(e.truncated[0]) and not bool(e.terminated[0])
    assert int(e.episode_frame_number[0]) == 100
    # Further acts emulate nothing and return 0, as ALE does.
    assert int(e.act(torch.tensor([0]))[0]) == 0
    assert int(e.episode_frame_number[0]) == 100
    e.reset()
    assert not bool(e.truncated[0])


def test_truncation_counts_the_mode_selection_frames():
    # ALE judges isGameTruncated at every query: reset_game's mode selection acts count
    # episode frames (space_invaders mode 2: 3, pong mode 1: 1), so a limit at or below
    # them truncates the new episode at once (ale-py 0.12.1: game_truncated() True after
    # reset_game), and acts then emulate nothing.
    for game, mode, frames in (("space_invaders", 2, 3), ("pong", 1, 1)):
        for limit, truncated in ((frames, True), (frames + 1, False)):
            e = cule.Atari(game, 2, seed=0, mode=mode, max_num_frames_per_episode=limit)
            assert e.episode_frame_number.tolist() == [frames] * 2
            assert e.truncated.tolist() == [truncated] * 2, (game, limit)
            ram = e.ram.clone()
            e.act(torch.zeros(2, dtype=torch.int64))
            assert torch.equal(e.ram, ram) == truncated


def test_truncate_on_loss_of_life():
    # ALE truncate_on_loss_of_life: truncated once lives() < the lives of the game's
    # RomSettings as constructed (ALE 0.12.1 Breakout.cpp / BankHeist.cpp reset():
    # m_lives = 5; Pong.cpp: lives() is 0).
    assert [cule.Atari(g, 1).initial_lives for g in ("breakout", "bank_heist", "pong")] == [5, 5, 0]
    e = cule.Atari("breakout", 4, seed=2, frameskip=4, truncate_on_loss_of_life=True)
    gen = torch.Generator().manual_seed(0)
    seen = torch.zeros(4, dtype=torch.bool)
    for _ in range(300):
        was = e.truncated.clone()
        ram = e.ram.clone()
        e.act(e.action_set[torch.randint(len(e.action_set), (4,), generator=gen)])
        assert torch.equal(e.truncated, e.lives < 5) and not e.terminated.any()
        assert torch.equal(e.ram[was], ram[was])   # a truncated episode emulates nothing
        seen |= e.truncated
    assert seen.all()
    e.reset()
    assert not e.truncated.any() and e.lives.tolist() == [5] * 4
    # bank_heist's RomSettings start at 5 lives but its RAM shows 4 after reset_game, so
    # ALE truncates each episode at once (ale-py 0.12.1: lives() 4, game_truncated()).
    b = cule.Atari("bank_heist", 2, seed=1, truncate_on_loss_of_life=True)
    assert b.truncated.all() and b.lives.tolist() == [4, 4]


def test_render_false_emulates_the_same_without_screens():
    # render=False draws no pixel; everything else (RAM, rewards, lives, flags, which
    # depend on the TIA's collision latches) must be what the drawing emulator gives.
    kw = dict(frameskip=4, seed=3, num_threads=1)
    a = cule.Atari("breakout", 3, **kw)
    b = cule.Atari("breakout", 3, render=False, **kw)
    assert a.render and not b.render
    gen = torch.Generator().manual_seed(1)
    for _ in range(400):
        act = a.action_set[torch.randint(len(a.action_set), (3,), generator=gen)]
        assert torch.equal(a.act(act), b.act(act))
        assert torch.equal(a.ram, b.ram)
        assert torch.equal(a.lives, b.lives) and torch.equal(a.terminated, b.terminated)
        done = (a.terminated | a.truncated).nonzero().flatten()
        if len(done):
            a.reset(done)
            b.reset(done)
    for read in (b.screen_rgb, b.screen_grayscale):
        with pytest.raises(RuntimeError, match="render=False"):
            read()


def test_more_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="seed must be None, an int or a sequence of ints, got str"):
        cule.Atari("pong", 2, seed="a")
    e = cule.Atari("pong", 2, seed=0)
    before = e.ram.clone()
    with pytest.raises(ValueError, match="1-D"):
        e.reset(torch.zeros(1, 1, dtype=torch.int64))
    state = e.clone_state()
    del state["frame_buffers"]
    with pytest.raises(ValueError, match="missing frame_buffers"):
        e.restore_state(state)
    assert torch.equal(before, e.ram)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_batch_inherited_by_a_forked_process_still_steps():
    # A forked child has none of the parent's worker threads: its batches step on the
    # calling thread instead of waiting for them forever, with the same results.
    emu = cule.Atari("pong", 4, seed=5, frameskip=4, num_threads=2)
    venv = cule.AtariVectorEnv("breakout", 4, num_threads=2)
    venv.reset(seed=3)
    actions = torch.tensor([1, 2, 3, 0]).repeat(20, 1)
    emu.act(emu.action_set[actions[0]])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: step both, send the results, leave without cleanup
        try:
            for a in actions:
                emu.act(emu.action_set[a])
                obs, *_ = venv.step(a % 4)
            os.write(write, hashlib.sha256(emu.ram.numpy().tobytes() + obs.numpy().tobytes()).digest())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 60
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child did not finish stepping within 60 s")
        time.sleep(0.05)
    with os.fdopen(read, "rb") as f:
        got = f.read()
    for a in actions:
        emu.act(emu.action_set[a])
        obs, *_ = venv.step(a % 4)
    assert got == hashlib.sha256(emu.ram.numpy().tobytes() + obs.numpy().tobytes()).digest()
    venv.close()


def test_integer_arguments_take_0d_arrays_and_tensors():
    # As ale-py's bindings (and Python's operator.index): a NumPy integer or a 0-d
    # integer array or tensor is an int; a bool, a float or a 1-element array is not.
    e = cule.Atari("pong", torch.tensor(2), frameskip=np.array(3), mode=torch.tensor(1),
                   difficulty=np.int64(1), max_num_frames_per_episode=np.array(50), num_threads=torch.tensor(1),
                   seed=0)
    ref = cule.Atari("pong", 2, frameskip=3, mode=1, difficulty=1, max_num_frames_per_episode=50, num_threads=1, seed=0)
    assert (e.num_envs, e.frameskip, e.mode, e.difficulty, e.max_num_frames_per_episode) == (2, 3, 1, 1, 50)
    assert all(type(v) is int for v in (e.num_envs, e.frameskip, e.mode, e.difficulty, e.max_num_frames_per_episode))
    for _ in range(20):
        a = torch.tensor([2, 3])
        assert torch.equal(e.act(a), ref.act(a))
    assert torch.equal(e.ram, ref.ram) and torch.equal(e.truncated, ref.truncated)
    for bad in (True, np.True_, torch.tensor(True), 2.0, np.array(2.0), torch.tensor(2.0), np.array([2]), "2"):
        with pytest.raises(ValueError, match="num_envs must be an integer in"):
            cule.Atari("pong", bad)
        with pytest.raises(ValueError, match="frameskip must be an integer in"):
            cule.Atari("pong", 1, frameskip=bad)


def test_attributes_are_checked_or_read_only():
    e = cule.Atari("breakout", 2, seed=3)
    ref = cule.Atari("breakout", 2, seed=3)
    before = snapshot(e)
    # The settings an act reads may change between calls, checked as the constructor
    # checks them: a bad value changes nothing.
    for name, bad in [("frameskip", 0), ("frameskip", -3), ("frameskip", "4"), ("frameskip", 2.0),
                      ("max_num_frames_per_episode", -5), ("max_num_frames_per_episode", 1.5),
                      ("repeat_action_probability", 1.5), ("repeat_action_probability", "0.1"),
                      ("repeat_action_probability", True)]:
        old = getattr(e, name)
        with pytest.raises(ValueError, match=name):
            setattr(e, name, bad)
        assert getattr(e, name) == old
    # Stored as ALE stores setFloat's value (ALE 0.12.1 Settings.cxx): 1/3 is 0.333333
    # as a 32-bit float, as when given to the constructor.
    e.repeat_action_probability = 1 / 3
    assert e.repeat_action_probability == float(np.float32(0.333333))
    assert e.repeat_action_probability == cule.Atari("breakout", 1, repeat_action_probability=1 / 3).repeat_action_probability
    e.frameskip = np.int64(4)
    ref.frameskip = 4
    ref.repeat_action_probability = float(np.float32(0.333333))
    assert type(e.frameskip) is int
    # The rest are read-only: the consoles, buffers and reloads were made from them.
    for name, value in [("num_envs", 7), ("mode", 5), ("difficulty", 1), ("seeds", np.zeros(2)), ("render", False),
                        ("sound", True), ("game", "pong"), ("full_action_space", True), ("device", "cpu"),
                        ("screen_shape", (250, 160))]:
        old = getattr(e, name)
        with pytest.raises(AttributeError, match=f"cule.Atari.{name} is fixed"):
            setattr(e, name, value)
        assert np.array_equal(getattr(e, name), old) if name == "seeds" else getattr(e, name) == old
    assert unchanged(before, snapshot(e))
    start = e.frame_number.clone()
    for _ in range(30):
        a = torch.tensor([1, 3])
        assert torch.equal(e.act(a), ref.act(a))
    assert torch.equal(e.ram, ref.ram) and torch.equal(e.frame_number, ref.frame_number)
    assert (e.frame_number - start).tolist() == [120, 120]   # 30 acts of frameskip 4


def test_truncate_on_loss_of_life_attribute_is_checked():
    e = cule.Atari("breakout", 1, seed=0)
    with pytest.raises(ValueError, match="truncate_on_loss_of_life"):
        e.truncate_on_loss_of_life = "yes"
    assert e.truncate_on_loss_of_life is False
    with pytest.raises(AttributeError):
        e.initial_lives = 99
    e.truncate_on_loss_of_life = True   # judged from the next act on
    assert e.initial_lives == 5 and e._params()[3] == 5
