"""cule.AtariVectorEnv.xla() against ale-py 0.12.1's AtariVectorEnv.xla() (JAX).

The golden values are ale-py's: the same seeds and actions, run through both envs'
xla functions inside jax.jit / jax.lax.scan, must give the same handles' shapes and
every observation, reward, flag and info value.
"""
import sys

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ale_py import vector_env as ale_vec
from cule.vector_env import AtariVectorEnv, InvalidArgument


def _rollout(env, actions, seed=0):
    """reset(seed) then a jitted lax.scan over `actions` through env.xla(); returns the
    reset's (obs, info) and every step's results as NumPy arrays."""
    handle, reset, step = env.xla()
    handle, first = reset(handle, seed=seed)

    @jax.jit
    def run(h, acts):
        def body(h, a):
            h, (o, r, te, tr, info) = step(h, a)
            return h, (o, r, te, tr, info["env_id"], info["lives"], info["frame_number"],
                       info["episode_frame_number"])
        return jax.lax.scan(body, h, acts)

    handle, outs = run(handle, actions)
    return handle, jax.tree_util.tree_map(np.asarray, first), [np.asarray(x) for x in outs]


def _assert_same(a, b):
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game,kw", [
    ("breakout", {}),
    # Short episodes: truncations, and NEXT_STEP resets inside the scan.
    ("pong", {"max_num_frames_per_episode": 150, "repeat_action_probability": 0.25}),
    ("space_invaders", {"grayscale": False, "img_height": 100, "img_width": 80, "stack_num": 2}),
])
def test_jit_scan_equals_ale_py(game, kw):
    n, steps = 4, 80
    ref_env = ale_vec.AtariVectorEnv(game, n, **kw)
    env = AtariVectorEnv(game, n, **kw)
    acts = jnp.asarray(np.random.default_rng(1).integers(0, ref_env.single_action_space.n, (steps, n)),
                       dtype=jnp.int32)
    ref_h, ref_first, ref = _rollout(ref_env, acts)
    h, first, out = _rollout(env, acts)
    assert h.dtype == ref_h.dtype == jnp.uint8 and h.shape == ref_h.shape == (8,)
    _assert_same(first, ref_first)
    _assert_same(out, ref)
    if "max_num_frames_per_episode" in kw:
        assert out[3].any()   # truncations happened (and were followed by resets)
    if game == "space_invaders":
        assert out[1].any()   # rewards


def test_reset_mask_and_seed_arrays_equal_ale_py():
    # ale-py's reset with a mask or seed array needs concrete values (jnp.where), so it
    # runs outside jit here; cule's is also traced inside jit (last part).
    n = 5
    ref_env, env = ale_vec.AtariVectorEnv("breakout", n), AtariVectorEnv("breakout", n)
    (rh, rreset, rstep), (h, reset, step) = ref_env.xla(), env.xla()
    rh, r0 = rreset(rh, seed=3)
    h, c0 = reset(h, seed=3)
    _assert_same(c0, r0)
    acts = np.random.default_rng(2).integers(0, 4, (30, n)).astype(np.int32)
    for a in acts:
        rh, r = rstep(rh, a)
        h, c = step(h, a)
        _assert_same(c, r)
    mask = jnp.array([True, False, True, False, True])
    for seed in (None, 7, jnp.array([11, 12, 13], dtype=jnp.int32)):
        rh, r = rreset(rh, seed=seed, reset_mask=mask)
        h, c = reset(h, seed=seed, reset_mask=mask)
        _assert_same(c, r)
        rh, r = rstep(rh, acts[0])
        h, c = step(h, acts[0])
        _assert_same(c, r)
    # Traced: the same partial reset inside jit, against ale-py's outside.
    rh, r = rreset(rh, seed=jnp.array([21, 22, 23], dtype=jnp.int32), reset_mask=mask)
    h, c = jax.jit(lambda h, s, m: reset(h, seed=s, reset_mask=m))(h, jnp.array([21, 22, 23], dtype=jnp.int32), mask)
    _assert_same(c, r)


