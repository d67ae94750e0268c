"""cule/<Game>-v5 single environments and the legacy v0 / v4 ids: registration,
Gymnasium's env checker, step-for-step parity with ale_py's AtariEnv (also under
Gymnasium's AtariPreprocessing, through ``env.unwrapped.ale``), rendering and bad input."""
import numpy as np
import pytest
import torch

import gymnasium as gym

import cule
from cule.registration import rom_id_to_name

ale_py = pytest.importorskip("ale_py")
gym.register_envs(cule)
gym.register_envs(ale_py)


def test_every_game_registered_with_ale_py_v5_kwargs():
    for game in cule.list_games():
        name = rom_id_to_name(game)
        spec = gym.spec(f"cule/{name}-v5")
        ref = gym.spec(f"ALE/{name}-v5")
        assert spec.kwargs == ref.kwargs
        assert spec.entry_point == "cule.gym_env:AtariEnv"
        assert spec.vector_entry_point == "cule.vector_env:AtariVectorEnv"
        assert spec.max_episode_steps == ref.max_episode_steps


def test_legacy_ids_registered_with_ale_py_kwargs():
    # ale-py 0.12.1 registers <Game>[NoFrameskip]-v0 / -v4 for 62 games, with no vector
    # entry point; cule registers the same ids under cule/ with the same kwargs.
    theirs = {k for k, s in gym.registry.items() if "/" not in k and s.entry_point == "ale_py.env:AtariEnv"}
    ours = {k[len("cule/"):] for k in gym.registry if k.startswith("cule/") and not k.endswith("-v5")}
    assert len(theirs) == 4 * 62 and ours == theirs
    for k in theirs:
        spec, ref = gym.spec(f"cule/{k}"), gym.spec(k)
        assert spec.kwargs == ref.kwargs, k
        assert spec.entry_point == "cule.gym_env:AtariEnv"
        assert spec.vector_entry_point is None and ref.vector_entry_point is None
        assert spec.max_episode_steps == ref.max_episode_steps
    assert gym.spec("cule/BreakoutNoFrameskip-v4").kwargs["frameskip"] == 1
    assert gym.spec("cule/Breakout-v0").kwargs["frameskip"] == (2, 5)


def test_check_env():
    from gymnasium.utils.env_checker import check_env

    for obs_type in ("rgb", "grayscale", "ram"):
        env = gym.make("cule/Pong-v5", obs_type=obs_type, render_mode="rgb_array")
        check_env(env.unwrapped, skip_render_check=False)
        env.close()


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def run_single_parity(env_id, steps, seeds, **kw):
    ref = gym.make(f"ALE/{env_id}" if env_id.endswith("-v5") else env_id, **kw)
    env = gym.make(f"cule/{env_id}", **kw)
    assert env.observation_space == ref.observation_space
    assert env.action_space == ref.action_space
    assert env.unwrapped.get_action_meanings() == ref.unwrapped.get_action_meanings()
    rng = np.random.default_rng(1)
    ends = 0
    for seed in seeds:
        oa, ia = ref.reset(seed=seed)
        oc, ic = env.reset(seed=seed)
        assert _same(oa, oc)
        assert set(ia) == set(ic)
        for k in ia:
            assert _same(ia[k], ic[k]), (k, ia[k], ic[k])
        for t in range(steps):
            act = int(rng.integers(ref.action_space.n))
            ra, rc = ref.step(act), env.step(act)
            for name, x, y in zip(("obs", "reward", "terminated", "truncated"), ra[:4], rc[:4]):
                assert _same(x, y), (seed, t, name)
            assert set(ra[4]) == set(rc[4])
            for k in ra[4]:
                assert _same(ra[4][k], rc[4][k]), (seed, t, k)
            if ra[2] or ra[3]:
                ends += 1
                break
    ref.close()
    env.close()
    return ends


