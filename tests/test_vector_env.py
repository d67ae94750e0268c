"""cule.AtariVectorEnv against ale_py.vector_env.AtariVectorEnv (ale-py 0.12.1), and its API.

Parity: the same seeds and actions must give the same observations, rewards,
terminations, truncations and info (noop draws and INTER_AREA resizing included).
"""
import copy

import numpy as np
import pytest
import torch

import cule
from ale_harness import run_vector_lockstep
from cule.vector_env import AtariVectorEnv, InvalidArgument

ale_vec = pytest.importorskip("ale_py.vector_env")


def _np(x):
    return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def run_parity(game, steps, num_envs=3, seed=123, action_seed=0, **kw):
    """Steps both envs in lock step (ale_harness.run_vector_lockstep); returns the number
    of episode ends, or fails the test at the first difference."""
    err, stats = run_vector_lockstep(game, steps, num_envs, seed, action_seed, **kw)
    assert err is None, err
    return stats["episodes"]


@pytest.mark.parametrize("game", ["pong", "breakout", "space_invaders"])
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_parity_long(game, mode):
    # 2,000 agent steps (8,000 frames) per env; episodes end (and autoreset) on the way.
    ends = run_parity(game, 2000, num_envs=2, autoreset_mode=mode, seed=7 if mode == "NextStep" else 11)
    assert ends >= 1


@pytest.mark.parametrize("game,kw", [
    # Frames that run over several ALE frames (the computer thinking): screens copied
    # in the middle of one, with only the observed frames drawn (see VecEnv).
    ("tic_tac_toe_3d", dict(episodic_life=True, repeat_action_probability=0.25, autoreset_mode="SameStep")),
    ("tic_tac_toe_3d", dict(maxpool=False, frameskip=3)),
    ("video_chess", dict(max_num_frames_per_episode=2000)),
    ("breakout", dict(episodic_life=True, repeat_action_probability=0.25, autoreset_mode="SameStep")),
    ("space_invaders", dict(life_loss_info=True, maxpool=False, frameskip=3)),
    ("breakout", dict(grayscale=False, img_height=105, img_width=80, stack_num=2)),
    ("pong", dict(frameskip=1, noop_max=0, max_num_frames_per_episode=150, autoreset_mode="SameStep")),
    ("breakout", dict(full_action_space=True, img_height=210, img_width=160, use_fire_reset=False,
                      reward_clipping=False)),
    ("space_invaders", dict(episodic_life=True, max_num_frames_per_episode=700, stack_num=1, img_height=42,
                            img_width=42, noop_max=1)),
    ("pong", dict(grayscale=False, img_height=70, img_width=64, frameskip=5, repeat_action_probability=0.5)),
])
def test_parity_settings(game, kw):
    run_parity(game, 250, num_envs=2, **kw)


def test_partial_reset_and_seed_arrays_match_ale_py():
    kw = dict(num_threads=1)
    ref = ale_vec.AtariVectorEnv("breakout", 4, **kw)
    env = AtariVectorEnv("breakout", 4, **kw)
    ref.reset(seed=3)
    env.reset(seed=3)
    rng = np.random.default_rng(5)
    for t in range(60):
        act = rng.integers(0, 4, 4)
        ref.step(act)
        env.step(act)
        if t % 20 == 19:
            mask = np.array([True, False, t % 40 == 19, True])
            seeds = np.arange(100 + t, 100 + t + mask.sum())
            oa, ia = ref.reset(seed=seeds, options={"reset_mask": mask})
            oc, ic = env.reset(seed=seeds, options={"reset_mask": mask})
            np.testing.assert_array_equal(_np(oc), oa)
            for k in ia:
                np.testing.assert_array_equal(_np(ic[k]), ia[k])
            oa, ia = ref.reset(options={"reset_mask": ~mask})
            oc, ic = env.reset(options={"reset_mask": ~mask})
            np.testing.assert_array_equal(_np(oc), oa)
            for k in ia:
                np.testing.assert_array_equal(_np(ic[k]), ia[k])


