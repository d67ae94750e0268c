"""``cule.AtariVectorEnv.xla()``: ale-py 0.12.1's JAX interface to a vector env.

ale-py's ``AtariVectorEnv.xla()`` returns ``(handle, reset, step)``: an opaque uint8 [8]
array and two functions that JAX can trace, so a whole rollout can run inside
``jax.jit`` / ``jax.lax.scan``.  Each function takes the handle and returns a new one.
ale-py registers XLA custom calls (FFI targets) into its C++ vectorizer.  Here the two
functions reach the env through ``jax.experimental.io_callback(..., ordered=True)``, a
host call that JAX keeps, in program order, even inside ``jit`` (so two calls with the
same handle still run one after the other, as written).  Results are NumPy arrays
handed to JAX, so on ``device="cuda"`` each call copies them to the host (use the
torch API to keep them on the GPU).

Same arguments, shapes, dtypes and results as ale-py's, including the continuous-action
mapping, done in JAX's float32 as ale-py's does (continuous actions of any integer or
float dtype are cast to it), negative seeds (that env keeps its RNG streams) and bool
seeds.  Where cule differs:
  - a bad argument whose problem shows at trace time (a wrong shape or dtype, a mask
    that is not bool, a handle that is not uint8 [8], a concrete action or seed above
    int32 that JAX without ``jax_enable_x64`` would wrap, a seed whose envs would get
    seeds above 2**31 - 1 when every env is reset) raises ``InvalidArgument`` /
    ``TypeError`` there, not chex's AssertionError;
  - any negative seed keeps that env's RNG streams, even one below int32 (ale-py wraps
    it to int32 first); a continuous action with a NaN or infinite entry is refused,
    as by ``step`` (ale-py runs it);
  - what shows only in the values (an action outside the action space, bad seeds, a
    handle of another env) raises ``InvalidArgument`` inside the callback, which JAX
    reports as its own runtime error with cule's message on the last line; that call
    leaves the env unchanged (ale-py's hangs on such an action).  Integer actions reach
    the check in their own dtype, so an int64 one under ``jax_enable_x64`` is not
    wrapped;
  - ``reset`` also takes ``reset_mask`` and array seeds inside ``jit`` (ale-py computes the
    reset envs' indices with ``jnp.where``, which needs concrete values);
  - SAME_STEP raises ``InvalidArgument`` (ale-py: ``assert``).
"""
from __future__ import annotations

import struct

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AutoresetMode


