"""``cule.AtariVectorEnv``: a drop-in for ``ale_py.vector_env.AtariVectorEnv`` (ale-py 0.12.1).

Every sub-environment runs ale-py's ``PreprocessedEnv`` semantics (src/ale/vector/
preprocessed_env.cpp and env_vectorizer.cpp at v0.12.1): noop / fire resets, frameskip
with early stop, max-pooling of the last two frames, grayscale or RGB, OpenCV
INTER_AREA resizing, frame stacking, reward clipping, episodic life and the NEXT_STEP /
SAME_STEP autoreset modes.  The whole step of all environments is one C++ call
(``cule._vector``) over the consoles of a ``cule.Atari``; for the same seeds and actions
the observations, rewards, terminations, truncations and info equal ale-py's bit for bit.
With ``device="cuda"`` the same per-env functions run in CUDA kernels (``CudaVecEnv`` of
``cule._cuda``, csrc/cuda_vector_env.cuh) with the same results, as CUDA tensors.

Units: ``frameskip`` and ``max_num_frames_per_episode`` count emulated frames; one
``step`` is one agent step (up to ``frameskip`` frames).

Where cule differs from ale-py (facts: ale-py 0.12.1 sources named above):
  - Results are torch tensors on ``device`` (ale-py: NumPy); dtypes are ale-py's
    (uint8 observations, int32 rewards and info, bool flags).  Gymnasium's NumPy-only
    vector wrappers (``RecordEpisodeStatistics``, ``NormalizeReward``...) go on top of
    ``gymnasium.wrappers.vector.ArrayConversion(env, env_xp=torch, target_xp=numpy)``,
    which turns results into NumPy arrays (for CUDA, a copy to the host every step).
  - ale-py's behaviour is reproduced even where it departs from the intended
    semantics: on a step that stops early (game over, truncation, episodic life loss)
    ale-py skips the screen capture, so the newest stacked frame repeats older
    screens.  ``stale_frame_on_early_stop=False`` returns the real last frames instead.
    (frameskip 1 never max-pools with an old frame, in ale-py and here.)
  - SAME_STEP ``final_obs`` rows of envs that were not reset are zero (the observation
    itself for a life loss reported by ``life_loss_info``); ale-py leaves them
    uninitialised.
  - Asynchronous mode (batch_size < num_envs) hands out results in FIFO order (ale-py:
    whichever envs finish first, a thread-timing-dependent order; the same with one
    thread).  A ``reset`` in mid-run hands out the results still waiting first, as
    ale-py's queue does; where an env then has two steps waiting, each runs with its own
    action (ale-py sets the env's action at ``send``, so the first may take the
    second's), and each reset with its own seeds.
  - A second ``send`` before ``recv`` raises ``InvalidArgument`` and keeps the first
    one's actions (ale-py queues both); ``recv`` without ``send`` hands out waiting
    results in asynchronous mode, as ale-py's, and raises where none wait (ale-py
    blocks).
  - ``xla()`` (JAX) calls the env through ``jax.experimental.io_callback`` instead of
    XLA custom calls: same results (see cule/_xla.py).
  - Continuous actions with a NaN or infinite entry raise ``InvalidArgument`` (ale-py
    runs them).  Seeds outside int32 (also ``seed + j`` of the j-th env reset) raise
    ``ALETypeError`` (an ``InvalidArgument`` and a TypeError, as ale-py's ``reset``:
    pybind11's TypeError; its ``xla()`` wraps them to int32).  A negative seed keeps
    that env's RNG streams in both.
  - Not implemented (clear error): images larger than the screen.
    ``max_num_frames_per_episode`` must be >= 1 or None (no limit); ale-py's 0 (or a
    negative value) would truncate every step.  ``thread_affinity_offset`` is accepted and ignored.
"""
from __future__ import annotations

import collections
import contextlib
import copy
import operator
import os
from typing import Any, Optional, Union

import gymnasium
import numpy as np
import torch
from gymnasium import error
from gymnasium.spaces import Box, Discrete
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _vector
from .atari import Atari, _check_digests, _check_memory, _no_cuda_reason, _parse_device, _real_number, _row_digests
from .cuda_atari import cuda_available, emulated_module

_MIN_SEED, _MAX_SEED = -2**31, 2**31 - 1   # ale-py's reset takes int32 seeds


class InvalidArgument(error.Error, ValueError):
    """A constructor, reset or step argument cule rejects (also a ``ValueError`` and a
    ``gymnasium.error.Error``, the class ale-py raises for a bad frameskip)."""


class ALERuntimeError(InvalidArgument, RuntimeError):
    """An argument refused where ale-py 0.12.1 raises ``RuntimeError`` (an unknown
    setting key, a mode or difficulty the game lacks, a RAM index of 128 or more, a
    missing ROM file for ``isSupportedROM``, a uint8 NumPy screen buffer of the wrong
    shape): both an ``InvalidArgument`` (so a
    ``ValueError``) and a ``RuntimeError``, so code written for either catches it."""


class ALEIndexError(InvalidArgument, IndexError):
    """An action index outside the action space of a single env's ``step``, where ale-py
    0.12.1's AtariEnv raises ``IndexError`` (it indexes its action list): both an
    ``InvalidArgument`` (so a ``ValueError``) and an ``IndexError``."""


class ALETypeError(InvalidArgument, TypeError):
    """An argument refused where ale-py 0.12.1's bindings raise ``TypeError`` (a negative
    or non-integer action id, mode, difficulty or RAM index, a RAM value outside 0..255,
    a state that is not one, a buffer of the wrong type, a tensor buffer or a RAM
    buffer of the wrong shape, vector-env actions that are None, a string or an array
    of objects): both an
    ``InvalidArgument`` (so a ``ValueError``) and a ``TypeError``."""


# Tracebacks and pickles name them where users import them from: cule.InvalidArgument ...
for _cls in (InvalidArgument, ALERuntimeError, ALEIndexError, ALETypeError):
    _cls.__module__ = "cule"


@contextlib.contextmanager
def _invalid_argument():
    """cule.Atari's ValueErrors as InvalidArgument (also a ValueError); an InvalidArgument,
    or one of its subclasses, goes through as it is."""
    try:
        yield
    except InvalidArgument:
        raise
    except ValueError as e:
        raise InvalidArgument(str(e)) from None


def _is_int_seed(x) -> bool:
    """An int seed as ale-py's vector env takes one (``isinstance(seed, int)``, so a bool
    too), or a NumPy integer / bool scalar."""
    return isinstance(x, (int, np.integer, np.bool_))


def _check_first_seed(s: int, k: int) -> None:
    """Raises ALETypeError (an InvalidArgument) when ``reset(seed=s)`` of ``k`` envs would
    seed some env outside int32 (the j-th env reset gets ``s + j``)."""
    # ale-py's reset: pybind11's TypeError when a seed does not fit its int32 (its C++
    # seeds env j with seed + j).
    if not _MIN_SEED <= s <= _MAX_SEED:
        raise ALETypeError(f"seed must be an int32 (at most {_MAX_SEED}), got {s}")
    if s + max(k - 1, 0) > _MAX_SEED:
        raise ALETypeError(f"seed must be at most {_MAX_SEED - max(k - 1, 0)} for {k} envs (the j-th env "
                           f"reset is seeded seed + j, at most {_MAX_SEED}), got {s}")


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check_int(name: str, value, low: int, high: Optional[int] = None) -> int:
    """An integer argument of the vector env as ale-py's bindings take one: anything
    with ``__index__`` (an int, a bool, a NumPy integer, a 0-d integer array or tensor);
    ALETypeError for another type (ale-py: TypeError), InvalidArgument out of range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise ALETypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})") from None
    if v < low or (high is not None and v > high):
        rng = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise InvalidArgument(f"{name} must be {rng}, got {v}")
    return v


def _check_real(name: str, value) -> float:
    """A real number argument (a Python / NumPy number or a 0-d array or tensor, not a
    bool) as a float; ALETypeError otherwise, as ale-py's bindings raise TypeError."""
    v = _real_number(value)
    if v is None:
        raise ALETypeError(f"{name} must be a number, got {value!r}")
    return float(v)


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        # (ale-py's bindings raise TypeError for an argument of another type.)
        raise ALETypeError(f"{name} must be a bool, got {value!r} ({type(value).__name__})")
    return bool(value)


