"""ALE's settings on ``env.unwrapped.ale`` (getInt / setInt ..., loadROM, isSupportedROM)
and the float rounding of ``repeat_action_probability``, against ale-py 0.12.1 (the
golden): its ALEInterface's settings table, and its env driven with the same settings,
ROM loads and actions."""
import math
import os
import random

import gymnasium as gym
import numpy as np
import pytest

import cule
from cule.ale_settings import (DEFAULT_BOOLS, DEFAULT_FLOATS, DEFAULT_INTS, DEFAULT_STRINGS, _INTERNAL,
                               AleSettings)

ale_py = pytest.importorskip("ale_py")
gym.register_envs(ale_py)

KEYS = [*DEFAULT_INTS, *DEFAULT_FLOATS, *DEFAULT_BOOLS, *DEFAULT_STRINGS, *_INTERNAL, "foo", "tia", ""]
GETTERS = ("getInt", "getFloat", "getBool", "getString")


def same(x, y):
    return type(x) is type(y) and (x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)))


class _View:
    """AleSettings under ALEInterface's method names."""

    def __init__(self):
        self.s = AleSettings()

    def __getattr__(self, name):
        return getattr(self.s, {"getInt": "get_int", "getFloat": "get_float", "getBool": "get_bool",
                                "getString": "get_string", "setInt": "set_int", "setFloat": "set_float",
                                "setBool": "set_bool", "setString": "set_string"}[name])


def test_settings_table_matches_ale_interface():
    # Random setter calls of every type on every key (ALE's typed keys, Stella's internal
    # ones, unknown keys), each followed by every getter on every key: the same values,
    # and errors in the same places, as a fresh ALEInterface.
    strs = ["", "0", "1", "true", "True", "false", " 12abc", "-7", "0.25", "1e-07", "  -3.5e2x", "inf",
            "-Infinity", "nan", "0x1Ap-2", "+.5", "99999999999", "-99999999999999999999999", "z26", "weird"]
    values = {
        "setInt": [0, 1, -1, 5, 2**31 - 1, -2**31, True, np.int64(7), 40000, 2**31, 1.5, "3"],
        "setFloat": [0.0, 0.25, 1 / 3, 0.123456789, 1e-7, 1e300, -0.5, float("nan"), float("inf"), 1, True,
                     np.float64(0.1), 1e-45, 123456789.0, "0.5"],
        "setBool": [True, False, 1, np.bool_(True), None],
        "setString": strs + [5],
    }
    rng = random.Random(0)
    ref, ours = ale_py.ALEInterface(), _View()
    for k in KEYS:
        for g in GETTERS:
            assert same(getattr(ref, g)(k), getattr(ours, g)(k)), (k, g)
    for _ in range(1500):
        key, op = rng.choice(KEYS), rng.choice(list(values))
        value = rng.choice(values[op])
        errors = []
        for target in (ref, ours):
            try:
                getattr(target, op)(key, value)
                errors.append(None)
            except (RuntimeError, TypeError, ValueError) as e:
                errors.append(type(e))
        # ale-py: RuntimeError for a key of another type, TypeError for a value of another
        # type; cule: UnknownSetting (a RuntimeError and a ValueError) and ALETypeError (a
        # TypeError and a ValueError).
        assert errors[1] == {None: None, RuntimeError: cule.ale_settings.UnknownSetting,
                             TypeError: cule.ALETypeError}[errors[0]], (op, key, value, errors)
        for k in KEYS:
            for g in GETTERS:
                x, y = getattr(ref, g)(k), getattr(ours, g)(k)
                assert same(x, y), (op, key, value, k, g, x, y)