@pytest.mark.parametrize("env_id,kw", [
    ("Pong-v5", {}),
    ("Breakout-v5", dict(obs_type="grayscale", frameskip=(2, 5), mode=4, difficulty=1)),
    ("SpaceInvaders-v5", dict(obs_type="ram", full_action_space=True, max_num_frames_per_episode=1200,
                              repeat_action_probability=0.5)),
    ("Breakout-v5", dict(frameskip=1, repeat_action_probability=0.0)),
    ("BreakoutNoFrameskip-v4", {}),
    ("SpaceInvaders-v0", {}),     # frameskip drawn from [2, 5) with the env's np_random
    # Games whose mode selection in reset_game acts (ALE's act, at ALE's own frame_skip
    # of 1, not the env's frameskip): resets after steps.
    ("Berzerk-v5", {}),
    ("DoubleDunk-v5", dict(obs_type="ram")),
    ("Adventure-v5", dict(obs_type="ram", max_num_frames_per_episode=400)),
    ("VideoCube-v5", dict(obs_type="ram", max_num_frames_per_episode=400, mode=1)),
])
def test_step_parity_with_ale_py(env_id, kw):
    # Seeded resets reload the ROM (ale seed from SeedSequence); None continues; a seed
    # >= 2**31 checks the int32 wrap of the ALE seed.
    run_single_parity(env_id, 300, [5, None, 2**31 + 7], **kw)


@pytest.mark.parametrize("env_id,kw,make_kw,min_ends", [
    ("BreakoutNoFrameskip-v4", dict(terminal_on_life_loss=True), {}, 5),
    # (pong's games outlast the run: episodes are truncated at 800 frames instead)
    ("Pong-v0", dict(frame_skip=1, grayscale_obs=False, screen_size=64, noop_max=5),
     dict(max_num_frames_per_episode=800), 2),
])
def test_atari_preprocessing_matches_ale_py(env_id, kw, make_kw, min_ends):
    # Gymnasium's AtariPreprocessing (noop starts, frame skip, max-pool, resize, life-loss
    # terminals) reads screens and lives through env.unwrapped.ale: same observations,
    # rewards and flags as over ale-py's env, across episodes.
    envs = [gym.wrappers.FrameStackObservation(
        gym.wrappers.AtariPreprocessing(gym.make(p + env_id, **make_kw), **kw), 4) for p in ("", "cule/")]
    ends = run_wrapped_pair(*envs, steps=700, seed=3)
    assert ends >= min_ends


def run_wrapped_pair(ref, env, steps, seed):
    """Steps a wrapped ale-py env and the same wrappers over cule with the same random
    actions; observations, rewards, flags and info must be equal at every step and reset.
    Returns the number of episodes ended."""
    rng = np.random.default_rng(0)
    (oa, ia), (oc, ic) = ref.reset(seed=seed), env.reset(seed=seed)
    assert np.array_equal(oa, oc) and ia == ic
    ends = 0
    for t in range(steps):
        act = int(rng.integers(ref.action_space.n))
        ra, rc = ref.step(act), env.step(act)
        assert np.array_equal(ra[0], rc[0]) and ra[1:] == rc[1:], (t, ra[1:], rc[1:])
        if ra[2] or ra[3]:
            ends += 1
            (oa, ia), (oc, ic) = ref.reset(), env.reset()
            assert np.array_equal(oa, oc) and ia == ic
    ref.close()
    env.close()
    return ends


def test_stable_baselines3_atari_wrapper_matches_ale_py():
    # Stable-Baselines3's AtariWrapper (noop and fire resets, episodic life through
    # env.unwrapped.ale.lives(), max-and-skip, reward clipping, 84x84 warp) over cule and
    # over ale-py.  SB3 is not a dependency: skipped where it is not installed.
    atari_wrappers = pytest.importorskip("stable_baselines3.common.atari_wrappers")
    envs = [atari_wrappers.AtariWrapper(gym.make(p + "BreakoutNoFrameskip-v4")) for p in ("", "cule/")]
    assert run_wrapped_pair(*envs, steps=800, seed=2) >= 5