def test_negative_and_bool_seeds_equal_ale_py():
    # ale-py reseeds only envs whose seed is >= 0 (negative: keep the RNG streams) and
    # takes a bool as an int.  Sticky actions make the results depend on the streams.
    n = 3
    kw = {"repeat_action_probability": 0.25}
    ref_env, env = ale_vec.AtariVectorEnv("breakout", n, **kw), AtariVectorEnv("breakout", n, **kw)
    (rh, rreset, rstep), (h, reset, step) = ref_env.xla(), env.xla()
    rh, r = rreset(rh, seed=1)
    h, c = reset(h, seed=1)
    _assert_same(c, r)
    acts = np.random.default_rng(6).integers(0, 4, (25, n)).astype(np.int32)
    for seed in (-2, jnp.array([-1, 5, -9], jnp.int32), True, -2**31):
        for a in acts:
            rh, r = rstep(rh, a)
            h, c = step(h, a)
            _assert_same(c, r)
        rh, r = rreset(rh, seed=seed)
        h, c = reset(h, seed=seed)
        _assert_same(c, r)
    h, c = jax.jit(lambda h, s: reset(h, seed=s))(h, jnp.array([-3, -1, 4], jnp.int32))
    rh, r = rreset(rh, seed=jnp.array([-3, -1, 4], jnp.int32))
    _assert_same(c, r)
    for a in acts:
        rh, r = rstep(rh, a)
        h, c = step(h, a)
        _assert_same(c, r)


def test_integer_continuous_actions_equal_ale_py():
    # ale-py casts continuous actions of any dtype to float32.
    n = 2
    kw = {"continuous": True}
    ref_env, env = ale_vec.AtariVectorEnv("pong", n, **kw), AtariVectorEnv("pong", n, **kw)
    acts = jnp.asarray(np.random.default_rng(7).integers(-1, 2, (40, n, 3)), dtype=jnp.int32)
    _, ref_first, ref = _rollout(ref_env, acts, seed=2)
    _, first, out = _rollout(env, acts, seed=2)
    _assert_same(first, ref_first)
    _assert_same(out, ref)
    assert len(np.unique(out[0][:, :, -1], axis=0)) > 1   # the paddle moved


def test_continuous_actions_equal_ale_py():
    n, steps = 3, 60
    kw = {"continuous": True, "repeat_action_probability": 0.25}
    ref_env, env = ale_vec.AtariVectorEnv("pong", n, **kw), AtariVectorEnv("pong", n, **kw)
    low, high = env.single_action_space.low, env.single_action_space.high
    acts = jnp.asarray(np.random.default_rng(3).uniform(low, high, (steps, n, 3)), dtype=jnp.float32)
    _, ref_first, ref = _rollout(ref_env, acts, seed=5)
    _, first, out = _rollout(env, acts, seed=5)
    _assert_same(first, ref_first)
    _assert_same(out, ref)


def test_non_finite_continuous_actions_refused_as_by_step():
    # Any NaN / inf entry (radius, theta or fire) is refused, as by the torch API's step;
    # the env then steps on as one that never saw the call.
    env, ref = AtariVectorEnv("pong", 2, continuous=True), AtariVectorEnv("pong", 2, continuous=True)
    h, reset, step = env.xla()
    h, _ = reset(h, seed=0)
    ref.reset(seed=0)
    good = np.array([[1.0, 0.5, 0.0], [0.5, -1.0, 1.0]], np.float32)
    for col in range(3):
        bad = good.copy()
        bad[1, col] = np.nan if col != 1 else np.inf
        with pytest.raises(Exception, match="must be finite"):
            jax.block_until_ready(step(h, bad))
        with pytest.raises(ValueError, match="must be finite"):
            ref.step(bad)
    _, (o, r, te, tr, info) = step(h, good)
    ro, *_ , rinfo = ref.step(good)
    np.testing.assert_array_equal(np.asarray(o), ro.numpy())
    np.testing.assert_array_equal(np.asarray(info["frame_number"]), rinfo["frame_number"].numpy())