@pytest.mark.parametrize("value", [1 / 3, 0.123456789, 0.1, 0.9999999, 0.99999999, 1e-7, 0.25, 2 / 3])
def test_repeat_action_probability_is_stored_as_ale_stores_it(value):
    # ALE writes the float with 6 significant digits into its settings table and reads it
    # back (1/3 acts as 0.333333): cule.Atari, the vector env and the Gymnasium env use
    # that value, not the float32 of the argument.
    ale = ale_py.ALEInterface()
    ale.setFloat("repeat_action_probability", value)
    want = ale.getFloat("repeat_action_probability")
    assert cule.Atari("pong", 1, repeat_action_probability=value).repeat_action_probability == want
    venv = cule.AtariVectorEnv("pong", num_envs=1, repeat_action_probability=value)
    assert venv.repeat_action_probability == want
    venv.close()
    env = gym.make("cule/Pong-v5", repeat_action_probability=value).unwrapped
    assert env.atari.repeat_action_probability == want == env.ale.getFloat("repeat_action_probability")
    ref = gym.make("ALE/Pong-v5", repeat_action_probability=value).unwrapped
    assert ref.ale.getFloat("repeat_action_probability") == want


@pytest.mark.parametrize("env_id,kw", [("Pong-v5", {}), ("Backgammon-v5", {}), ("PongNoFrameskip-v4", {}),
                                       ("Breakout-v5", dict(repeat_action_probability=1 / 3, sound_obs=True,
                                                            max_num_frames_per_episode=321))])
def test_env_settings_match_ale_py(env_id, kw):
    # What ale-py's env sets (repeat_action_probability, max_num_frames_per_episode,
    # sound_obs, random_seed at each load, rom_file, backgammon's paddle_max) and ALE's
    # defaults for the rest, after construction and after seeded resets.
    ref = gym.make(env_id if "v4" in env_id else f"ALE/{env_id}", **kw).unwrapped
    env = gym.make(f"cule/{env_id}", **kw).unwrapped
    for seed in (None, 5, 2**31 + 7):
        ref.reset(seed=seed)
        env.reset(seed=seed)
        for k in KEYS:
            for g in GETTERS:
                x, y = getattr(ref.ale, g)(k), getattr(env.ale, g)(k)
                assert same(x, y) or (k == "random_seed" and seed is None), (seed, k, g, x, y)


def lockstep(ref, env, acts, rng, steps=None):
    """ALE acts (and env steps when `steps`) with random legal actions on both envs;
    asserts equal rewards, RAM, screens, audio, lives and frame counters throughout."""
    a, c = ref.ale, env.ale
    legal = a.getLegalActionSet()
    for t in range(acts):
        act = legal[rng.integers(len(legal))]
        if steps and t % 3 == 0:
            i = int(rng.integers(ref.action_space.n))
            r1, r2 = ref.step(i), env.step(i)
            assert r1[1:4] == r2[1:4] and r1[4] == r2[4], t
        else:
            assert a.act(act) == c.act(act), t
        assert np.array_equal(a.getRAM(), c.getRAM()), t
        assert a.getEpisodeFrameNumber() == c.getEpisodeFrameNumber() and a.getFrameNumber() == c.getFrameNumber()
        assert a.lives() == c.lives() and a.game_over() == c.game_over() and a.game_truncated() == c.game_truncated()
        if t % 10 == 0:
            assert np.array_equal(a.getScreen(), c.getScreen()), t
            assert np.array_equal(a.getAudio(), c.getAudio()), t
        if a.game_over():
            a.reset_game()
            c.reset_game()
    assert np.array_equal(a.getScreenRGB(), c.getScreenRGB())


def both(ref, env, method, *args):
    getattr(ref.ale, method)(*args)
    getattr(env.ale, method)(*args)


@pytest.mark.parametrize("settings", [
    # frame_skip, rounded sticky actions, reward clipping, truncation, a narrower paddle
    # range (pong plays with paddles)
    [("setInt", "frame_skip", 3), ("setFloat", "repeat_action_probability", 1 / 3),
     ("setInt", "reward_min", 0), ("setInt", "reward_max", 1), ("setInt", "max_num_frames_per_episode", 700),
     ("setInt", "paddle_min", 100000), ("setInt", "paddle_max", 500000)],
    # values ALE takes as their neighbours: frame_skip 0 as 1, a probability above 1 as 1,
    # a negative frame limit as none
    [("setInt", "frame_skip", 0), ("setFloat", "repeat_action_probability", 1.5),
     ("setInt", "max_num_frames_per_episode", -5), ("setInt", "random_seed", 2**31 - 1)],
    [("setFloat", "repeat_action_probability", -0.5), ("setInt", "frame_skip", 2),
     ("setInt", "reward_min", 5), ("setInt", "reward_max", -5)],
])
def test_load_rom_with_settings_matches_ale_py(settings):
    ref = gym.make("ALE/Pong-v5").unwrapped
    env = gym.make("cule/Pong-v5").unwrapped
    ref.reset(seed=3)
    env.reset(seed=3)
    for method, key, value in settings:
        both(ref, env, method, key, value)
    path = str(ale_py.roms.get_rom_path("pong"))
    both(ref, env, "loadROM", path)
    rng = np.random.default_rng(0)
    lockstep(ref, env, 900, rng, steps=True)
    # The env's seeded reset reloads with the settings too.
    ref.reset(seed=9)
    env.reset(seed=9)
    lockstep(ref, env, 300, rng, steps=True)