# ALE action ids, as ale-py's AtariEnv.map_action_idx(h, v, fire): index [h + 1, v + 1, fire]
# with h: -1 left, 0, 1 right and v: -1 down, 0, 1 up.
_DIRECTION_ACTIONS = {  # (h, v) -> (without fire, with fire)
    (0, 0): (0, 1), (1, 0): (3, 11), (-1, 0): (4, 12), (0, 1): (2, 10), (0, -1): (5, 13),
    (1, 1): (6, 14), (-1, 1): (7, 15), (1, -1): (8, 16), (-1, -1): (9, 17),
}
CONTINUOUS_ACTION_TABLE = np.zeros((3, 3, 2), dtype=np.int64)
for (_h, _v), (_a, _af) in _DIRECTION_ACTIONS.items():
    CONTINUOUS_ACTION_TABLE[_h + 1, _v + 1] = (_a, _af)


def continuous_to_discrete(actions: np.ndarray, threshold: float):
    """ale-py's continuous action mapping, in the same float32 arithmetic: rows of
    (radius, theta, fire) -> (ALE action ids int64, paddle strengths float32 = radius)."""
    x = actions[:, 0] * np.cos(actions[:, 1])
    y = actions[:, 0] * np.sin(actions[:, 1])
    h = -(x < -threshold).astype(np.int32) + (x > threshold).astype(np.int32) + 1
    v = -(y < -threshold).astype(np.int32) + (y > threshold).astype(np.int32) + 1
    fire = (actions[:, 2] > threshold).astype(np.int32)
    return (np.ascontiguousarray(CONTINUOUS_ACTION_TABLE[h, v, fire]),
            np.ascontiguousarray(actions[:, 0], dtype=np.float32))


def as_continuous_array(actions, n: int, device: torch.device) -> np.ndarray:
    """Validates a batch of continuous actions: float32 ``[n, 3]`` rows of (radius,
    theta, fire), NumPy or a tensor on ``device``, all finite.  Their ranges are not
    checked: ale-py's mapping takes any value (radius in [0, 1], theta in [-pi, pi] and
    fire in [0, 1] are the action space's bounds)."""
    if isinstance(actions, torch.Tensor):
        if actions.device != device:
            raise InvalidArgument(f"actions are on {actions.device}, the environment is on {device}")
        actions = actions.detach().numpy()
    if actions is None or isinstance(actions, (str, bytes)):
        raise ALETypeError(f"continuous actions must be a float32 array or tensor of shape ({n}, 3), got "
                           f"{type(actions).__name__}")
    arr = np.asarray(actions)
    if arr.dtype != np.float32:
        raise InvalidArgument(f"continuous actions must be float32, got dtype {arr.dtype}")
    if arr.shape != (n, 3):
        raise InvalidArgument(f"continuous actions must have shape ({n}, 3), got {tuple(arr.shape)}")
    if not np.isfinite(arr).all():
        raise InvalidArgument("continuous actions must be finite")
    return np.ascontiguousarray(arr)