@pytest.mark.parametrize("seed", [-5, -2, np.array([-1, -7, 0]), np.array([-2**31, 9, -1]), True])
def test_negative_and_bool_seeds_match_ale_py(seed):
    # ale-py 0.12.1 reseeds only the envs whose seed is >= 0 (a negative one keeps that
    # env's RNG streams, like None) and takes a bool as an int.  Sticky actions make the
    # results depend on the RNG streams.
    kw = dict(num_threads=1, repeat_action_probability=0.25)
    ref = ale_vec.AtariVectorEnv("breakout", 3, **kw)
    env = AtariVectorEnv("breakout", 3, **kw)
    rng = np.random.default_rng(8)
    acts = rng.integers(0, 4, (80, 3))
    ref.reset(seed=1)
    env.reset(seed=1)
    for a in acts[:30]:
        ref.step(a)
        env.step(a)
    oa, ia = ref.reset(seed=seed)
    oc, ic = env.reset(seed=seed)
    np.testing.assert_array_equal(_np(oc), oa)
    for a in acts[30:]:
        ra, rc = ref.step(a), env.step(a)
        for x, y in zip(rc[:4], ra[:4]):
            np.testing.assert_array_equal(_np(x), y)


def test_bool_seed_is_an_int():
    a, b = AtariVectorEnv("pong", 2, num_threads=1), AtariVectorEnv("pong", 2, num_threads=1)
    oa, _ = a.reset(seed=True)
    ob, _ = b.reset(seed=1)
    assert torch.equal(oa, ob)
    assert a.np_random_seed == b.np_random_seed == 1
    assert a.np_random.integers(1 << 30) == b.np_random.integers(1 << 30)


def test_seed_int_is_consecutive_seeds():
    a = AtariVectorEnv("pong", 3, num_threads=1)
    b = AtariVectorEnv("pong", 3, num_threads=1)
    oa, ia = a.reset(seed=40)
    ob, ib = b.reset(seed=[40, 41, 42])
    assert torch.equal(oa, ob)
    for k in ia:
        assert torch.equal(ia[k], ib[k])
    for t in range(30):
        act = torch.full((3,), t % 6)
        ra, rb = a.step(act), b.step(act)
        for x, y in zip(ra[:4], rb[:4]):
            assert torch.equal(x, y)


def test_observation_space_is_gymnasiums_batch_space_built_on_first_use():
    from gymnasium.spaces import Box
    from gymnasium.vector.utils import batch_space

    env = AtariVectorEnv("pong", 3, num_threads=1, grayscale=False, img_height=50, img_width=40)
    assert env._batched_observation_space is None   # the constructor does not build it
    space = env.observation_space
    assert space is env.observation_space
    assert space == batch_space(env.single_observation_space, 3)
    assert space.shape == (3, 4, 50, 40, 3) and space.dtype == np.uint8
    assert int(space.low.min()) == 0 and int(space.high.max()) == 255
    env.observation_space = Box(0, 1, (3, 1), np.uint8)   # assignable, as a VectorEnv's attribute
    assert env.observation_space.shape == (3, 1)
    env.close()


def test_make_vec_v5_defaults_and_info_keys():
    import gymnasium as gym

    gym.register_envs(cule)
    env = gym.make_vec("cule/Breakout-v5", num_envs=2, device="cpu", num_threads=1)
    assert isinstance(env, cule.AtariVectorEnv)
    assert env.repeat_action_probability == pytest.approx(0.25)
    assert env.frameskip == 4 and env.max_num_frames_per_episode == 108000
    assert env.single_observation_space.shape == (4, 84, 84)
    obs, info = env.reset(seed=0)
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == torch.uint8 and obs.device.type == "cpu"
    assert set(info) == {"env_id", "lives", "frame_number", "episode_frame_number"}
    obs, rew, term, trunc, info = env.step(np.zeros(2, np.int64))
    assert rew.dtype == torch.int32 and term.dtype == torch.bool and trunc.dtype == torch.bool
    assert set(info) == {"env_id", "lives", "frame_number", "episode_frame_number"}
    env.close()


def test_frameskip_one_does_not_pool_with_a_stale_frame():
    env = AtariVectorEnv("breakout", 1, frameskip=1, stack_num=1, img_height=210, img_width=160,
                         noop_max=0, num_threads=1)
    env.reset(seed=0)
    for t in range(40):
        obs, *_ = env.step([t % 4])
        np.testing.assert_array_equal(obs[0, 0].numpy(), env.atari.screen_grayscale()[0].numpy())


def test_intended_semantics_on_early_stop():
    # stale_frame_on_early_stop=False: the newest frame of the stack is the screen the
    # episode ended on (max-pooled with the frame before it, both from this step).
    env = AtariVectorEnv("breakout", 2, stack_num=1, img_height=210, img_width=160, maxpool=False,
                         episodic_life=True, stale_frame_on_early_stop=False, num_threads=1)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    ends = 0
    for t in range(400):
        obs, rew, term, trunc, info = env.step(rng.integers(0, 4, 2))
        np.testing.assert_array_equal(obs[:, 0].numpy(), env.atari.screen_grayscale().numpy())
        ends += int((term | trunc).sum())
        assert not (term & trunc).any()
    assert ends > 0