def test_load_rom_of_other_games_and_sound_matches_ale_py():
    # A pong env loading breakout with sound_obs and frame_skip 2 set afterwards, then
    # backgammon (its RomSettings set paddle_max, which a later load keeps), then the
    # env's seeded reset going back to its own game.
    ref = gym.make("ALE/Pong-v5").unwrapped
    env = gym.make("cule/Pong-v5").unwrapped
    ref.reset(seed=1)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    both(ref, env, "setBool", "sound_obs", True)
    both(ref, env, "setInt", "frame_skip", 2)
    both(ref, env, "setInt", "random_seed", 77)
    both(ref, env, "loadROM", str(ale_py.roms.get_rom_path("breakout")))
    assert env.ale.getMinimalActionSet() == ref.ale.getMinimalActionSet()
    assert env.ale.getString("rom_file") == ref.ale.getString("rom_file")
    lockstep(ref, env, 600, rng)
    assert env.ale.getAudio().any()
    both(ref, env, "setBool", "sound_obs", False)
    both(ref, env, "loadROM", str(ale_py.roms.get_rom_path("backgammon")))
    assert env.ale.getInt("paddle_max") == ref.ale.getInt("paddle_max") == 1000000
    lockstep(ref, env, 300, rng)
    assert not env.ale.getAudio().any()
    both(ref, env, "setInt", "frame_skip", 1)
    both(ref, env, "loadROM", str(ale_py.roms.get_rom_path("kaboom")))   # paddles up to 1000000
    lockstep(ref, env, 400, rng)
    for seed in (4, 6):
        o1, _ = ref.reset(seed=seed)
        o2, _ = env.reset(seed=seed)
        assert np.array_equal(o1, o2) and ref.ale.getScreenDims() == env.ale.getScreenDims()
        lockstep(ref, env, 200, rng, steps=True)


def test_load_rom_refuses_what_cule_cannot_load(tmp_path):
    env = gym.make("cule/Breakout-v5").unwrapped
    env.reset(seed=2)
    for _ in range(30):
        env.step(1)
    before = (env.ale.getRAM(), env.ale.getFrameNumber(), env.ale.getString("rom_file"), env.atari)
    np_state = env.np_random.bit_generator.state

    def unchanged():
        assert np.array_equal(env.ale.getRAM(), before[0]) and env.ale.getFrameNumber() == before[1]
        assert env.ale.getString("rom_file") == before[2] and env.atari is before[3]
        assert env.np_random.bit_generator.state == np_state

    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00" * 4096)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    for path, match in ((tmp_path / "missing.bin", "not found"), (junk, "not a known Atari 2600 ROM"),
                        (empty, "empty")):
        with pytest.raises(ValueError, match=match):
            env.ale.loadROM(path)
        unchanged()
    env.ale.loadROM("")   # ALE: an empty path loads the current ROM again
    assert env.ale.getFrameNumber() == 0
    # Setter errors: a key of another type (ale-py: RuntimeError), a value of another type.
    with pytest.raises(ValueError, match="does not exist or has incorrect value type"):
        env.ale.setInt("repeat_action_probability", 1)
    with pytest.raises(ValueError, match="does not exist"):
        env.ale.setBool("no_such_key", True)
    for method, value in (("setInt", 1.5), ("setInt", 2**31), ("setBool", 1), ("setString", 5), ("setFloat", "0.5")):
        with pytest.raises(TypeError, match=method):
            getattr(env.ale, method)("frame_skip" if method != "setString" else "cpu", value)
    assert env.ale.getInt("frame_skip") == 1 and env.ale.getString("cpu") == "low"