def test_emulated_cuda_backend_equals_ale_py():
    # The CUDA path's code (kernels run on the host, results as tensors): same results.
    n, steps = 3, 40
    ref_env = ale_vec.AtariVectorEnv("breakout", n)
    env = AtariVectorEnv("breakout", n, _emulate_cuda=True)
    acts = jnp.asarray(np.random.default_rng(4).integers(0, 4, (steps, n)), dtype=jnp.int32)
    _, ref_first, ref = _rollout(ref_env, acts)
    _, first, out = _rollout(env, acts)
    _assert_same(first, ref_first)
    _assert_same(out, ref)


@pytest.mark.parametrize("emulate_cuda", [False, True])
def test_async_mode_matches_send_recv(emulate_cuda):
    # batch_size < num_envs: the results are the batch_size envs send / recv hands out
    # (cule's order is FIFO, ale-py's thread timing, so the reference is cule's own API,
    # on the CPU; the xla env also through the CUDA path's host emulation).
    n, b = 4, 2
    env = AtariVectorEnv("breakout", n, batch_size=b, _emulate_cuda=emulate_cuda)
    ref = AtariVectorEnv("breakout", n, batch_size=b)
    h, reset, step = env.xla()
    h, (o, info) = reset(h, seed=0)
    ro, rinfo = ref.reset(seed=0)
    assert o.shape == (b, 4, 84, 84)
    np.testing.assert_array_equal(np.asarray(o), ro.numpy())
    np.testing.assert_array_equal(np.asarray(info["env_id"]), rinfo["env_id"].numpy())
    for a in np.random.default_rng(5).integers(0, 4, (20, b)).astype(np.int32):
        h, (o, r, te, tr, info) = step(h, a)
        ro, rr, rte, rtr, rinfo = ref.step(a)
        for x, y in ((o, ro), (r, rr), (te, rte), (tr, rtr), (info["env_id"], rinfo["env_id"])):
            np.testing.assert_array_equal(np.asarray(x), y.numpy())


def test_calls_run_in_program_order():
    # Two steps inside one jit that both take the reset's handle (no data dependency
    # between them) still run one after the other, as written: the env's own steps with
    # the same actions give the same results in that order.
    env, ref = AtariVectorEnv("breakout", 2), AtariVectorEnv("breakout", 2)
    h, reset, step = env.xla()
    h, _ = reset(h, seed=0)
    ref.reset(seed=0)
    a1, a2 = jnp.array([1, 1], jnp.int32), jnp.array([3, 2], jnp.int32)

    @jax.jit
    def two(h):
        _, first = step(h, a1)
        _, second = step(h, a2)
        return first[4]["frame_number"], second[4]["frame_number"], second[0]

    f1, f2, o2 = two(h)
    r1 = ref.step(np.asarray(a1))
    r2 = ref.step(np.asarray(a2))
    np.testing.assert_array_equal(np.asarray(f1), r1[4]["frame_number"].numpy())
    np.testing.assert_array_equal(np.asarray(f2), r2[4]["frame_number"].numpy())
    np.testing.assert_array_equal(np.asarray(o2), r2[0].numpy())