@pytest.mark.parametrize("game,steps", [("breakout", 150), ("tic_tac_toe_3d", 60)])
def test_fresh_frames_pool_the_last_two_frames_emulated(game, steps):
    # stale_frame_on_early_stop=False, max-pooled: every observation is the per-pixel
    # maximum of the screens of the step's last two frames, also when the step stops
    # early (a life lost with episodic_life).  The reference is the same env with
    # frameskip 1 and no pooling, stepped frame by frame with the same action, whose
    # observations are checked against the emulator's own screen (Atari.screen_grayscale).
    # tic_tac_toe_3d's frames that run past the instruction limit leave the next frame
    # drawing into the same buffer.
    n = 6
    kw = dict(num_threads=1, stack_num=1, img_height=210, img_width=160, episodic_life=True,
              stale_frame_on_early_stop=False, repeat_action_probability=0.25)
    a = AtariVectorEnv(game, n, frameskip=4, **kw)
    b = AtariVectorEnv(game, n, frameskip=1, maxpool=False, **kw)
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    np.testing.assert_array_equal(_np(oa), _np(ob))
    rng = np.random.default_rng(1)
    live = np.ones(n, bool)   # envs not yet past their first episode end
    early = 0
    for t in range(steps):
        act = rng.integers(0, a.single_action_space.n, n)
        oa, _, ta, ua, ia = a.step(act)
        frames = []
        emulated = np.full(n, 4)
        for k in range(4):
            ob, _, tb, ub, _ = b.step(act)
            np.testing.assert_array_equal(_np(ob)[:, 0], _np(b.atari.screen_grayscale()), err_msg=f"step {t}.{k}")
            frames.append(_np(ob)[:, 0])
            ended = (_np(tb) | _np(ub)) & (emulated == 4)
            emulated[ended] = k + 1
        for i in np.flatnonzero(live):
            e = emulated[i]
            want = frames[e - 1][i] if e == 1 else np.maximum(frames[e - 1][i], frames[e - 2][i])
            np.testing.assert_array_equal(_np(oa)[i, 0], want, err_msg=f"step {t} env {i} ({e} frames)")
            assert bool(_np(ta)[i] | _np(ua)[i]) == (e < 4 or bool(_np(tb)[i] | _np(ub)[i])), (t, i)
            if e < 4 or _np(ta)[i] or _np(ua)[i]:
                live[i] = False
                early += int(e < 4)
        if not live.any():
            break
    if game == "breakout":
        assert early >= 2   # steps that stopped before their fourth frame were compared


def test_noop_max_zero_means_no_noops():
    # FIRE is in Space Invaders' action set: one frame, then no noops; without the fire
    # reset none.  ale-py's vector env with the same arguments is the reference.
    for kw, frames in ((dict(noop_max=0), [1, 1, 1]), (dict(noop_max=0, use_fire_reset=False), [0, 0, 0])):
        env = AtariVectorEnv("space_invaders", 3, num_threads=1, **kw)
        ref = ale_vec.AtariVectorEnv("space_invaders", num_envs=3, num_threads=1, **kw)
        _, info = env.reset(seed=9)
        _, ref_info = ref.reset(seed=9)
        assert info["episode_frame_number"].tolist() == ref_info["episode_frame_number"].tolist() == frames
        ref.close()


def test_resize_matches_opencv():
    """Golden values: OpenCV's cv2.resize INTER_AREA.  Both the SIMD path (four source
    rows at a time) and the portable one-row path; heights and widths that leave a
    short last group of rows or a tail of columns; random, all-255 and 0/255 images
    (saturation, ties in rounding)."""
    cv2 = pytest.importorskip("cv2")
    from cule import _vector

    rng = np.random.default_rng(0)
    for sh, sw in ((210, 160), (250, 160), (211, 161), (17, 33), (5, 16)):
        for cn in (1, 3):
            for dh, dw in [(84, 84), (105, 80), (42, 42), (70, 64), (100, 100), (210, 84), (1, 1), (7, 3),
                           (13, 9), (3, 2)]:
                if dh > sh or dw > sw:
                    continue
                for kind in ("random", "255", "0/255"):
                    if kind == "random":
                        img = rng.integers(0, 256, (sh, sw, cn), dtype=np.uint8)
                    elif kind == "255":
                        img = np.full((sh, sw, cn), 255, np.uint8)
                    else:
                        img = (rng.integers(0, 2, (sh, sw, cn)) * 255).astype(np.uint8)
                    ref = cv2.resize(img if cn == 3 else img[:, :, 0], (dw, dh), interpolation=cv2.INTER_AREA)
                    for reference in (False, True):
                        out = _vector.resize_area(img, sh, sw, cn, dh, dw, reference)
                        np.testing.assert_array_equal(
                            out.reshape(ref.shape), ref,
                            err_msg=f"{sh}x{sw}x{cn} -> {dh}x{dw}, {kind}, reference path {reference}")