def test_is_supported_rom_matches_ale_py(tmp_path):
    ref = ale_py.ALEInterface()
    env = gym.make("cule/Pong-v5").unwrapped
    junk = tmp_path / "junk.bin"
    junk.write_bytes(os.urandom(2048))
    for game in ale_py.roms.get_all_rom_ids():   # None for the four multiplayer-only ROMs
        path = ale_py.roms.get_rom_path(game)
        assert env.ale.isSupportedROM(path) == ref.isSupportedROM(path) in (game, None), game
    assert env.ale.isSupportedROM(junk) is None and ref.isSupportedROM(junk) is None
    with pytest.raises(ValueError, match="doesn't exist"):
        env.ale.isSupportedROM(tmp_path / "missing.bin")
    env.ale.setLoggerMode(ale_py.LoggerMode.Error)


def test_load_rom_paths_and_argument_types_match_ale_py(tmp_path):
    # loadROM("") reloads the ROM loaded last (ALE's OSystem romFile), not what the
    # rom_file setting says; bytes paths load; None, non-str keys and a LoggerMode of
    # another type are TypeErrors; isSupportedROM is static, as in ale-py.
    ref = gym.make("ALE/Breakout-v5").unwrapped
    env = gym.make("cule/Breakout-v5").unwrapped
    ref.reset(seed=4)
    env.reset(seed=4)
    pong, breakout = str(ale_py.roms.get_rom_path("pong")), str(ale_py.roms.get_rom_path("breakout"))
    both(ref, env, "setString", "rom_file", pong)
    both(ref, env, "loadROM", "")
    for x in (ref, env):
        assert x.ale.lives() == 5 and x.ale.getString("rom_file") == breakout
    both(ref, env, "setString", "rom_file", "")
    both(ref, env, "loadROM", "")
    assert env.ale.getString("rom_file") == ref.ale.getString("rom_file") == breakout
    both(ref, env, "loadROM", pong.encode())
    assert env.ale.getString("rom_file") == ref.ale.getString("rom_file") == pong
    both(ref, env, "loadROM", "")   # now pong again
    assert env.ale.getMinimalActionSet() == ref.ale.getMinimalActionSet()
    lockstep(ref, env, 200, np.random.default_rng(2))
    calls = [("loadROM", None), ("loadROM", 5), ("getInt", None), ("getFloat", 3), ("getBool", b"frame_skip"),
             ("getString", 1.5), ("setLoggerMode", 7), ("setLoggerMode", -1), ("setLoggerMode", 1.0), ("setLoggerMode", np.int64(2)),
             ("setLoggerMode", "Error"), ("isSupportedROM", None)]
    for method, arg in calls:
        for x in (ref, env):
            with pytest.raises(TypeError):
                getattr(x.ale, method)(arg)
    assert type(env.ale).isSupportedROM(pong) == type(ref.ale).isSupportedROM(pong) == "pong"
    for mode in (ale_py.LoggerMode.Warning, 0, 1, 2, True):   # ale-py takes a mode's int too
        type(ref.ale).setLoggerMode(mode)
        type(env.ale).setLoggerMode(mode)
    type(ref.ale).setLoggerMode(ale_py.LoggerMode.Error)
    # cule's clear errors where ALE exits the process or never returns: a directory, and
    # a negative frame_skip (ALE keeps it in a size_t); nothing changes.
    before = (env.ale.getRAM(), env.ale.getFrameNumber(), env.atari)
    with pytest.raises(ValueError, match="is a directory"):
        env.ale.loadROM(tmp_path)
    env.ale.setInt("frame_skip", -1)
    with pytest.raises(ValueError, match="frame_skip -1 is negative"):
        env.ale.loadROM("")
    assert np.array_equal(env.ale.getRAM(), before[0]) and env.ale.getFrameNumber() == before[1]
    assert env.atari is before[2]