def test_bad_input():
    env = AtariVectorEnv("breakout", 3)
    h, reset, step = env.xla()
    h, _ = reset(h, seed=0)
    with pytest.raises(InvalidArgument, match=r"shape \(3,\)"):
        step(h, jnp.zeros(4, jnp.int32))
    with pytest.raises(TypeError, match="integers"):
        step(h, jnp.zeros(3, jnp.float32))
    with pytest.raises(TypeError, match="boolean"):
        reset(h, reset_mask=jnp.ones(3, jnp.int32))
    with pytest.raises(InvalidArgument, match=r"shape \(3,\)"):
        reset(h, reset_mask=jnp.ones(2, jnp.bool_))
    with pytest.raises(TypeError, match="seed"):
        reset(h, seed=1.5)
    for bad in (None, "ab", [1, "x", 2]):
        with pytest.raises(TypeError, match=f"actions must be numbers, got {type(bad).__name__}"):
            step(h, bad)
    with pytest.raises(InvalidArgument, match="at most 2147483645 for 3 envs"):   # env 2 would get 2**31
        reset(h, seed=2**31 - 2)
    # With a mask the count shows only in the values: the check runs in the host call.
    with pytest.raises(Exception, match="at most 2147483646 for 2 envs"):
        jax.block_until_ready(reset(h, seed=2**31 - 1, reset_mask=jnp.array([True, False, True])))
    for bad in ("3", object(), [1.5, "x"]):
        with pytest.raises(TypeError, match=f"`seed` must be numbers, got {type(bad).__name__}"):
            reset(h, seed=bad)
    with pytest.raises(TypeError, match="`reset_mask` must be numbers, got str"):
        reset(h, reset_mask="ab")
    with pytest.raises(TypeError, match="the handle must be numbers, got NoneType"):
        step(None, jnp.zeros(3, jnp.int32))
    with pytest.raises(InvalidArgument, match="int32"):      # JAX would wrap it to 1
        step(h, np.array([0, 2**32 + 1, 0], np.int64))
    with pytest.raises(InvalidArgument, match="int32"):
        reset(h, seed=np.array([0, 2**32, 1], np.int64))
    for bad_h in (h[:4], h.astype(jnp.int32), np.zeros((2, 8), np.uint8)):
        with pytest.raises(InvalidArgument, match="handle"):
            step(bad_h, jnp.zeros(3, jnp.int32))
        with pytest.raises(InvalidArgument, match="handle"):
            reset(bad_h)
    with pytest.raises(TypeError, match="boolean|integers"):
        step(h, jnp.zeros(3, jnp.bool_))
    # Value errors come from the host call, through JAX, and change nothing: the env then
    # steps on as a reference env that never saw the bad calls.
    ref = AtariVectorEnv("breakout", 3)
    ref.reset(seed=0)
    with pytest.raises(Exception, match="outside the action space"):
        jax.block_until_ready(step(h, jnp.array([0, 1, 9], jnp.int32)))
    other_h, _, _ = AtariVectorEnv("breakout", 3).xla()
    with pytest.raises(Exception, match="not this environment's"):
        jax.block_until_ready(step(other_h, jnp.zeros(3, jnp.int32)))
    with pytest.raises(Exception, match="one entry per sub-environment"):
        jax.block_until_ready(reset(h, seed=jnp.array([1, 2], jnp.int32), reset_mask=jnp.ones(3, jnp.bool_)))
    # Under jax_enable_x64 an int64 action outside int32 reaches the range check (it
    # used to be cast to int32 first, and wrapped to a valid action).
    if hasattr(jax, "enable_x64"):
        enable_x64 = jax.enable_x64
    else:   # older JAX
        from jax.experimental import enable_x64
    with enable_x64(True):
        with pytest.raises(Exception, match="outside the action space"):
            jax.block_until_ready(step(h, jnp.array([0, 2**32 + 1, 0], jnp.int64)))
        # A uint64 seed above int64's range is refused, not wrapped to a negative (keep) one.
        with pytest.raises(Exception, match="at most 2147483647, got 9223372036854775809"):
            jax.block_until_ready(reset(h, seed=np.array([2**63 + 1, 0, 0], np.uint64)))
    a = np.array([1, 2, 3], np.int32)
    _, (o, r, te, tr, info) = step(h, a)
    ro, rr, rte, rtr, rinfo = ref.step(a)
    np.testing.assert_array_equal(np.asarray(o), ro.numpy())
    np.testing.assert_array_equal(np.asarray(info["frame_number"]), rinfo["frame_number"].numpy())
    # SAME_STEP: refused, as ale-py's (an assert there).
    with pytest.raises(InvalidArgument, match="NEXT_STEP"):
        AtariVectorEnv("breakout", 2, autoreset_mode="SameStep").xla()
    with pytest.raises(AssertionError):
        ale_vec.AtariVectorEnv("breakout", 2, autoreset_mode="SameStep").xla()
    env.close()
    with pytest.raises(InvalidArgument, match="closed"):
        env.xla()


def test_without_jax(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(gymnasium.error.DependencyNotInstalled, match="pip install jax"):
        AtariVectorEnv("pong", 1).xla()