def test_resize_rejects_empty_sizes():
    from cule import _vector

    for sh, sw, cn, dh, dw in [(210, 160, 1, 0, 84), (210, 160, 1, 84, 0), (210, 160, 0, 84, 84),
                               (0, 160, 1, 84, 84)]:
        img = np.zeros(sh * sw * cn, np.uint8)
        for reference in (False, True):
            with pytest.raises(ValueError, match=">= 1"):
                _vector.resize_area(img, sh, sw, cn, dh, dw, reference)


# ---- bad input ----

def test_bad_constructor_arguments():
    with pytest.raises(TypeError):
        AtariVectorEnv("pong", 2, no_such_option=1)
    for kw in [dict(stack_num=0), dict(stack_num=2.5), dict(img_height=0), dict(img_width=161),
               dict(img_height=300), dict(frameskip=0), dict(frameskip=(2, 5)), dict(noop_max=-1),
               dict(repeat_action_probability=1.5), dict(max_num_frames_per_episode=0),
               dict(batch_size=3), dict(autoreset_mode="Disabled"), dict(autoreset_mode="bogus"),
               dict(continuous_action_threshold="x"), dict(grayscale="yes")]:
        with pytest.raises(ValueError):
            AtariVectorEnv("pong", 2, **kw)
    if not cule.cuda_atari.cuda_available():
        with pytest.raises(ValueError, match="not available"):
            AtariVectorEnv("pong", 2, device="cuda")
    with pytest.raises(ValueError, match="not supported"):
        AtariVectorEnv("pong", 2, device="meta")
    with pytest.raises(ValueError, match="invalid device 'tpu': use 'cpu', 'cuda' or 'cuda:N'"):
        AtariVectorEnv("pong", 2, device="tpu")
    assert AtariVectorEnv("pong", 1, device=None).device == torch.device("cpu")
    # 'cpu:N' is the CPU (PyTorch puts its tensors on 'cpu'): the env takes its own
    # tensors back (it refused them: "actions are on cpu, the environment is on cpu:0")
    env = AtariVectorEnv("pong", 2, device="cpu:1")
    obs, _ = env.reset(seed=0)
    assert env.device == torch.device("cpu") and obs.device == env.device
    assert env.step(obs.new_zeros(2, dtype=torch.int64))[0].shape == obs.shape
    env.close()
    with pytest.raises(ValueError):
        AtariVectorEnv("no_such_game", 2)
    with pytest.raises(ValueError):
        AtariVectorEnv("pong", 0)
    # 64 stacks of 4,096 full-size RGB frames (about 26 TiB): refused before the native
    # side tries to allocate them.
    with pytest.raises(ValueError, match="needs at least .* GiB for its consoles, frame buffers and 4096-frame "
                                         "stacks of 210 x 160"):
        AtariVectorEnv("pong", 64, stack_num=4096, img_height=210, img_width=160, grayscale=False)


def test_integer_arguments_are_taken_as_ale_py_takes_them():
    # ale-py's bindings take anything with __index__ for an int argument (a bool, a
    # 0-d integer array or tensor) and refuse floats and strings with TypeError.
    for kw, batch in [(dict(batch_size=False), 4), (dict(batch_size=torch.tensor(2)), 2),
                      (dict(batch_size=np.array(2)), 2), (dict(noop_max=True, num_threads=True), 4)]:
        ref = ale_vec.AtariVectorEnv("pong", 4, **kw)
        env = AtariVectorEnv("pong", 4, **kw)
        assert env.batch_size == batch and type(env.batch_size) is int
        assert env.action_space == ref.action_space and env.observation_space == ref.observation_space
        ref.close()
    for kw in [dict(batch_size=2.0), dict(batch_size=torch.tensor(2.0)), dict(img_height="84"),
               dict(batch_size=np.float64(2))]:
        with pytest.raises(TypeError):
            ale_vec.AtariVectorEnv("pong", 4, **kw)
        with pytest.raises(TypeError, match="must be an integer"):
            AtariVectorEnv("pong", 4, **kw)