def _host(t) -> np.ndarray:
    """A result tensor (any device) as a NumPy array."""
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def make_xla(env):
    """Builds ``(handle, reset, step)`` for ``env`` (see the module docstring and
    ``AtariVectorEnv.xla``)."""
    from .vector_env import InvalidArgument, _check_first_seed, _is_int_seed

    env._check_open()
    if env.autoreset_mode != AutoresetMode.NEXT_STEP:
        raise InvalidArgument(f"xla() supports autoreset_mode NEXT_STEP only (as ale-py's), got "
                              f"{env.autoreset_mode.value}")
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental import io_callback
    except ImportError as e:
        raise gymnasium.error.DependencyNotInstalled(
            'xla() needs JAX: pip install jax (or pip install -e ".[xla]" in a cule checkout)') from e

    n, b = env.num_envs, env.batch_size
    token = np.frombuffer(struct.pack("<Q", id(env) & 0xFFFFFFFFFFFFFFFF), dtype=np.uint8).copy()
    obs = jax.ShapeDtypeStruct((b,) + tuple(env.single_observation_space.shape), jnp.uint8)
    i32 = jax.ShapeDtypeStruct((b,), jnp.int32)
    flag = jax.ShapeDtypeStruct((b,), jnp.bool_)
    handle_shape = jax.ShapeDtypeStruct((8,), jnp.uint8)
    table = jnp.asarray(env.map_action_idx, dtype=jnp.int32)

    def check_handle(h):
        if not np.array_equal(np.asarray(h), token):
            raise InvalidArgument("the handle is not this environment's (pass the handle its xla() returned, "
                                  "or the one its last reset / step returned)")

    def info_tuple(info):
        return tuple(_host(info[k]).astype(np.int32)
                     for k in ("env_id", "lives", "frame_number", "episode_frame_number"))

    def info_dict(env_id, lives, frame_number, episode_frame_number):
        return {"env_id": env_id, "lives": lives, "frame_number": frame_number,
                "episode_frame_number": episode_frame_number}

    def reset_host(h, mask, seeds, kind):
        check_handle(h)
        mask = np.asarray(mask, dtype=np.bool_)
        k = int(mask.sum())
        if kind == "none":
            seed = None
        elif kind == "int":
            seed = int(np.asarray(seeds))     # env.reset checks the range and expands it
        else:
            seed = np.asarray(seeds)   # env.reset checks it in its own dtype (a uint64 is not wrapped)
            if seed.shape != (k,):
                raise InvalidArgument(f"`seed` must have one entry per sub-environment being reset, expected "
                                      f"shape {(k,)}, got {seed.shape}")
        options = None if k == n else {"reset_mask": mask}
        o, info = env.reset(seed=seed, options=options)
        return (token.copy(), _host(o)) + info_tuple(info)

    def step_host(h, ids, strengths, finite=None):
        check_handle(h)
        ids = np.asarray(ids)
        if strengths is None:
            env.send(ids)
        else:
            strengths = np.ascontiguousarray(strengths, dtype=np.float32)
            if not bool(finite):   # as the torch API's step: every entry (radius, theta, fire)
                raise InvalidArgument("continuous actions must be finite")
            env._queue_mapped(np.ascontiguousarray(ids, dtype=np.int64), strengths)
        o, r, te, tr, info = env.recv()
        return (token.copy(), _host(o), _host(r).astype(np.int32), _host(te).astype(np.bool_),
                _host(tr).astype(np.bool_)) + info_tuple(info)

    def as_array(x, what, negative_to=None):
        """``jnp.asarray(x)``, with a TypeError naming ``what`` for values JAX cannot take,
        and for concrete integers outside int32 (which JAX without jax_enable_x64 would
        wrap, or refuse with its own error) an InvalidArgument.  ``negative_to`` replaces
        concrete negative entries of an array first (seeds: any negative one means "keep")."""
        given = type(x).__name__
        if not isinstance(x, jax.Array):
            try:
                arr = np.asarray(x)
            except (TypeError, ValueError, OverflowError) as e:
                raise TypeError(f"{what} must be numbers, got {given}: {e}") from None
            if arr.dtype.kind not in "biufc":
                raise TypeError(f"{what} must be numbers, got {given}" +
                                (f" of dtype {arr.dtype}" if given in ("ndarray", "list", "tuple") else ""))
            if arr.dtype.kind in "iu" and arr.size:
                if negative_to is not None and arr.dtype.kind == "i" and arr.ndim:
                    arr = np.maximum(arr, negative_to)
                if (jax.dtypes.canonicalize_dtype(np.int64) != np.int64
                        and (int(arr.min()) < -2**31 or int(arr.max()) > 2**31 - 1)):
                    raise InvalidArgument(f"{what} must fit in int32 (JAX without jax_enable_x64), got values in "
                                          f"[{arr.min()}, {arr.max()}]")
            x = arr
        try:
            return jnp.asarray(x)
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(f"{what} must be numbers, got {given}: {e}") from None

    def checked_handle(handle):
        h = as_array(handle, "the handle")
        if h.dtype != jnp.uint8 or h.shape != (8,):
            raise InvalidArgument(f"the handle must be a uint8 array of shape (8,) (the one xla() or the last "
                                  f"reset / step returned), got {h.dtype} {h.shape}")
        return h

    def xla_reset(handle, seed=None, reset_mask=None):
        """ale-py's reset: ``(handle, (obs, info))``.  ``seed``: None (the envs keep their
        RNG streams), an int (the reset envs get seed, seed + 1, ... in env order) or
        one int per reset env; a negative seed keeps that env's RNG streams, as in
        ale-py.  ``reset_mask``: bool [num_envs] (None: all)."""
        handle = checked_handle(handle)
        if reset_mask is None:
            mask = jnp.ones((n,), dtype=jnp.bool_)
        else:
            mask = as_array(reset_mask, "`reset_mask`")
            if mask.dtype != jnp.bool_:
                raise TypeError(f"`reset_mask` must be a boolean array, got dtype {mask.dtype}")
            if mask.shape != (n,):
                raise InvalidArgument(f"`reset_mask` must have shape {(n,)}, got {mask.shape}")
        if seed is None:
            kind, seeds = "none", jnp.zeros((), jnp.int32)
        else:
            if _is_int_seed(seed) or (isinstance(seed, np.ndarray) and seed.ndim == 0 and seed.dtype.kind in "iu"):
                # seed + j keeps its sign for every env j when seed < -n - 1 becomes -n - 1.
                seed = max(int(seed), -n - 1)
                # The reset envs get seed + j; with every env reset, their count is known
                # here (with a mask, the host call checks it).
                _check_first_seed(seed, n if reset_mask is None else 1)
            seeds = as_array(seed, "`seed`", negative_to=-1)
            if not jnp.issubdtype(seeds.dtype, jnp.integer):
                raise TypeError(f"Unsupported seed type {seeds.dtype}: use None, an int, or one int per "
                                f"sub-environment being reset")
            if seeds.ndim > 1:
                raise InvalidArgument(f"`seed` must be an int or a 1-d array, got shape {seeds.shape}")
            kind = "int" if seeds.ndim == 0 else "array"
        out = io_callback(lambda h, m, s: reset_host(h, m, s, kind), (handle_shape, obs, i32, i32, i32, i32),
                          handle, mask, seeds, ordered=True)
        return out[0], (out[1], info_dict(*out[2:]))

    def xla_step(handle, actions):
        """ale-py's step: ``(handle, (obs, rewards, terminations, truncations, info))``.
        ``actions``: int [batch_size] indices into the action set, or with ``continuous``
        float [batch_size, 3] rows (radius, theta, fire)."""
        handle = checked_handle(handle)
        actions = as_array(actions, "actions")
        if env.continuous:
            # Any integer or float dtype, cast to float32 as ale-py's does.
            if actions.dtype == jnp.bool_ or not (jnp.issubdtype(actions.dtype, jnp.floating)
                                                  or jnp.issubdtype(actions.dtype, jnp.integer)):
                raise TypeError(f"continuous actions must be real numbers, got dtype {actions.dtype}")
            if actions.shape != (b, 3):
                raise InvalidArgument(f"continuous actions must have shape {(b, 3)}, got {actions.shape}")
            actions = actions.astype(jnp.float32)
            thr = env.continuous_action_threshold
            # ale-py 0.12.1's xla_step: polar -> joystick position, in float32.
            x = actions[:, 0] * jnp.cos(actions[:, 1])
            y = actions[:, 0] * jnp.sin(actions[:, 1])
            horizontal = -(x < -thr).astype(jnp.int32) + (x > thr).astype(jnp.int32) + 1
            vertical = -(y < -thr).astype(jnp.int32) + (y > thr).astype(jnp.int32) + 1
            fire = (actions[:, 2] > thr).astype(jnp.int32)
            ids, strengths = table[horizontal, vertical, fire], actions[:, 0]
            out = io_callback(step_host, (handle_shape, obs, i32, flag, flag, i32, i32, i32, i32),
                              handle, ids, strengths, jnp.isfinite(actions).all(), ordered=True)
        else:
            if actions.dtype == jnp.bool_ or not jnp.issubdtype(actions.dtype, jnp.integer):
                raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
            if actions.shape != (b,):
                raise InvalidArgument(f"actions must have shape {(b,)}, got {actions.shape}")
            # Passed in their own dtype: under jax_enable_x64 an int64 action outside int32
            # reaches the host's range check instead of wrapping.
            out = io_callback(lambda h, a: step_host(h, a, None),
                              (handle_shape, obs, i32, flag, flag, i32, i32, i32, i32), handle,
                              actions, ordered=True)
        return out[0], (out[1], out[2], out[3], out[4], info_dict(*out[5:]))

    return jnp.asarray(token), xla_reset, xla_step