def test_ale_view_answers_like_ale_interface():
    ref = gym.make("ALE/Breakout-v5", max_num_frames_per_episode=300).unwrapped
    env = gym.make("cule/Breakout-v5", max_num_frames_per_episode=300).unwrapped
    ref.reset(seed=1)
    env.reset(seed=1)
    rng = np.random.default_rng(2)

    def same():
        a, c = ref.ale, env.ale
        assert c.lives() == a.lives() and type(c.lives()) is int
        assert c.game_over() == a.game_over() and c.game_over(False) == a.game_over(with_truncation=False)
        assert c.game_truncated() == a.game_truncated()
        assert c.getEpisodeFrameNumber() == a.getEpisodeFrameNumber()
        assert c.getFrameNumber() == a.getFrameNumber()
        assert c.getScreenDims() == a.getScreenDims()
        for name in ("getRAM", "getScreen", "getScreenRGB", "getScreenGrayscale"):
            x, y = getattr(a, name)(), getattr(c, name)()
            assert x.dtype == y.dtype and np.array_equal(x, y), name
            buf = np.zeros_like(x)
            assert getattr(c, name)(buffer=buf) is None and np.array_equal(buf, x), name
            t = torch.zeros(x.shape, dtype=torch.uint8)
            assert getattr(c, name)(t) is None and np.array_equal(t.numpy(), x), name

    same()
    for _ in range(120):
        act = int(rng.integers(4))
        ref.step(act)
        env.step(act)
        same()
    assert env.ale.game_over() and not env.ale.game_over(with_truncation=False)   # truncated at 300 frames
    for bad in (np.zeros((210, 160), np.int32), np.zeros((210, 159), np.uint8), [0] * 128,
                torch.zeros((210, 160), dtype=torch.int16)):
        with pytest.raises(ValueError, match="buffer must be a uint8"):
            env.ale.getScreenGrayscale(bad)
    ro = np.zeros((210, 160), np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        env.ale.getScreenGrayscale(ro)


@pytest.mark.parametrize("env_id,kw", [("Breakout-v5", {}), ("Pong-v5", dict(continuous=True)),
                                       ("MsPacman-v5", dict(mode=2))])
def test_ale_view_act_and_game_facts_match_ale_interface(env_id, kw):
    # ALEInterface.act frame by frame (ALE action ids, some with paddle strengths below
    # 1), cloneState / restoreState, the action sets, modes and difficulties.
    ref = gym.make(f"ALE/{env_id}", **kw).unwrapped
    env = gym.make(f"cule/{env_id}", **kw).unwrapped
    ref.reset(seed=1)
    env.reset(seed=1)
    a, c = ref.ale, env.ale
    assert a.getMinimalActionSet() == c.getMinimalActionSet() and a.getLegalActionSet() == c.getLegalActionSet()
    assert a.getAvailableModes() == c.getAvailableModes()
    assert a.getAvailableDifficulties() == c.getAvailableDifficulties()
    assert a.getRAMSize() == c.getRAMSize() == 128
    rng = np.random.default_rng(0)
    legal = a.getLegalActionSet()
    for t in range(1200):
        act = legal[rng.integers(len(legal))]
        s = float(rng.uniform(-1, 1)) if rng.random() < 0.3 else 1.0
        ra, rc = a.act(act, s), c.act(act if t % 2 else int(act.value), s)
        assert ra == rc and type(rc) is int, t
        if t % 50 == 0:
            assert np.array_equal(a.getScreen(), c.getScreen()) and np.array_equal(a.getRAM(), c.getRAM()), t
        if a.game_over():
            ref.reset()
            env.reset()
        if t == 500:
            states = a.cloneState(), c.cloneState()
        if t == 800:
            a.restoreState(states[0])
            c.restoreState(states[1])
    assert np.array_equal(a.getScreenRGB(), c.getScreenRGB()) and a.getFrameNumber() == c.getFrameNumber()
    for bad in (18, -1, 1.0, "FIRE", None):   # (a bool is an int, as in ale-py)
        with pytest.raises(ValueError, match="action"):
            c.act(bad)
    with pytest.raises(ValueError, match="paddle_strength"):
        c.act(0, 1.5)


@pytest.mark.parametrize("env_id,mode_addr", [("Pong-v5", 0x16), ("Breakout-v5", 0x32), ("Kaboom-v5", None)])
def test_ale_view_setters_match_ale_interface(env_id, mode_addr, tmp_path):
    # setRAM at random points, setDifficulty mid-episode (the switches move at the next
    # frame), setMode (selected at the next reset_game, dropped by a reload) and
    # cloneSystemState / restoreSystemState, against ale-py's env step for step.
    ref = gym.make(f"ALE/{env_id}", max_num_frames_per_episode=2000).unwrapped
    env = gym.make(f"cule/{env_id}", max_num_frames_per_episode=2000).unwrapped
    ref.reset(seed=4)
    env.reset(seed=4)
    a, c = ref.ale, env.ale
    rng = np.random.default_rng(1)
    modes, diffs = a.getAvailableModes(), a.getAvailableDifficulties()
    poked = 0
    for t in range(700):
        if t % 23 == 7:
            i, v = int(rng.integers(128)), int(rng.integers(256))
            a.setRAM(i, v)
            c.setRAM(i, v)
            assert c.getRAM()[i] == v and np.array_equal(a.getRAM(), c.getRAM()), t
            poked += 1
        if t == 60:
            a.setDifficulty(diffs[-1])
            c.setDifficulty(diffs[-1])
        if t == 150:
            a.setMode(modes[-1])
            c.setMode(modes[-1])
        if t == 300:
            states = a.cloneSystemState(), c.cloneSystemState()
        if t == 400:
            a.restoreSystemState(states[0])
            c.restoreSystemState(states[1])
        act = int(rng.integers(ref.action_space.n))
        ra, rc = ref.step(act), env.step(act)
        assert np.array_equal(ra[0], rc[0]) and ra[1:] == rc[1:], t
        assert np.array_equal(a.getRAM(), c.getRAM()), t
        if t in (200, 500) or ra[2] or ra[3]:
            oa, ia = ref.reset(seed=9) if t == 500 else ref.reset()
            oc, ic = env.reset(seed=9) if t == 500 else env.reset()
            assert np.array_equal(oa, oc) and ia == ic, t
            if mode_addr is not None:
                # Pong's and Breakout's mode bytes (ALE 0.12.1 RomSettings): the set mode
                # after the reset at step 200, the default again after the reload at 500.
                want = modes[-1] if t < 500 else ref.unwrapped.ale.getAvailableModes()[0]
                assert a.getRAM()[mode_addr] == c.getRAM()[mode_addr] == want, t
    assert poked > 20
    a.saveScreenPNG(str(tmp_path / "ale.png"))
    c.saveScreenPNG(tmp_path / "cule.png")
    import imageio.v3 as iio

    assert np.array_equal(iio.imread(tmp_path / "ale.png"), iio.imread(tmp_path / "cule.png"))
    for bad in (-1, 128, 1.0, None):   # (a bool is an int, as in ale-py)
        with pytest.raises(ValueError, match="index"):
            c.setRAM(bad, 0)
    for bad in (-1, 256, 1.5):
        with pytest.raises(ValueError, match="value"):
            c.setRAM(0, bad)
    before = c.getRAM().copy()
    with pytest.raises(ValueError, match="mode"):
        c.setMode(max(modes) + 1)
    with pytest.raises(ValueError, match="difficulty"):
        c.setDifficulty(max(diffs) + 1)
    assert np.array_equal(c.getRAM(), before)


def test_render_rgb_array_and_video_wrappers(tmp_path):
    env = gym.make("cule/Breakout-v5", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (210, 160, 3) and frame.dtype == np.uint8
    env = gym.wrappers.RenderCollection(env)
    env.reset(seed=0)
    for _ in range(5):
        env.step(0)
    frames = env.render()
    assert len(frames) == 6 and frames[-1].shape == (210, 160, 3)


def test_record_video_wrapper_writes_a_video(tmp_path):
    # Gymnasium's RecordVideo needs moviepy (in the test extra).
    pytest.importorskip("moviepy")
    env = gym.wrappers.RecordVideo(gym.make("cule/Pong-v5", render_mode="rgb_array"), str(tmp_path),
                                   episode_trigger=lambda e: True)
    env.reset(seed=0)
    for _ in range(20):
        env.step(0)
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_render_without_mode_raises():
    env = gym.make("cule/Pong-v5")
    env.reset(seed=0)
    with pytest.raises(gym.error.Error):
        env.unwrapped.render()


def test_bad_arguments_and_actions():
    for kw in [dict(obs_type="depth"), dict(frameskip=0), dict(frameskip=(5, 2)), dict(frameskip=2.0),
               dict(render_mode="ansi"), dict(mode=3), dict(difficulty=9), dict(sound_obs=1),
               dict(max_num_frames_per_episode=1.5)]:
        with pytest.raises(gym.error.Error):
            cule.AtariEnv("pong", **kw)
    # A negative frame limit is ALE's "none", as with ale-py's env (its setInt stores it).
    ref = pytest.importorskip("ale_py").env.AtariEnv("pong", max_num_frames_per_episode=-1, frameskip=50)
    ours = cule.AtariEnv("pong", max_num_frames_per_episode=-1, frameskip=50)
    for e in (ref, ours):
        e.reset(seed=1)
        assert e.ale.getInt("max_num_frames_per_episode") == -1
        assert not any(e.step(0)[3] for _ in range(3))   # 150 frames
    with pytest.raises(TypeError):
        cule.AtariEnv("pong", not_an_option=True)
    env = cule.AtariEnv("pong")
    env.reset(seed=0)
    for a in (6, -1, 1.5, "x", np.array([1, 2])):
        with pytest.raises(ValueError):
            env.step(a)
    obs, rew, term, trunc, info = env.step(np.int64(3))
    assert obs.shape == (210, 160, 3)


def test_record_video_example_writes_a_grid(tmp_path):
    pytest.importorskip("imageio")
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "examples", "record_video.py")
    spec = importlib.util.spec_from_file_location("record_video", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.record("pong", 3, 4, str(tmp_path / "grid.gif"))
    from PIL import Image

    im = Image.open(out)
    assert im.size == (320, 420) and im.n_frames == 5
    # 15 frames/s: GIF's 10 ms steps, kept on time (70, 60, 70, 70, 60 ms).
    times = []
    for i in range(im.n_frames):
        im.seek(i)
        times.append(im.info["duration"])
    assert sum(times) == 330 and set(times) <= {60, 70}


@pytest.mark.parametrize("script,out,message", [
    ("record_video.py", "grid.avi", "write a .gif or an .mp4"),
    ("record_video.py", "no_such_dir/grid.gif", "no such directory"),
    ("random_rollout.py", "no_such_dir/grid.png", "no such directory"),
    ("random_rollout.py", "grid.notanimage", "Pillow cannot write that file type"),
    ("random_rollout.py", "", "is a directory"),
    ("record_video.py", "", "is a directory"),
    # A folder where no file can be made (Linux's /proc; a read-only folder alike).
    ("random_rollout.py", "/proc/grid.png", "cannot write in /proc"),
    ("record_video.py", "/proc/grid.gif", "cannot write in /proc"),
    # A GIF cannot play faster than 50 frames/s.
    ("record_video.py", "grid.gif --fps 60", "a GIF plays at most 50 frames/s"),
])
def test_examples_refuse_an_unwritable_out_before_running(script, out, message, tmp_path):
    import os
    import subprocess
    import sys

    if out.startswith("/proc") and not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux's /proc")
    out, *more = out.split(" ")
    path = os.path.join(os.path.dirname(__file__), "..", "examples", script)
    proc = subprocess.run([sys.executable, path, "--out", str(tmp_path / out), *more], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("env_id,p", [("Pong-v5", 0.25), ("SpaceInvaders-v5", 0.0)])
def test_continuous_single_env_matches_ale_py(env_id, p):
    ref = gym.make(f"ALE/{env_id}", continuous=True, repeat_action_probability=p)
    env = gym.make(f"cule/{env_id}", continuous=True, repeat_action_probability=p)
    assert env.action_space == ref.action_space
    oa, _ = ref.reset(seed=5)
    oc, _ = env.reset(seed=5)
    assert np.array_equal(oa, oc)
    rng = np.random.default_rng(1)
    for t in range(200):
        act = np.array([rng.random(), rng.uniform(-np.pi, np.pi), rng.random()], np.float32)
        ra, rc = ref.step(act), env.step(act)
        assert np.array_equal(ra[0], rc[0]) and ra[1:4] == rc[1:4] and ra[4] == rc[4], t
        if ra[2] or ra[3]:
            break
    with pytest.raises(ValueError):
        env.step(np.zeros(3, np.float64))


def test_full_action_space_is_ales_legal_action_set():
    # ale-py 0.12.1: ALEInterface.getLegalActionSet for every game (9 actions, none with
    # FIRE, for skiing and lost_luggage), the Gymnasium env's and the vector env's
    # action space with full_action_space=True, and get_action_meanings /
    # get_keys_to_action (gymnasium.utils.play's mapping).
    import ale_py
    from ale_py import ALEInterface, LoggerMode, roms
    ALEInterface.setLoggerMode(LoggerMode.Error)
    short = []
    for game in cule.list_games():
        ale = ALEInterface()
        ale.loadROM(str(roms.get_rom_path(game)))
        legal = [int(a.value) for a in ale.getLegalActionSet()]
        assert cule.Atari(game, 1, full_action_space=True).action_set.tolist() == legal, game
        if len(legal) < 18:
            short.append(game)
    assert short == ["lost_luggage", "skiing"]
    gym.register_envs(ale_py)
    for game in ("skiing", "lost_luggage", "pong", "ms_pacman"):
        name = rom_id_to_name(game)
        for full in (False, True):
            ours = gym.make(f"cule/{name}-v5", full_action_space=full).unwrapped
            theirs = gym.make(f"ALE/{name}-v5", full_action_space=full).unwrapped
            assert ours.action_space == theirs.action_space, (game, full)
            assert ours.get_action_meanings() == theirs.get_action_meanings(), (game, full)
            assert ours.get_keys_to_action() == theirs.get_keys_to_action(), (game, full)
        # With continuous actions both refuse a key mapping.
        for env in (gym.make(f"cule/{name}-v5", continuous=True).unwrapped,
                    gym.make(f"ALE/{name}-v5", continuous=True).unwrapped):
            with pytest.raises(AttributeError, match="continuous=True"):
                env.get_keys_to_action()
        vec = cule.AtariVectorEnv(game, 1, full_action_space=True)
        ref = ale_py.vector_env.AtariVectorEnv(game, num_envs=1, full_action_space=True)
        assert vec.single_action_space == ref.single_action_space, game
        assert vec.get_action_set() == [int(getattr(a, "value", a)) for a in ref.ale.get_action_set()], game
        vec.close()
        ref.close()
        vec = cule.AtariVectorEnv(game, 1, continuous=True)
        ref = ale_py.vector_env.AtariVectorEnv(game, num_envs=1, continuous=True)
        assert vec.get_action_set() == [int(getattr(a, "value", a)) for a in ref.ale.get_action_set()], game
        vec.close()
        ref.close()


def test_map_action_idx_is_ale_pys():
    # ale-py 0.12.1: AtariEnv.map_action_idx (a static method giving an ale_py.Action,
    # LookupError for a position outside {-1, 0, 1}, fire by its truth value) and
    # AtariVectorEnv.map_action_idx (its table, int32 of shape (3, 3, 2)).
    import itertools

    import ale_py
    from ale_py.env import AtariEnv as Ref

    cases = list(itertools.product((-1, 0, 1, True, np.int64(-1)), (-1, 0, 1, 1.0), (False, True, 0, 2, None)))
    for h, v, f in cases:
        ours = cule.AtariEnv.map_action_idx(h, v, f)
        assert ours == Ref.map_action_idx(h, v, f) and type(ours) is ale_py.Action, (h, v, f)
    assert cule.AtariEnv.map_action_idx(1, 1, True) == ale_py.Action.UPRIGHTFIRE
    assert gym.make("cule/Pong-v5").unwrapped.map_action_idx(-1, -1, False) == ale_py.Action.DOWNLEFT
    for bad in ((2, 0, False), (0, -2, True), (0.5, 0, True), (None, 0, False), ("1", 0, True)):
        with pytest.raises(LookupError):
            Ref.map_action_idx(*bad)
        with pytest.raises(LookupError, match="Unexpected action mapping"):
            cule.AtariEnv.map_action_idx(*bad)
    for bad in ((np.array(1), 0, False), (0, 0, [1])):   # unhashable: ale-py's lru_cache refuses them
        with pytest.raises(TypeError):
            Ref.map_action_idx(*bad)
        with pytest.raises(TypeError):
            cule.AtariEnv.map_action_idx(*bad)
    vec = cule.AtariVectorEnv("pong", 1)
    ref = ale_py.vector_env.AtariVectorEnv("pong", num_envs=1)
    try:
        assert vec.map_action_idx.dtype == ref.map_action_idx.dtype == np.int32
        np.testing.assert_array_equal(vec.map_action_idx, ref.map_action_idx)
        assert vec.map_action_idx[2, 2, 1] == 14   # right, up, fire: UPRIGHTFIRE
    finally:
        vec.close()
        ref.close()


def test_bad_arguments_raise_ale_pys_exception_classes():
    # Where ale-py 0.12.1's envs raise RuntimeError, IndexError or TypeError, cule's error
    # is an instance of the same class (and an InvalidArgument, so a ValueError, too), so
    # an `except` written for ale-py catches it.
    def mode():
        gym.make(f"{ns}/Pong-v5", mode=99).reset(seed=0)

    def difficulty():
        gym.make(f"{ns}/Pong-v5", difficulty=9).reset(seed=0)

    def step_past_the_action_space():
        env = gym.make(f"{ns}/Pong-v5")
        env.reset(seed=0)
        env.step(6)

    def vector_step_before_reset():
        env = gym.make_vec(f"{ns}/Pong-v5", num_envs=2)
        try:
            env.step(np.zeros(2, dtype=np.int64))
        finally:
            env.close()

    def fractional_num_envs():
        gym.make_vec(f"{ns}/Pong-v5", num_envs=1.5)

    def typed(**kw):   # an argument of the wrong type: ale-py's bindings raise TypeError
        def call():
            gym.make(f"{ns}/Pong-v5", **kw).reset(seed=0)
        call.__name__ = f"typed{kw}"
        return call

    wrong_types = [typed(mode="1"), typed(mode=1.0), typed(difficulty="0"), typed(difficulty=0.0),
                   typed(repeat_action_probability="0.1"), typed(max_num_frames_per_episode=1.5),
                   typed(max_num_frames_per_episode="100")]
    def vector(**kw):   # the same for the vector env's arguments
        def call():
            if ns == "ALE":
                from ale_py.vector_env import AtariVectorEnv
            else:
                from cule import AtariVectorEnv
            AtariVectorEnv("pong", num_envs=2, **kw).close()
        call.__name__ = f"vector{kw}"
        return call

    def vector_seed(seed):   # a seed outside int32, or env 1's seed + 1
        def call():
            from ale_py.vector_env import AtariVectorEnv as AleVec
            env = (AleVec if ns == "ALE" else cule.AtariVectorEnv)("pong", num_envs=2)
            try:
                env.reset(seed=seed)
            finally:
                env.close()
        call.__name__ = f"vector_seed({seed})"
        return call

    def setting_of_the_wrong_type():
        import ale_py
        (ale_py.ALEInterface() if ns == "ALE" else cule.ALEInterface()).setInt("frame_skip", "2")

    wrong_types += [vector(grayscale=2), vector(full_action_space="yes"), vector(autoreset_mode=3),
                    vector(stack_num=4.0), vector_seed(2**31), vector_seed(2**31 - 1), vector_seed(-2**31 - 1),
                    typed(sound_obs=1), setting_of_the_wrong_type]
    for call in [mode, difficulty, step_past_the_action_space, vector_step_before_reset, fractional_num_envs,
                 *wrong_types]:
        ns = "ALE"
        with pytest.raises(Exception) as want:
            call()
        assert type(want.value) in (RuntimeError, IndexError, TypeError), (call.__name__, want.value)
        ns = "cule"
        with pytest.raises(type(want.value)) as got:
            call()
        assert isinstance(got.value, cule.InvalidArgument), call.__name__


def test_vector_autoreset_mode_errors_are_of_ale_pys_classes():
    # ale-py 0.12.1: ValueError for a str that names no AutoresetMode (ale_py/vector_env.py),
    # its binding's TypeError for another type; cule's error is of the same class (and an
    # InvalidArgument); a wrong str is not a TypeError.
    from ale_py.vector_env import AtariVectorEnv as AleVec
    for bad, kind in (("foo", ValueError), ("next_step", ValueError), (3, TypeError), (None, TypeError)):
        with pytest.raises(kind):
            AleVec("pong", num_envs=2, autoreset_mode=bad)
        with pytest.raises(kind) as got:
            cule.AtariVectorEnv("pong", num_envs=2, autoreset_mode=bad)
        assert isinstance(got.value, cule.InvalidArgument)
        assert isinstance(got.value, TypeError) == (kind is TypeError), bad


def test_constructor_integers_may_be_0d_arrays_and_tensors_as_in_ale_py():
    # ale-py 0.12.1's AtariEnv passes these to ALE's setInt / setMode bindings, which take
    # anything with __index__: same episode length and observations as with plain ints.
    kw = dict(mode=np.array(1), difficulty=torch.tensor(1), max_num_frames_per_episode=np.array(60),
              repeat_action_probability=0.0)
    ref, ours = gym.make("ALE/Pong-v5", **kw), gym.make("cule/Pong-v5", **kw)
    for env in (ref, ours):
        env.reset(seed=4)
    for t in range(20):
        a, b = ref.step(t % 6), ours.step(t % 6)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4], t
        if a[3]:
            break
    assert a[3] and b[4]["episode_frame_number"] == 60, (t, b[4])
    with pytest.raises(TypeError):
        gym.make("cule/Pong-v5", max_num_frames_per_episode=np.array(6.0))
    # cule refuses bools for numbers (README, Gymnasium), a bool tensor too, which
    # operator.index would take as 0 / 1
    for flag in (True, np.bool_(True), torch.tensor(True)):
        with pytest.raises(TypeError, match="max_num_frames_per_episode must be None or an integer"):
            gym.make("cule/Pong-v5", max_num_frames_per_episode=flag)


def test_random_rollout_grid_shows_the_first_64_screens_at_most(tmp_path):
    # 8 columns of 160 x 210 screens; a batch larger than 64 envs is not all drawn (a
    # grid of 100,000 screens would need gigabytes).
    import os
    import subprocess
    import sys

    from PIL import Image

    path = os.path.join(os.path.dirname(__file__), "..", "examples", "random_rollout.py")
    for envs, size in ((70, (8 * 160, 8 * 210)), (3, (3 * 160, 210))):
        out = tmp_path / f"grid{envs}.png"
        proc = subprocess.run([sys.executable, path, "--envs", str(envs), "--steps", "5", "--out", str(out)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert Image.open(out).size == size