def test_bad_actions_raise_and_env_stays_usable():
    env = AtariVectorEnv("pong", 2, num_threads=1)
    with pytest.raises(ValueError, match="reset"):
        env.step(np.zeros(2, np.int64))
    env.reset(seed=0)
    before = env.clone_state()
    bad = [np.zeros(3, np.int64), np.zeros((2, 1), np.int64), np.zeros(2, np.float32),
           torch.zeros(2, dtype=torch.float32), np.array([0, 6]), np.array([-1, 0]),
           torch.zeros(2, dtype=torch.int64, device="meta"), np.array([True, False]), "ab"]
    for a in bad:
        with pytest.raises(ValueError):
            env.step(a)
    # None, strings and objects: a TypeError as cule.Atari.act raises, and a ValueError.
    for a, what in ((None, "got NoneType"), ("ab", "got str"), (b"ab", "got bytes"),
                    ([1, "x"], "array of <U21 \\(strings"), (np.array([1, None]), "array of object")):
        with pytest.raises(TypeError, match=what) as err:
            env.step(a)
        assert isinstance(err.value, ValueError)
    after = env.clone_state()
    assert torch.equal(before["atari"]["consoles"], after["atari"]["consoles"])
    obs, rew, term, trunc, info = env.step(torch.tensor([1, 2], dtype=torch.int32))
    assert obs.shape == (2, 4, 84, 84)
    with pytest.raises(ValueError, match="at most 2147483646 for 2 envs"):
        env.reset(seed=2**31 - 1)      # env 1 would be seeded 2**31
    with pytest.raises(ValueError, match="at most"):
        env.reset(seed=np.array([5, 2**31]))
    with pytest.raises(TypeError, match="seed dtype float64"):
        env.reset(seed=np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="action 9223372036854775809 is outside"):   # not wrapped to int64
        env.step(np.array([0, 2**63 + 1], np.uint64))
    with pytest.raises(ValueError):
        env.reset(seed=np.array([1, 2, 3]))
    with pytest.raises(TypeError):
        env.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.array([True])})
    env.reset(options={"reset_mask": np.array([True, False])})
    env.step([0, 0])


def test_first_reset_must_be_full():
    env = AtariVectorEnv("pong", 2, num_threads=1)
    with pytest.raises(ValueError, match="first reset"):
        env.reset(options={"reset_mask": np.array([True, False])})
    env.reset()


def test_vector_env_clone_restore():
    env = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, num_threads=1)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(rng.integers(0, 4, 2))
    state = env.clone_state()
    acts = [rng.integers(0, 4, 2) for _ in range(50)]
    first = [env.step(a) for a in acts]
    env.restore_state(state)
    second = [env.step(a) for a in acts]
    for x, y in zip(first, second):
        for u, v in zip(x[:4], y[:4]):
            assert torch.equal(u, v)


def test_vector_env_restore_rejects_corrupt_states():
    # A slot's counters (the frame-stack index among them) or a console changed by one
    # byte, or a snapshot of another game: InvalidArgument, and the env goes on as before.
    env = AtariVectorEnv("breakout", 2, num_threads=1)
    env.reset(seed=2)
    state = env.clone_state()
    for part, key in (("slots", None), (None, "consoles")):
        bad = copy.deepcopy(state)
        if part:
            bad["vector"][part][0, 5] ^= 0x40
        else:
            bad["atari"][key][1, 300] ^= 0x40
        with pytest.raises(InvalidArgument, match="do not match their digest"):
            env.restore_state(bad)
    with pytest.raises(InvalidArgument, match="missing slots_digest"):
        env.restore_state({k: v for k, v in state.items() if k != "slots_digest"})
    with pytest.raises(InvalidArgument, match="'pong'"):
        env.restore_state(AtariVectorEnv("pong", 2, num_threads=1).clone_state())
    # Settings that leave every buffer the same size are caught by the snapshot's own.
    for kw, what in ((dict(frameskip=3), "frameskip=3 \\(this env: 4\\)"),
                     (dict(reward_clipping=False, episodic_life=True), "episodic_life=True.*reward_clipping=False"),
                     (dict(noop_max=5), "noop_max=5"), (dict(repeat_action_probability=0.5), "repeat_action"),
                     (dict(autoreset_mode="SameStep"), "same_step_autoreset=True")):
        other = AtariVectorEnv("breakout", 2, num_threads=1, **kw)
        other.reset(seed=2)
        with pytest.raises(InvalidArgument, match=what):
            env.restore_state(other.clone_state())
    # A snapshot saved before snapshots carried their settings still restores.
    fresh = AtariVectorEnv("breakout", 2, num_threads=1)
    fresh.restore_state({k: v for k, v in state.items() if k != "settings"})
    fresh = AtariVectorEnv("breakout", 2, num_threads=1)
    fresh.restore_state(state)
    for a in ([1, 2], [3, 0], [1, 1]):
        for x, y in zip(env.step(np.array(a))[:4], fresh.step(np.array(a))[:4]):
            assert torch.equal(x, y)