def as_action_array(actions, n: int, num_actions: int, device: torch.device) -> np.ndarray:
    """Validates a batch of action indices; returns them as a C-contiguous int64 array.

    Accepts a NumPy array, a torch tensor (on ``device``) or a sequence of ints, of shape
    ``(n,)`` and an integer dtype, each in ``[0, num_actions)``.  Raises ``InvalidArgument``
    (a ValueError) otherwise; ``ALETypeError`` (also a TypeError) for None, a string
    or an array of objects or strings (``cule.Atari.act`` raises TypeError for None or
    a string, ValueError for an array of strings).
    """
    if isinstance(actions, torch.Tensor):
        if actions.device != device:
            raise InvalidArgument(f"actions are on {actions.device}, the environment is on {device}")
        if actions.dtype == torch.bool or actions.is_floating_point() or actions.is_complex():
            raise InvalidArgument(f"actions must be integers, got a {actions.dtype} tensor")
        arr = actions.detach().numpy()
    else:
        if actions is None or isinstance(actions, (str, bytes)):
            # (cule.Atari.act raises TypeError here; ALETypeError is both.)
            raise ALETypeError(f"actions must be an integer array or tensor of shape ({n},), got "
                               f"{type(actions).__name__}")
        try:
            arr = np.asarray(actions)
        except Exception as e:  # noqa: BLE001 - report what was passed
            raise InvalidArgument(f"actions must be an array of integers: {e}") from None
        if arr.dtype.kind in "OSUV":
            raise ALETypeError(f"actions must be integers, got an array of {arr.dtype} "
                               f"({'Python objects' if arr.dtype.kind == 'O' else 'strings or bytes'})")
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise InvalidArgument(f"actions must be integers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise InvalidArgument(f"actions must have shape ({n},), got {tuple(arr.shape)}")
    # Checked in the actions' own dtype, so a uint64 above int64's range is named as given.
    if n and (arr.min() < 0 or arr.max() >= num_actions):
        bad = int(arr[(arr < 0) | (arr >= num_actions)][0])
        raise InvalidArgument(f"action {bad} is outside the action space [0, {num_actions})")
    return np.ascontiguousarray(arr, dtype=np.int64)


class AtariVectorEnv(VectorEnv):
    """``num_envs`` preprocessed Atari environments stepped in one batch, ale-py's
    ``AtariVectorEnv`` API and results, with torch tensors on ``device``.

    Args (ale-py's, same defaults; frames are emulated frames, steps agent steps):
        game: ALE game id (``"pong"``, ``"Pong"``) or ROM path; see ``cule.list_games()``.
        num_envs: number of sub-environments, >= 1.
        device: where observations, rewards and flags live: ``"cpu"`` (also ``None``, as
            in PyTorch; the step runs in C++ threads) or ``"cuda"`` (the whole step,
            preprocessing included, runs in CUDA kernels; results are CUDA tensors).
            With actions given as a CUDA tensor a NEXT_STEP step does not wait for the
            GPU (the indices are checked on the device: one out of range makes that step
            change nothing and raises ``ValueError`` on a later call); NumPy / CPU
            actions are validated on the host and copied, which waits for the stream.
            On CUDA, ``clone_state`` snapshots have the CPU env's layout and move between
            devices.
        batch_size: 0 (= num_envs) or fewer envs for ale-py's asynchronous mode: each
            ``step`` / ``recv`` returns the results of ``batch_size`` envs (their ids in
            ``info["env_id"]``) and the actions of the next ``step`` / ``send`` go to those
            envs.  cule steps synchronously and hands results out first-in first-out,
            one deterministic order of ale-py's "first to complete", on either device
            (the same results on both).  On CUDA a step runs the kernels on those
            ``batch_size`` envs only; with out-of-range actions in a CUDA tensor the step
            changes nothing and those envs' previous results are handed out again when
            their turn comes (the ``ValueError`` comes from a later call).
        num_threads: CPU threads stepping the environments (0: min(num_envs, cores);
            capped at the number of cores, as ale-py).
        thread_affinity_offset: accepted for compatibility; threads are not pinned.
        max_num_frames_per_episode: truncate an episode after this many frames counted
            by the preprocessing (ale-py's ``max_episode_steps``; default 108000).
            ``None``: no limit.  Must be >= 1 (ale-py's 0 would truncate every step).
        repeat_action_probability: sticky-action probability, per frame, in [0, 1]
            (default 0.0, as ale-py's vector env), stored as ALE's ``setFloat`` stores
            it (6 significant digits; see ``cule.Atari``).
        full_action_space: ALE's legal action set (all 18 actions; 9 for skiing and
            lost_luggage, where FIRE is illegal) instead of the game's minimal set.
        continuous: actions are float32 rows (radius, theta, fire) as in ale-py: the
            direction and fire (each past ``continuous_action_threshold``) select one of
            the 18 ALE actions (the full action space is used) and the radius is the
            paddle strength.
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (default) or ``SAME_STEP`` (or their
            string values ``"NextStep"``, ``"SameStep"``).
        img_height, img_width: observation size; at most the screen's (210 x 160 for
            most games), downscaled with OpenCV's INTER_AREA bit for bit.
        grayscale: grayscale observations (else RGB, a trailing axis of 3).
        stack_num: frames stacked per observation, in [1, 4096].
        frameskip: frames per step, an int in [1, 2**31 - 1].
        maxpool: max-pool the last two frames of a step.
        noop_max: a reset runs U{0..noop_max-1} NOOP frames (minus one if FIRE was
            pressed); 0 means none.  (ale-py 0.12.1 AtariVectorEnv.  Where the batch's
            memos hold them, reset_game's frames and these FIRE / NOOP frames are
            copied instead of emulated, with the same result; ``CULE_RESET_MEMO=0`` in
            the environment when the env is made turns that off: README, API.)
        episodic_life: end the episode (terminated) on a life loss.
        life_loss_info: report a life loss as terminated without ending the episode.
        reward_clipping: clip each step's summed reward to [-1, 1].
        use_fire_reset: press FIRE once at reset if the action set has FIRE.
        stale_frame_on_early_stop: cule only.  True (default) reproduces ale-py: when
            a step stops early (game over, truncation, episodic life loss) the screens
            are not captured, so the new stacked frame repeats older screens.  False
            gives the intended semantics: the last emulated frame, max-pooled with the
            one before it when both belong to this step.

    Every result has one row per env of the batch (``batch_size`` rows, all ``num_envs``
    envs in env order unless asynchronous).
    Observations: uint8 tensor ``[batch, stack_num, img_height, img_width]`` (RGB:
    ``[..., 3]``), oldest frame first.  Rewards: int32 tensor ``[batch]`` (ale-py's
    dtype).  terminated / truncated: bool tensors; an env is never both.  Info (int32
    tensors ``[batch]``): ``env_id``, ``lives``, ``frame_number`` (frames since the ROM
    was loaded), ``episode_frame_number``; with SAME_STEP, ``final_obs`` (the observation
    an episode ended on, rows of envs that are not done are zero) when any env is done.

    Raises:
        InvalidArgument (ValueError, gymnasium.error.Error) for bad arguments, and for
        a batch whose consoles, frame buffers and frame stacks would not fit in the
        machine's (or the GPU's) memory, checked before they are allocated;
        TypeError for unknown keyword arguments.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        *,
        device: Union[str, torch.device] = "cpu",
        batch_size: int = 0,
        num_threads: int = 0,
        thread_affinity_offset: int = -1,
        max_num_frames_per_episode: Optional[int] = 108000,
        repeat_action_probability: float = 0.0,
        full_action_space: bool = False,
        continuous: bool = False,
        continuous_action_threshold: float = 0.5,
        autoreset_mode: Union[AutoresetMode, str] = AutoresetMode.NEXT_STEP,
        img_height: int = 84,
        img_width: int = 84,
        grayscale: bool = True,
        stack_num: int = 4,
        frameskip: int = 4,
        maxpool: bool = True,
        noop_max: int = 30,
        episodic_life: bool = False,
        life_loss_info: bool = False,
        reward_clipping: bool = True,
        use_fire_reset: bool = True,
        stale_frame_on_early_stop: bool = True,
        _emulate_cuda: bool = False,
    ):
        num_envs = _check_int("num_envs", num_envs, 1)
        self.device = _parse_device(device, InvalidArgument)
        if _emulate_cuda and self.device.type != "cpu":
            raise InvalidArgument("_emulate_cuda runs on CPU tensors: leave device as 'cpu'")
        on_cuda = self.device.type == "cuda" or _emulate_cuda
        if self.device.type == "cuda" and not cuda_available():
            raise InvalidArgument(f"device {str(self.device)!r} is not available: {_no_cuda_reason()}; "
                                  f"use device='cpu'")
        batch_size = _check_int("batch_size", batch_size, 0, num_envs)
        num_threads = _check_int("num_threads", num_threads, 0)
        _check_int("thread_affinity_offset", thread_affinity_offset, -1)
        if max_num_frames_per_episode is not None:
            max_num_frames_per_episode = _check_int("max_num_frames_per_episode", max_num_frames_per_episode, 1,
                                                    2**31 - 1)
        p = _check_real("repeat_action_probability", repeat_action_probability)
        if not 0.0 <= p <= 1.0:
            raise InvalidArgument(f"repeat_action_probability must be in [0, 1], got {repeat_action_probability!r}")
        full_action_space = _check_bool("full_action_space", full_action_space)
        continuous = _check_bool("continuous", continuous)
        continuous_action_threshold = _check_real("continuous_action_threshold", continuous_action_threshold)
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            # ale-py: ValueError for a str that names no mode, its binding's TypeError otherwise.
            kind = InvalidArgument if isinstance(autoreset_mode, str) else ALETypeError
            raise kind(f"invalid autoreset_mode {autoreset_mode!r}; use AutoresetMode.NEXT_STEP or "
                       f"AutoresetMode.SAME_STEP") from None
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise InvalidArgument(f"autoreset_mode {mode} is not supported (ale-py supports NEXT_STEP and "
                                  f"SAME_STEP)")
        if type(frameskip) is not int and not isinstance(frameskip, np.integer):
            raise InvalidArgument(f"Invalid frameskip type: {type(frameskip)}.")
        frameskip = _check_int("frameskip", frameskip, 1, 2**31 - 1)
        stack_num = _check_int("stack_num", stack_num, 1, 4096)
        grayscale = _check_bool("grayscale", grayscale)
        maxpool = _check_bool("maxpool", maxpool)
        noop_max = _check_int("noop_max", noop_max, 0, 2**31 - 1)
        episodic_life = _check_bool("episodic_life", episodic_life)
        life_loss_info = _check_bool("life_loss_info", life_loss_info)
        reward_clipping = _check_bool("reward_clipping", reward_clipping)
        use_fire_reset = _check_bool("use_fire_reset", use_fire_reset)
        stale = _check_bool("stale_frame_on_early_stop", stale_frame_on_early_stop)

        cores = os.cpu_count() or 1
        num_threads = min(num_envs, cores) if num_threads == 0 else min(num_threads, cores)   # as ale-py
        # ALE frame_skip 1 and no ALE truncation: the preprocessing counts frames itself.
        where = (dict(device=self.device, _emulate_cuda=_emulate_cuda) if on_cuda
                 else dict(device="cpu", num_threads=num_threads))
        with _invalid_argument():   # an unknown game, a batch too large for the memory ...
            self.atari = Atari(game, num_envs, frameskip=1, repeat_action_probability=p,
                               full_action_space=full_action_space or continuous, **where)
        if on_cuda:
            self.device = self.atari.device   # "cuda" becomes "cuda:N"
        self._on_cuda = on_cuda
        if on_cuda:
            self.atari._cuda.bad_action_message = ("actions contains indices outside the action space: an earlier "
                                                   "step() on the GPU got them and changed nothing")
            self.atari._cuda.bad_action_error = InvalidArgument   # (a ValueError, as for cule.Atari)
        screen_h, screen_w = self.atari.screen_shape
        img_height = _check_int("img_height", img_height, 1)
        img_width = _check_int("img_width", img_width, 1)
        if img_height > screen_h or img_width > screen_w:
            raise InvalidArgument(f"img_height x img_width = {img_height} x {img_width} is larger than the "
                                  f"{self.atari.game} screen ({screen_h} x {screen_w}); cule reproduces OpenCV's "
                                  f"INTER_AREA only for downscaling")
        # The frame-stack ring and the observations handed out (stack_num frames each),
        # and the two pooled screens, besides the consoles Atari checked: a clear error
        # here rather than a failed allocation.
        channels = 1 if grayscale else 3
        _check_memory(num_envs, self.device, _emulate_cuda,
                      2 * stack_num * img_height * img_width * channels + 2 * screen_h * screen_w * channels,
                      f"its consoles, frame buffers and {stack_num}-frame stacks of {img_height} x {img_width}",
                      InvalidArgument)
        self.game = self.atari.game
        self.num_envs = num_envs
        self.batch_size = batch_size if batch_size else num_envs
        self._async = self.batch_size < num_envs
        self.num_threads = num_threads
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": mode}
        self.render_mode = None
        self.grayscale = grayscale
        self.stack_num = stack_num
        self.img_height = img_height
        self.img_width = img_width
        self.frameskip = frameskip
        self.max_num_frames_per_episode = max_num_frames_per_episode
        self.repeat_action_probability = self.atari.repeat_action_probability
        self.stale_frame_on_early_stop = stale
        self.continuous = continuous
        self.continuous_action_threshold = continuous_action_threshold
        # ale-py's AtariVectorEnv.map_action_idx: the ALE action id of joystick position
        # [horizontal + 1, vertical + 1] (-1 left / down, 1 right / up) and fire (0 / 1).
        self.map_action_idx = CONTINUOUS_ACTION_TABLE.astype(np.int32)
        # Continuous actions map to ALE action ids (ale-py's table), used here as indices
        # into an identity set; illegal ones act as NOOP in the core, as in ALE.
        # (get_action_set() lists the legal set then, as ale-py's.)
        self._ale_action_set = [int(a) for a in self.atari.action_set.tolist()]
        self._action_ids = list(range(18)) if continuous else list(self._ale_action_set)

        # The preprocessing settings, in the order the native VecEnv / CudaVecEnv take
        # them (plain Python values, as checked above).  A snapshot records them, with
        # the continuous-action ones, and restore_state refuses one taken with others.
        settings = dict(frameskip=frameskip, stack_num=stack_num, img_height=img_height, img_width=img_width,
                        grayscale=grayscale, maxpool=maxpool, noop_max=noop_max, use_fire_reset=use_fire_reset,
                        episodic_life=episodic_life, life_loss_info=life_loss_info, reward_clipping=reward_clipping,
                        max_num_frames_per_episode=(0 if max_num_frames_per_episode is None
                                                    else max_num_frames_per_episode),
                        repeat_action_probability=self.atari.repeat_action_probability,
                        same_step_autoreset=mode == AutoresetMode.SAME_STEP, stale_frame_on_early_stop=stale,
                        mode=int(self.atari.rom.info["default_mode"]))
        self._snapshot_settings = dict(settings, continuous=continuous,
                                       continuous_action_threshold=continuous_action_threshold)
        # Unseeded noop RNGs, as ale-py's std::random_device seeding.
        noop_seeds = np.random.SeedSequence().generate_state(num_envs, dtype=np.uint32)
        if on_cuda:
            # The whole step on the GPU (cule._cuda's CudaVecEnv, or the host-compiled
            # emulation of it for tests); results are tensors on self.device.
            if _emulate_cuda:
                cuda_module = emulated_module()
            else:
                from . import _cuda as cuda_module
            self._vec = cuda_module.CudaVecEnv(self.atari._batch, self._action_ids, *settings.values(), noop_seeds)
        else:
            self._vec = _vector.VecEnv(self.atari._batch, self._action_ids, num_threads, *settings.values())
            self._vec.seed_noops(noop_seeds)

        obs_shape = (stack_num, img_height, img_width) + (() if grayscale else (3,))
        self._obs_shape = obs_shape
        self.single_observation_space = Box(low=0, high=255, shape=obs_shape, dtype=np.uint8)
        if continuous:
            self.single_action_space = Box(low=np.array([0.0, -np.pi, 0.0]).astype(np.float32),
                                           high=np.array([1.0, np.pi, 1.0]).astype(np.float32),
                                           dtype=np.float32, shape=(3,))
        else:
            self.single_action_space = Discrete(len(self._action_ids))
        self._batched_observation_space = None   # built on first use (observation_space)
        self.action_space = batch_space(self.single_action_space, self.batch_size)
        self._all_ids = np.arange(num_envs, dtype=np.int64)
        # Asynchronous mode: the envs the last reset / recv handed out (the next send's).
        self._last_ids = None
        self._last_rows = None   # (on CUDA: _last_ids on the device)
        if self._async:
            # Asynchronous mode: every env's latest result lives here until a recv()
            # hands it out.  (On CUDA: tensors on the device, with their pointers;
            # final_obs rows only with SAME_STEP.)
            if on_cuda:
                self._store = self._cuda_outputs()
                self._store_final = (torch.zeros_like(self._store[0]) if mode == AutoresetMode.SAME_STEP
                                     else None)
            else:
                self._store = self._buffers()
                self._store_final = np.zeros_like(self._store[0])
            # `_ready` is the FIFO of waiting results: an entry s < num_envs is the
            # store's row s (env s); s >= num_envs is row s - num_envs of `_spill`, where
            # a waiting result moves before a reset or step of its env overwrites its
            # row (after a reset mid-run an env can have several waiting, as in ale-py).
            self._ready = collections.deque()
            self._in_store = np.zeros(num_envs, bool)   # env e's store row waits in `_ready`
            self._spill = None                          # the store's parts, capacity rows
            self._spill_env = np.empty(0, np.int64)     # the env of each spill row
            self._spill_free: list = []
        self._has_reset = False
        self._pending_actions: Optional[np.ndarray] = None
        self.closed = False

    # ---- gymnasium API ----

    def _buffers(self):
        n = self.num_envs
        obs = np.empty((n,) + self._obs_shape, np.uint8)
        ints = [np.empty(n, np.int32) for _ in range(5)]     # reward env_id lives frame episode_frame
        flags = [np.empty(n, np.uint8) for _ in range(2)]    # terminated truncated
        return obs, ints, flags

    def _info(self, ints) -> dict:
        return {"env_id": torch.from_numpy(ints[1]), "lives": torch.from_numpy(ints[2]),
                "frame_number": torch.from_numpy(ints[3]), "episode_frame_number": torch.from_numpy(ints[4])}

    def _reset_ids_seeds(self, seed, options):
        n = self.num_envs
        if options is None or "reset_mask" not in options:
            ids = np.arange(n, dtype=np.int64)
        else:
            mask = options["reset_mask"]
            if isinstance(mask, torch.Tensor):
                mask = mask.detach().cpu().numpy()
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
                raise ALETypeError(f"`reset_mask` must be a boolean numpy array (or bool tensor), got {type(mask)} "
                                   f"with dtype {getattr(mask, 'dtype', None)}")
            if mask.shape != (n,):
                raise InvalidArgument(f"`reset_mask` must have shape {(n,)}, got {mask.shape}")
            ids = np.nonzero(mask)[0].astype(np.int64)
        k = len(ids)
        if seed is None:
            seeds = np.full(k, -1, np.int64)
        elif _is_int_seed(seed):
            s = int(seed)
            _check_first_seed(s, k)
            # A negative seed keeps that env's RNG streams, as ale-py's (its C++ reseeds only
            # envs whose seed is >= 0).  Starting at max(s, -k - 1) gives the same signs.
            first = max(s, -k - 1)
            seeds = np.maximum(np.arange(first, first + k, dtype=np.int64), -1)
        else:
            if isinstance(seed, torch.Tensor):
                seed = seed.detach().cpu().numpy()
            if not isinstance(seed, (np.ndarray, list, tuple)):
                raise ALETypeError(f"Unsupported seed type {type(seed).__name__}: use None, an int, or one int per "
                                   f"sub-environment being reset")
            arr = np.asarray(seed)
            if k and (arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer)):
                raise ALETypeError(f"Unsupported seed dtype {arr.dtype}: one integer per sub-environment being reset")
            if arr.shape != (k,):
                raise InvalidArgument(f"`seed` must have one integer per sub-environment being reset, expected "
                                      f"shape {(k,)}, got {arr.shape} ({arr.dtype})")
            if k and arr.max() > _MAX_SEED:   # (ale-py: pybind11's TypeError outside int32)
                raise ALETypeError(f"seeds must be at most {_MAX_SEED}, got {arr.max()}")
            if k and arr.min() < _MIN_SEED:
                raise ALETypeError(f"seeds must be at least {_MIN_SEED}, got {arr.min()}")
            seeds = np.maximum(arr.astype(np.int64), -1)   # negative: keep that env's RNG streams
        if k != n and not self._has_reset:
            raise InvalidArgument(f"The first reset() must reset every environment (got {k} of {n})")
        if k != n and self._async:
            raise InvalidArgument(f"Partial reset is not supported in asynchronous mode (batch_size="
                                  f"{self.batch_size} < num_envs={n}), as in ale-py")
        return ids, seeds

    @property
    def observation_space(self) -> Box:
        """The batched observation space: a uint8 Box of shape ``(batch_size,) +
        single_observation_space.shape``, bounds 0 and 255, seeded with a copy of
        ``single_observation_space``'s RNG as it is at the first access; equal to
        Gymnasium's ``batch_space(single_observation_space, batch_size)`` made then.

        Built on first access, not by the constructor: its ``low`` and ``high`` are full
        arrays of the batch's shape (1.85 GB each with the defaults at 65,536 envs).  Built
        by ``batch_space`` in the constructor, it took 6 s of the 7.3 s a 16,384-env CUDA
        vector env took to construct (H200 host, 2026-11-30); built from scalar bounds, as
        here, it takes a tenth of what ``batch_space`` takes (it skips the checks of tiled
        arrays).  Assigning a space replaces it.
        """
        if self._batched_observation_space is None:
            single = self.single_observation_space
            self._batched_observation_space = Box(low=0, high=255, shape=(self.batch_size,) + single.shape,
                                                  dtype=np.uint8, seed=copy.deepcopy(single.np_random))
        return self._batched_observation_space

    @observation_space.setter
    def observation_space(self, space) -> None:
        self._batched_observation_space = space

    def reset(self, *, seed: Union[None, int, np.ndarray, list] = None,
              options: Optional[dict[str, Any]] = None):
        """Resets the sub-environments (all, or those of ``options["reset_mask"]``).

        Args:
            seed: None (keep each env's RNG streams), an int ``s`` (the reset envs get
                ``s, s+1, ...`` in env order), or one int per reset env; each seed, as
                ale-py's, reloads the ROM with ALE ``random_seed`` = seed and reseeds the
                noop RNG.  Seeds are at most 2**31 - 1; a negative one (as in ale-py)
                leaves that env's RNG streams as they are, like None.
            options: ``{"reset_mask": bool array or tensor [num_envs]}`` resets only
                those envs; the others report their current observation and info
                unchanged.  The first reset must reset every env, and in asynchronous
                mode every reset resets every env (ale-py refuses a partial one there too).
        Returns:
            (observations, info) as documented on the class (no rewards / flags).
        Raises:
            InvalidArgument (a ValueError) / ALETypeError (a TypeError) for bad seeds
                (outside [-2**31, 2**31 - 1], ``s + i`` past 2**31 - 1, not integers)
                or masks (wrong shape or dtype, a partial mask on the first reset or in
                asynchronous mode), or a closed env; the env is unchanged then.
        """
        self._check_open()
        ids, seeds = self._reset_ids_seeds(seed, options)
        if _is_int_seed(seed) and int(seed) >= 0:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(int(seed))
        if self._async:
            # As ale-py's queue of work: actions sent and not yet received run first, and
            # the results still waiting are handed out before those of the reset.
            if self._pending_actions is not None:
                (actions, strengths), self._pending_actions = self._pending_actions, None
                self._async_step(actions, strengths, self.autoreset_mode == AutoresetMode.SAME_STEP)
            self._move_waiting(self._all_ids)
        if self._on_cuda:
            obs, info = self._cuda_reset(ids, seeds)
            if not self._async:
                return obs, info
        else:
            obs, ints, flags = self._store if self._async else self._buffers()
            self._vec.reset(ids, seeds, obs, ints[0], flags[0], flags[1], ints[1], ints[2], ints[3], ints[4])
        self._has_reset = True
        self._pending_actions = None
        if self._async:
            self._queue_results(self._all_ids)
            obs, _, _, _, info = self._pop_ready(with_final=False)
            return obs, info
        return torch.from_numpy(obs), self._info(ints)

    def step(self, actions):
        """One agent step of every env (up to ``frameskip`` frames each).

        Args:
            actions: ``[batch]`` integers indexing the action set (NumPy array, list,
                or an integer tensor on the env's device); with ``continuous``, float32
                ``[batch, 3]`` rows (radius, theta, fire).
        Returns:
            (observations, rewards, terminations, truncations, info) as documented on
            the class.  With NEXT_STEP, an env whose episode ended on the previous step
            is reset instead of stepped (reward 0, not done).
        Raises:
            InvalidArgument for actions of the wrong shape, dtype, device or range
            (nothing is stepped), or a step before the first reset.
        """
        self.send(actions)
        return self.recv()

    def send(self, actions) -> None:
        """Validates and queues the actions of the next ``recv()`` (ale-py's API).

        Raises:
            InvalidArgument as ``step`` does, and for a second ``send`` before ``recv``
            (ale-py queues both; the actions already sent stay queued).
        """
        self._check_stepping()
        if self._on_cuda:
            self._pending_actions = self._cuda_actions(actions)
        elif self.continuous:
            ids, strengths = continuous_to_discrete(as_continuous_array(actions, self.batch_size, self.device),
                                                    self.continuous_action_threshold)
            self._queue_mapped(ids, strengths)
        else:
            self._pending_actions = (as_action_array(actions, self.batch_size, len(self._action_ids), self.device),
                                     None)

    def _mapped_pending(self, ids: np.ndarray, strengths: np.ndarray):
        """The queued form of continuous actions already mapped: ALE action ids (int64
        [batch]) and paddle strengths (float32 [batch])."""
        if self._on_cuda:
            return (torch.from_numpy(ids).to(self.device), torch.from_numpy(strengths).to(self.device))
        return (ids, strengths)

    def _queue_mapped(self, ids: np.ndarray, strengths: np.ndarray) -> None:
        """Queues mapped continuous actions for the next ``recv()`` (``send`` and ``xla()``)."""
        self._check_stepping()
        self._pending_actions = self._mapped_pending(ids, strengths)

    def xla(self):
        """ale-py's ``AtariVectorEnv.xla()``: ``(handle, reset, step)`` for JAX.

        ``handle`` is an opaque uint8 [8] array; ``reset(handle, seed=None,
        reset_mask=None)`` returns ``(handle, (obs, info))`` and ``step(handle, actions)``
        returns ``(handle, (obs, rewards, terminations, truncations, info))``, JAX arrays
        with ale-py's shapes and dtypes (obs uint8 ``(batch_size,) +
        single_observation_space.shape``, rewards / info int32 [batch_size], flags bool).
        Both can be traced by ``jax.jit`` and ``jax.lax.scan``; pass each call the handle
        the previous one returned.  Results are those of ``reset`` / ``step``.  The
        functions call the env through ``jax.experimental.io_callback``, on the host: on
        ``device="cuda"`` every call copies its results to the host (ale-py's own env is
        on the CPU either way).  Details and differences from ale-py: ``cule/_xla.py``.

        Raises:
            gymnasium.error.DependencyNotInstalled without JAX (``pip install jax``);
            InvalidArgument with autoreset_mode SAME_STEP (ale-py: AssertionError) or a
            closed env.
        """
        from ._xla import make_xla
        return make_xla(self)

    def recv(self):
        """Steps with the actions given to ``send()``; returns what ``step`` returns.

        In asynchronous mode without a ``send``, hands out the next ``batch_size``
        results waiting (as ale-py's ``recv``), stepping nothing.

        Raises:
            InvalidArgument without a ``send`` (asynchronous mode: and fewer than
            ``batch_size`` results waiting, where ale-py's ``recv`` waits for ever).
        """
        self._check_open()
        same = self.autoreset_mode == AutoresetMode.SAME_STEP
        if self._pending_actions is None:
            if self._async and self._has_reset and len(self._ready) >= self.batch_size:
                # As ale-py's recv: the next batch_size results waiting (those of a
                # reset, say), with nothing stepped.
                return self._pop_ready(with_final=same)
            raise InvalidArgument("recv() called without a preceding send()")
        (actions, strengths), self._pending_actions = self._pending_actions, None
        if self._async:
            self._async_step(actions, strengths, same)
            return self._pop_ready(with_final=same)
        if self._on_cuda:
            return self._cuda_step(actions, strengths, same)
        obs, ints, flags = self._buffers()
        final = np.empty_like(obs) if same else None
        self._vec.step(self._all_ids, actions, obs, ints[0], flags[0], flags[1], ints[1], ints[2], ints[3], ints[4],
                       final, strengths)
        term = flags[0].view(np.bool_)
        trunc = flags[1].view(np.bool_)
        info = self._info(ints)
        if same and (term.any() or trunc.any()):
            info["final_obs"] = torch.from_numpy(final)
        return (torch.from_numpy(obs), torch.from_numpy(ints[0]), torch.from_numpy(term),
                torch.from_numpy(trunc), info)

    # ---- the GPU path (device="cuda", or its host emulation) ----
    #
    # Results are written by the kernels into fresh tensors on self.device; no frame
    # goes through the host and nothing waits for the GPU, except SAME_STEP, whose
    # info has "final_obs" only when some env is done (one small read per step).

    def _cuda_outputs(self):
        n, dev = self.num_envs, self.device
        obs = torch.empty((n,) + self._obs_shape, dtype=torch.uint8, device=dev)
        ints = [torch.empty(n, dtype=torch.int32, device=dev) for _ in range(5)]   # reward env_id lives frames
        flags = [torch.empty(n, dtype=torch.uint8, device=dev) for _ in range(2)]  # terminated truncated
        ptrs = [obs.data_ptr(), ints[0].data_ptr(), flags[0].data_ptr(), flags[1].data_ptr(), ints[1].data_ptr(),
                ints[2].data_ptr(), ints[3].data_ptr(), ints[4].data_ptr()]
        return obs, ints, flags, ptrs

    def _cuda_info(self, ints) -> dict:
        return {"env_id": ints[1], "lives": ints[2], "frame_number": ints[3], "episode_frame_number": ints[4]}

    def _cuda_reset(self, ids, seeds):
        backend = self.atari._cuda
        backend.raise_pending()
        per_env = np.full(self.num_envs, -2, np.int64)   # -2: not reset
        per_env[ids] = seeds
        dseeds = torch.from_numpy(per_env).to(self.device)
        obs, ints, flags, ptrs = self._store if self._async else self._cuda_outputs()
        # The first env reseeded runs first, alone, so that the others take the reset_game
        # memo slots it records (csrc/ale_env.hpp) rather than emulating beside it (as
        # the CPU VecEnv::reset: resets without a new seed are not led).
        reseeded = np.flatnonzero(per_env >= 0)
        self._vec.reset(dseeds.data_ptr(), ptrs, backend.stream, int(reseeded[0]) if len(reseeded) else -1)
        self._keep = dseeds   # alive until the queued work has used it
        self._has_reset = True
        self._pending_actions = None
        return obs, self._cuda_info(ints)

    def _cuda_actions(self, actions):
        n = self.batch_size
        if self.continuous:
            if isinstance(actions, torch.Tensor):
                if actions.device != self.device:
                    raise InvalidArgument(f"actions are on {actions.device}, the environment is on {self.device}")
                actions = actions.detach().cpu()   # the mapping runs on the host, as ale-py's
            ids, strengths = continuous_to_discrete(as_continuous_array(actions, n, torch.device("cpu")),
                                                    self.continuous_action_threshold)
            return self._mapped_pending(ids, strengths)
        if isinstance(actions, torch.Tensor) and actions.device == self.device:
            # Checked on the device (no host synchronisation): an index outside the
            # action set makes that step change nothing and raises on a later call.
            if actions.dtype == torch.bool or actions.is_floating_point() or actions.is_complex():
                raise InvalidArgument(f"actions must be integers, got a {actions.dtype} tensor")
            if tuple(actions.shape) != (n,):
                raise InvalidArgument(f"actions must have shape ({n},), got {tuple(actions.shape)}")
            return (actions.detach().to(torch.int64).contiguous(), None)
        if isinstance(actions, torch.Tensor) and actions.device != self.device:
            raise InvalidArgument(f"actions are on {actions.device}, the environment is on {self.device}")
        arr = as_action_array(actions, n, len(self._action_ids), torch.device("cpu"))
        return (torch.from_numpy(arr).to(self.device), None)

    def _cuda_step(self, actions, strengths, same, dids=None):
        backend = self.atari._cuda
        backend.raise_pending()
        if self._async:
            # The envs `dids` (ids on the device: those handed out last, from _pop_ready,
            # or some of them), into the store's rows.
            obs, ints, flags, ptrs = self._store
            final = self._store_final
            envs = (dids.data_ptr(), len(dids))
        else:
            dids = None
            obs, ints, flags, ptrs = self._cuda_outputs()
            final = torch.empty_like(obs) if same else None
            envs = (0, -1)   # every env
        bad = backend._new_flag()
        self._vec.step(actions.data_ptr(), 0 if strengths is None else strengths.data_ptr(), bad.data_ptr(), ptrs,
                       0 if final is None else final.data_ptr(), backend.stream, *envs)
        backend._queue_check(bad)
        self._keep = (actions, strengths, dids)
        if self._async:
            return None
        term = flags[0].view(torch.bool)
        trunc = flags[1].view(torch.bool)
        info = self._cuda_info(ints)
        if same and bool((term | trunc).any()):
            info["final_obs"] = final
        return obs, ints[0], term, trunc, info

    # ---- asynchronous mode: the FIFO of waiting results ----

    def _async_step(self, actions, strengths, same) -> None:
        """Steps the envs handed out last with ``actions`` into the store (results
        queued, not handed out)."""
        ids = self._last_ids
        # occurrence[j]: how often ids[j] came earlier in the batch (a stable sort groups
        # each env's places in batch order).
        by_env = np.argsort(ids, kind="stable")
        k = np.arange(len(ids))
        first = np.r_[True, ids[by_env][1:] != ids[by_env][:-1]]
        occurrence = np.empty(len(ids), np.int64)
        occurrence[by_env] = k - np.maximum.accumulate(np.where(first, k, 0))
        if occurrence.max() == 0:
            self._step_rows(ids, self._last_rows, actions, strengths, same)
            self._queue_results(ids)
            return
        # An env handed out twice in one batch (its step's and its reset's results,
        # after a reset mid-run): its actions run one after the other, as ale-py's
        # queue runs them, and the results join the FIFO in the batch's order.
        order = []
        for r in range(int(occurrence.max()) + 1):
            pos = np.flatnonzero(occurrence == r)
            if self._on_cuda:
                dpos = torch.from_numpy(pos).to(self.device)
                sub = (actions.index_select(0, dpos), None if strengths is None else strengths.index_select(0, dpos))
                rows = torch.from_numpy(ids[pos]).to(self.device)
            else:
                sub = (actions[pos], None if strengths is None else strengths[pos])
                rows = None
            self._step_rows(ids[pos], rows, *sub, same)
            self._queue_results(ids[pos])
            order.extend(pos.tolist())
        tail = [self._ready.pop() for _ in ids][::-1]    # in round order
        by_pos = [None] * len(ids)
        for entry, j in zip(tail, order):
            by_pos[j] = entry
        self._ready.extend(by_pos)

    def _step_rows(self, ids: np.ndarray, rows, actions, strengths, same) -> None:
        """Steps envs ``ids`` (no env twice; ``rows``: them on the device) into their
        store rows, their results still waiting there moving to spill rows first."""
        self._move_waiting(ids)
        if self._on_cuda:
            self._cuda_step(actions, strengths, same, rows)
        else:
            obs, ints, flags = self._store
            self._vec.step(ids, actions, obs, ints[0], flags[0], flags[1], ints[1], ints[2], ints[3], ints[4],
                           self._store_final if same else None, strengths)

    def _queue_results(self, ids: np.ndarray) -> None:
        """The store rows of ``ids`` (just written) join the FIFO, in that order."""
        self._ready.extend(ids.tolist())
        self._in_store[ids] = True

    def _store_parts(self) -> list:
        obs, ints, flags = self._store[:3]
        return [obs, *ints, *flags] + ([] if self._store_final is None else [self._store_final])

    def _move_waiting(self, envs: np.ndarray) -> None:
        """Before a step or reset writes the store rows of ``envs``: those rows' results
        still waiting in the FIFO move to spill rows, keeping their place in it."""
        envs = envs[self._in_store[envs]]
        if len(envs) == 0:
            return
        if len(self._spill_free) < len(envs):
            self._grow_spill(len(envs))
        slots = np.array([self._spill_free.pop() for _ in envs], dtype=np.int64)
        if self._on_cuda:
            src, dst = (torch.from_numpy(a).to(self.device) for a in (envs, slots))
            for sp, part in zip(self._spill, self._store_parts()):
                sp.index_copy_(0, dst, part.index_select(0, src))
        else:
            for sp, part in zip(self._spill, self._store_parts()):
                sp[slots] = part[envs]
        self._spill_env[slots] = envs
        self._in_store[envs] = False
        moved = dict(zip(envs.tolist(), (slots + self.num_envs).tolist()))
        self._ready = collections.deque(moved.get(s, s) for s in self._ready)

    def _grow_spill(self, need: int) -> None:
        cap = len(self._spill_env)
        new_cap = max(2 * cap, cap + need)
        parts = []
        for i, part in enumerate(self._store_parts()):
            shape = (new_cap,) + tuple(part.shape[1:])
            if self._on_cuda:
                grown = torch.zeros(shape, dtype=part.dtype, device=part.device)
            else:
                grown = np.zeros(shape, part.dtype)
            if cap:
                grown[:cap] = self._spill[i]
            parts.append(grown)
        self._spill = parts
        self._spill_env = np.concatenate([self._spill_env, np.zeros(new_cap - cap, np.int64)])
        self._spill_free.extend(range(new_cap - 1, cap - 1, -1))   # popped lowest first

    def _pop_ready(self, with_final: bool):
        """Asynchronous mode: hands out the batch_size results that have waited longest
        (a deterministic instance of ale-py's "first to complete")."""
        n = self.num_envs
        slots = np.array([self._ready.popleft() for _ in range(self.batch_size)], dtype=np.int64)
        spilled = slots >= n
        ids = slots.copy()
        ids[spilled] = self._spill_env[slots[spilled] - n]
        self._in_store[slots[~spilled]] = False
        self._last_ids = ids
        parts = self._store_parts()
        if self._on_cuda:
            # Rows gathered on the device (fresh tensors: later steps leave them alone).
            rows = self._last_rows = torch.from_numpy(ids).to(self.device)
            if spilled.any():
                pos = [torch.from_numpy(np.flatnonzero(m)).to(self.device) for m in (~spilled, spilled)]
                src = [torch.from_numpy(a).to(self.device) for a in (slots[~spilled], slots[spilled] - n)]

                def take(i):
                    out = parts[i].new_empty((len(slots),) + tuple(parts[i].shape[1:]))
                    out.index_copy_(0, pos[0], parts[i].index_select(0, src[0]))
                    return out.index_copy_(0, pos[1], self._spill[i].index_select(0, src[1]))
            else:
                def take(i):
                    return parts[i].index_select(0, rows)
        elif spilled.any():
            def take(i):
                out = np.empty((len(slots),) + parts[i].shape[1:], parts[i].dtype)
                out[~spilled] = parts[i][slots[~spilled]]
                out[spilled] = self._spill[i][slots[spilled] - n]
                return torch.from_numpy(out)
        else:
            def take(i):
                return torch.from_numpy(parts[i][ids])
        obs, reward, env_id, lives, frame, episode_frame, term, trunc = (take(i) for i in range(8))
        term, trunc = term.view(torch.bool), trunc.view(torch.bool)
        info = {"env_id": env_id, "lives": lives, "frame_number": frame, "episode_frame_number": episode_frame}
        if with_final and bool((term | trunc).any()):
            info["final_obs"] = take(8)
        # Spill rows handed out are free again (their rows were gathered above).
        self._spill_free.extend((slots[spilled] - n).tolist())
        if self._spill is not None and len(self._spill_free) == len(self._spill_env):
            self._spill, self._spill_env, self._spill_free = None, np.empty(0, np.int64), []
        return obs, reward, term, trunc, info

    # ---- extras ----

    def get_action_set(self) -> list:
        """ale-py's ``ale.get_action_set()``: a list of ALE action ids (ints), those the
        action indices map to (the minimal set, or the legal set with
        ``full_action_space``); with ``continuous=True`` the legal set (all 18 but for
        skiing and lost_luggage, whose ALE 0.12.1 RomSettings make FIRE illegal)."""
        return list(self._ale_action_set)

    def screens(self) -> torch.Tensor:
        """uint8 tensor ``[num_envs, H, W, 3]`` on the env's device: each env's current full
        RGB screen (for video), every env's even in asynchronous mode.  A new tensor each
        call.

        Raises:
            InvalidArgument: the env is closed.
        """
        self._check_open()
        return self.atari.screen_rgb()

    def clone_state(self) -> dict:
        """Snapshot of every env: the consoles (``cule.Atari.clone_state``) and the
        preprocessing state (noop RNG, counters, frame stack, pooled screens), with
        checksums of the consoles and of the per-env counters (``slots_digest``) that
        ``restore_state`` checks.  Savable with ``torch.save``; restore with
        ``restore_state`` on an env of the same game, ``num_envs`` and settings (device
        and thread count may differ).

        Returns a dict: ``format`` (str), ``atari`` (``cule.Atari.clone_state``'s dict),
        ``vector`` (uint8 tensors ``[num_envs, bytes]`` on the env's device, one per
        part of the preprocessing state), ``slots_digest`` (int64 tensor ``[num_envs]``),
        ``has_reset`` (bool) and ``settings`` (the settings it was taken with).  In
        asynchronous mode the results waiting for ``recv`` are not part of it: they
        stay queued across a ``restore_state``.

        Raises:
            InvalidArgument: the env is closed.
        """
        self._check_open()
        if self._on_cuda:
            # The GPU buffers have the CPU env's byte layout: snapshots move between them.
            vec = {}
            for part in self._vec.state_parts():
                t = torch.empty((self.num_envs, self._vec.state_part_bytes(part)), dtype=torch.uint8,
                                device=self.device)
                self._vec.copy_state(part, t.data_ptr(), False, self.atari._cuda.stream)
                vec[part] = t
        else:
            vec = {k: torch.from_numpy(v.copy()) for k, v in self._vec.state_views().items()}
        return {"format": "cule.AtariVectorEnv/1", "atari": self.atari.clone_state(), "vector": vec,
                "slots_digest": _row_digests(vec["slots"]), "has_reset": self._has_reset,
                "settings": dict(self._snapshot_settings)}

    def restore_state(self, state: dict) -> None:
        """Restores a ``clone_state`` snapshot.  Raises InvalidArgument (a ValueError) for a
        snapshot of another game, ``num_envs`` or settings (frameskip, frame stack, image
        size, noop_max, episodic life, reward clipping, sticky actions, autoreset mode,
        ...; snapshots saved before 2026-12-04 carry no settings, and only those that
        change the buffers' sizes are caught then), or one whose consoles or counters do
        not match their checksums (corrupt or edited); nothing is changed then."""
        self._check_open()
        if not isinstance(state, dict) or state.get("format") != "cule.AtariVectorEnv/1":
            raise InvalidArgument("state must be a dict returned by cule.AtariVectorEnv.clone_state")
        missing = [k for k in ("atari", "vector", "slots_digest", "has_reset") if k not in state]
        if missing or not isinstance(state["vector"], dict):
            raise InvalidArgument(f"state is missing {', '.join(missing) or 'vector'}: pass a dict returned by "
                                  "cule.AtariVectorEnv.clone_state")
        theirs = state.get("settings")
        if theirs is not None:
            if not isinstance(theirs, dict):
                raise InvalidArgument("state's settings must be the dict clone_state returns")
            differ = sorted(k for k in set(theirs) | set(self._snapshot_settings)
                            if theirs.get(k) != self._snapshot_settings.get(k))
            if differ:
                raise InvalidArgument("state was taken from a vector env with other settings: " + ", ".join(
                    f"{k}={theirs.get(k)!r} (this env: {self._snapshot_settings.get(k)!r})" for k in differ))
        vec = state["vector"]
        if self._on_cuda:
            shapes = {p: (self.num_envs, self._vec.state_part_bytes(p)) for p in self._vec.state_parts()}
        else:
            views = self._vec.state_views()
            shapes = {k: v.shape for k, v in views.items()}
        if any(not isinstance(v, torch.Tensor) or v.dtype != torch.uint8 for v in vec.values()):
            raise InvalidArgument("state's vector parts must be uint8 tensors, as clone_state returns them")
        if set(vec) != set(shapes) or any(tuple(vec[k].shape) != shapes[k] for k in shapes):
            raise InvalidArgument("state was taken from a vector env with other settings")
        _check_digests(vec["slots"], state["slots_digest"], "state slots", InvalidArgument)
        with _invalid_argument():
            self.atari.restore_state(state["atari"])
        if self._on_cuda:
            keep = []
            for part in shapes:
                t = vec[part].to(device=self.device, dtype=torch.uint8).contiguous()
                self._vec.copy_state(part, t.data_ptr(), True, self.atari._cuda.stream)
                keep.append(t)
            self._keep = keep
        else:
            for k, v in views.items():
                v[...] = vec[k].cpu().numpy()
        self._has_reset = bool(state["has_reset"])
        self._pending_actions = None

    def _check_open(self):
        if self.closed:
            raise InvalidArgument("the environment is closed")

    def _check_stepping(self):
        """``send`` may run: the env is open and has been reset (ale-py: RuntimeError),
        and no actions wait for ``recv``."""
        self._check_open()
        if not self._has_reset:
            raise ALERuntimeError("step()/send() called before reset()")
        if self._pending_actions is not None:
            # ale-py queues a second send's actions after the first's (its envs step
            # twice); cule takes one send per recv rather than drop either silently.
            raise InvalidArgument("send() was already called: call recv() for its results before the next "
                                  "send() or step() (the actions sent are still queued)")
        if self._async and self._last_ids is None:
            # A snapshot restored into an env that has not handed out a batch yet: the
            # FIFO of waiting results is not part of a snapshot.
            raise ALERuntimeError("asynchronous mode: step()/send() go to the envs the last reset()/step() "
                                  "handed out; call reset() first")

    def close_extras(self, **kwargs):
        self._vec = None
        self.atari = None

    def __repr__(self) -> str:
        return (f"cule.AtariVectorEnv({self.game!r}, num_envs={self.num_envs}, device={str(self.device)!r}, "
                f"autoreset_mode={self.autoreset_mode.value})")