def test_results_do_not_depend_on_thread_count():
    envs = [AtariVectorEnv("space_invaders", 5, num_threads=t, repeat_action_probability=0.25) for t in (1, 2)]
    outs = [e.reset(seed=21)[0] for e in envs]
    assert torch.equal(outs[0], outs[1])
    rng = np.random.default_rng(2)
    for _ in range(150):
        act = rng.integers(0, 6, 5)
        ra, rb = envs[0].step(act), envs[1].step(act)
        for x, y in zip(ra[:4], rb[:4]):
            assert torch.equal(x, y)
        for k in ra[4]:
            assert torch.equal(ra[4][k], rb[4][k])


@pytest.mark.parametrize("game", cule.list_games())
def test_parity_every_supported_game(game):
    run_parity(game, 100, num_envs=2, autoreset_mode="SameStep", episodic_life=True,
               repeat_action_probability=0.25)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_async_batches_match_single_threaded_ale_py(mode):
    # batch_size < num_envs: ale-py with one worker thread completes envs first-in
    # first-out, the order cule uses, so every batch (env ids included) must match.
    kw = dict(num_threads=1, batch_size=2, autoreset_mode=mode, episodic_life=True)
    ref = ale_vec.AtariVectorEnv("breakout", 5, **kw)
    env = AtariVectorEnv("breakout", 5, **kw)
    assert env.observation_space.shape == ref.observation_space.shape == (2, 4, 84, 84)
    assert env.observation_space == ref.observation_space and env.action_space == ref.action_space
    oa, ia = ref.reset(seed=4)
    oc, ic = env.reset(seed=4)
    np.testing.assert_array_equal(_np(oc), oa)
    for k in ia:
        np.testing.assert_array_equal(_np(ic[k]), ia[k])
    rng = np.random.default_rng(3)
    ends = 0
    for t in range(300):
        act = rng.integers(0, 4, 2)
        ra, rc = ref.step(act), env.step(act)
        for name, a, c in zip(("obs", "reward", "terminated", "truncated"), ra[:4], rc[:4]):
            np.testing.assert_array_equal(_np(c), a, err_msg=f"step {t}: {name}")
        assert set(rc[4]) == set(ra[4])
        for k in ra[4]:
            if k != "final_obs":
                np.testing.assert_array_equal(_np(rc[4][k]), ra[4][k], err_msg=f"step {t}: {k}")
        ends += int((ra[2] | ra[3]).sum())
    assert ends > 0
    with pytest.raises(ValueError):
        env.step(np.zeros(5, np.int64))
    with pytest.raises(ValueError, match="asynchronous"):
        env.reset(options={"reset_mask": np.array([True, False, False, False, False])})


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("after_send", [False, True])
def test_async_reset_mid_run_matches_single_threaded_ale_py(mode, after_send):
    # A full reset() in asynchronous mode while results wait: ale-py's one worker runs
    # its queue in order, so the results still waiting (and those of actions sent and
    # not received) are handed out before the reset's, and an env can then have two
    # results waiting (its step's and its reset's).  ale-py sets an env's action when it is sent, so once an env has two steps waiting
    # its first may run with the second's action, as the thread timing falls: results
    # are compared in full up to then (the reset's batch and three steps), and the
    # order of the envs handed out throughout.  (One reset per run: ale-py's action
    # queue, a ring of 2 * num_envs entries, overflows after a second.)
    kw = dict(num_threads=1, batch_size=2, autoreset_mode=mode, repeat_action_probability=0.25)
    ref = ale_vec.AtariVectorEnv("breakout", 5, **kw)
    env = AtariVectorEnv("breakout", 5, **kw)
    rng = np.random.default_rng(7)

    def same(ra, rc, what):
        for a, c in zip(ra[:-1], rc[:-1]):
            np.testing.assert_array_equal(_np(c), a, err_msg=what)
        assert set(rc[-1]) == set(ra[-1]), what
        for k in ra[-1]:
            np.testing.assert_array_equal(_np(rc[-1][k]), ra[-1][k], err_msg=f"{what}: {k}")

    same(ref.reset(seed=4), env.reset(seed=4), "reset")
    for t in range(90):
        act = rng.integers(0, 4, 2)
        if t == 30:
            if after_send:
                # Those steps run before the reset, their results handed out before its.
                ref.send(act)
                env.send(act)
            ra, rc = ref.reset(seed=40), env.reset(seed=40)
            same(ra, rc, f"reset at {t}")
            # 60 results handed out in turn, envs 0, 1 last: 2, 3 have waited longest.
            assert ra[1]["env_id"].tolist() == [2, 3]
        else:
            ra, rc = ref.step(act), env.step(act)
            if 30 < t <= 33:
                same(ra, rc, f"step {t}")
        assert rc[-1]["env_id"].tolist() == ra[-1]["env_id"].tolist(), f"step {t}"


def test_async_recv_without_send_hands_out_the_waiting_results_as_ale_py():
    # After a reset, num_envs - batch_size results wait: ale-py's recv() hands out the
    # next batch_size of them without a send (with fewer waiting it would block).
    kw = dict(num_threads=1, batch_size=2)
    ref = ale_vec.AtariVectorEnv("breakout", 6, **kw)
    env = AtariVectorEnv("breakout", 6, **kw)
    ref.reset(seed=3)
    env.reset(seed=3)
    for ids in ([2, 3], [4, 5]):
        ra, rc = ref.recv(), env.recv()
        assert rc[4]["env_id"].tolist() == ra[4]["env_id"].tolist() == ids
        for a, c in zip(ra[:4], rc[:4]):
            np.testing.assert_array_equal(_np(c), a)
        for k in ra[4]:
            np.testing.assert_array_equal(_np(rc[4][k]), ra[4][k])
    ra, rc = ref.step(np.array([1, 2])), env.step(np.array([1, 2]))   # envs 4, 5 stepped
    assert rc[4]["env_id"].tolist() == ra[4]["env_id"].tolist() == [4, 5]
    np.testing.assert_array_equal(_np(rc[0]), ra[0])
    ref.close()
    with pytest.raises(ValueError, match="without a preceding send"):
        env.recv()                                        # nothing waits (ale-py: blocks)


@pytest.mark.parametrize("batch_size", [None, 2])
def test_a_second_send_before_recv_is_refused_and_loses_nothing(batch_size):
    # ale-py queues a second send's actions behind the first's; cule refuses it with a
    # clear error, and the first send's actions stay queued for recv().
    kw = dict(num_threads=1) if batch_size is None else dict(num_threads=1, batch_size=batch_size)
    env, twin = AtariVectorEnv("breakout", 4, **kw), AtariVectorEnv("breakout", 4, **kw)
    env.reset(seed=5)
    twin.reset(seed=5)
    k = env.batch_size
    env.send(np.full(k, 1))
    for again in (lambda: env.send(np.full(k, 2)), lambda: env.step(np.full(k, 3))):
        with pytest.raises(ValueError, match="already called"):
            again()
    for t in range(20):
        act = np.full(k, 1) if t == 0 else np.full(k, t % 4)
        ra = twin.step(act)
        rc = env.recv() if t == 0 else env.step(act)
        for a, c in zip(ra[:4], rc[:4]):
            assert torch.equal(a, c), f"step {t}"
        assert torch.equal(ra[4]["env_id"], rc[4]["env_id"])


@pytest.mark.parametrize("game,p", [("pong", 0.0), ("breakout", 0.25), ("space_invaders", 0.25)])
def test_continuous_actions_match_ale_py(game, p):
    # (radius, theta, fire) rows; on paddle games (pong, breakout) the radius is the
    # paddle strength, which sticks with the action.
    kw = dict(continuous=True, num_threads=1, repeat_action_probability=p)
    ref = ale_vec.AtariVectorEnv(game, 2, **kw)
    env = AtariVectorEnv(game, 2, **kw)
    assert env.single_action_space == ref.single_action_space
    oa, _ = ref.reset(seed=3)
    oc, _ = env.reset(seed=3)
    np.testing.assert_array_equal(_np(oc), oa)
    rng = np.random.default_rng(0)
    for t in range(200):
        act = np.stack([rng.random(2), rng.uniform(-np.pi, np.pi, 2), rng.random(2)], 1).astype(np.float32)
        ra, rc = ref.step(act), env.step(act)
        for name, a, c in zip(("obs", "reward", "terminated", "truncated"), ra[:4], rc[:4]):
            np.testing.assert_array_equal(_np(c), a, err_msg=f"step {t}: {name}")
    for bad in (np.zeros((2, 3), np.float64), np.zeros((2, 2), np.float32), np.full((2, 3), np.nan, np.float32)):
        with pytest.raises(ValueError):
            env.step(bad)
    for bad in (None, "ab"):
        with pytest.raises(TypeError, match=f"got {type(bad).__name__}"):
            env.step(bad)


@pytest.mark.parametrize("kw", [dict(stale_frame_on_early_stop=False),
                                dict(stale_frame_on_early_stop=False, maxpool=False, frameskip=3)])
def test_drawing_only_observed_frames_changes_nothing(kw):
    # stale_frame_on_early_stop=False has no ale-py counterpart; the emulator drawing
    # every frame (checked against ale-py above) is the reference for drawing only the
    # observed ones.  tic_tac_toe_3d's long frames exercise screens copied mid-frame.
    kw = dict(kw, num_threads=1, episodic_life=True, autoreset_mode="SameStep", repeat_action_probability=0.25)
    a = AtariVectorEnv("tic_tac_toe_3d", 2, **kw)
    b = AtariVectorEnv("tic_tac_toe_3d", 2, **kw)
    b._vec.render_observed_only = False
    oa, _ = a.reset(seed=123)
    ob, _ = b.reset(seed=123)
    np.testing.assert_array_equal(_np(oa), _np(ob))
    rng = np.random.default_rng(0)
    for t in range(300):
        act = rng.integers(0, a.single_action_space.n, 2)
        ra, rb = a.step(act), b.step(act)
        for k in range(4):
            np.testing.assert_array_equal(_np(ra[k]), _np(rb[k]), err_msg=f"step {t} field {k}")


def test_gymnasium_numpy_wrappers_over_array_conversion_match_ale_py():
    # Gymnasium's NumPy-only RecordEpisodeStatistics, on cule through ArrayConversion
    # (torch -> NumPy), reports the same episode returns and lengths as on ale-py's
    # vector env; the results are NumPy arrays with ale-py's dtypes.
    from gymnasium.wrappers.vector import ArrayConversion, RecordEpisodeStatistics

    kw = dict(num_threads=1, repeat_action_probability=0.25)
    ref = RecordEpisodeStatistics(ale_vec.AtariVectorEnv("breakout", 4, **kw))
    env = RecordEpisodeStatistics(ArrayConversion(AtariVectorEnv("breakout", 4, **kw), env_xp=torch, target_xp=np))
    oa, _ = ref.reset(seed=3)
    oc, _ = env.reset(seed=3)
    assert isinstance(oc, np.ndarray) and np.array_equal(oa, oc)
    rng = np.random.default_rng(0)
    for t in range(600):
        act = rng.integers(4, size=4)
        ra, rc = ref.step(act), env.step(act)
        for x, y in zip(ra[:4], rc[:4]):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y), t
        assert ("episode" in ra[4]) == ("episode" in rc[4]), t
        if "episode" in ra[4]:
            for k in ("r", "l"):
                assert np.array_equal(ra[4]["episode"][k], rc[4]["episode"][k]), (t, k)
            assert np.array_equal(ra[4]["_episode"], rc[4]["_episode"]), t
    assert len(env.return_queue) >= 8
    assert list(env.return_queue) == list(ref.return_queue)
    assert list(env.length_queue) == list(ref.length_queue)


def test_public_api_covers_ale_pys():
    # Every public name of ale-py 0.12.1's AtariVectorEnv, AtariEnv and ALEInterface
    # exists on cule's counterparts (xla included), so code written against ale-py finds
    # what it calls.
    import ale_py
    from ale_py.env import AtariEnv
    from cule.gym_env import AtariEnv as CuleAtariEnv

    def public(cls):
        return {name for name in dir(cls) if not name.startswith("_")}

    for ale_cls, cule_cls in ((ale_vec.AtariVectorEnv, AtariVectorEnv), (AtariEnv, CuleAtariEnv),
                              (ale_py.ALEInterface, cule.ALEInterface)):
        assert public(ale_cls) <= public(cule_cls), (cule_cls, sorted(public(ale_cls) - public(cule_cls)))
