"""The batched Atari 2600 emulator: ``cule.Atari``.

``Atari`` runs ``num_envs`` consoles with ALE 0.12.1's semantics (reset_game, act with
frameskip and sticky actions, lives, terminal, truncation), every console bit-exact
with an ``ale_py.ALEInterface`` given the same ROM, seed and actions.
"""
from __future__ import annotations

import math
import operator
import os
from typing import Optional, Sequence, Union

import numpy as np
import torch

from . import _core
from .cuda_atari import CudaBackend, cuda_available, emulated_module
from .roms import Rom, load_rom, native_config

_MAX_SEED = 2**31 - 1   # ALE's random_seed is a non-negative int32


def _as_index_array(values, name: str, upper: int) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        if values.dtype in (torch.bool,) or values.is_floating_point() or values.is_complex():
            raise ValueError(f"{name} must be integers, got a {values.dtype} tensor")
        if values.is_meta:
            raise ValueError(f"{name} is a tensor on the meta device, which holds no values")
        arr = values.detach().to("cpu").numpy()
    else:
        arr = np.asarray(values)
        if arr.size == 0 and arr.dtype == np.float64:
            arr = arr.astype(np.int64)   # an empty list: no ids
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be integers, got dtype {arr.dtype}")
    if arr.ndim > 1:
        raise ValueError(f"{name} must be one id or a 1-D sequence of ids, got shape {tuple(arr.shape)}")
    arr = arr.reshape(-1)
    # Checked in the given dtype (a uint64 above 2**63 - 1 would wrap to a negative int64).
    if arr.size and (arr.min() < 0 or arr.max() >= upper):
        bad = arr[(arr < 0) | (arr >= upper)][0]
        raise ValueError(f"{name} contains {int(bad)}, outside [0, {upper})")
    return arr.astype(np.int64, copy=False)


_AUDIO_SAMPLES = 512    # ALE's samples per processed frame (SoundRaw::SamplesPerFrame)
_DIGEST_WORDS = 4096 * 2048   # 32-bit words one pass of _row_digests converts at once (bounds its temporaries)
_digest_weights: dict = {}


def _state_type_note(state) -> str:
    """For an error about a state that is not cule's: what it is, naming ale-py's."""
    kind = type(state)
    if kind.__module__.split(".")[0] == "ale_py":
        return (f", got an ale-py state ({kind.__module__}.{kind.__name__}): ale-py's and cule's states "
                "do not mix (take the state from cule's clone_state / cloneState)")
    if isinstance(state, (bytes, bytearray, memoryview)):
        return ", got bytes (ALEState.serialize()'s bytes are read with cule.ALEState(data))"
    return "" if isinstance(state, dict) else f", got {kind.__name__}"


def _row_digests(rows: torch.Tensor) -> torch.Tensor:
    """int64 tensor [k] on ``rows``' device: a checksum of each row of a uint8 [k, n] tensor.

    The row's bytes, read as little-endian 32-bit words (zero-padded), are weighted by
    fixed odd 16-bit weights (SplitMix64 of the word index) and summed (below 2**63 for
    rows up to 128 KiB).
    Any single changed byte changes it, and random bytes match it with negligible odds.
    It guards snapshots against corruption and mix-ups (bytes that would make the emulator
    run off its buffers or loop), not against deliberate forgery.
    """
    k, n = rows.shape
    words = (n + 3) // 4
    key = (str(rows.device), words)
    w = _digest_weights.get(key)
    if w is None:
        # Weight i: the top 16 bits of SplitMix64's output for i, made odd (a fixed
        # formula, so the digests of saved snapshots do not depend on library versions).
        z = np.arange(1, words + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        host = ((z >> np.uint64(48)) | np.uint64(1)).astype(np.int64)
        w = _digest_weights[key] = torch.from_numpy(host).to(rows.device)
    step = max(1, _DIGEST_WORDS // max(words, 1))
    if rows.device.type == "cpu":
        # NumPy on the host (a tenth of the torch path's time for one row: what a
        # planner's cloneState / restoreState pays).  Same sums.
        a = rows.detach().numpy()
        wn = w.numpy()
        res = np.empty(k, dtype=np.int64)
        for i in range(0, k, step):
            part = a[i:i + step]
            if n % 4:
                part = np.pad(part, ((0, 0), (0, 4 * words - n)))
            part = np.ascontiguousarray(part).view("<u4").astype(np.int64)
            res[i:i + step] = part @ wn
        return torch.from_numpy(res)
    out = torch.empty(k, dtype=torch.int64, device=rows.device)
    for i in range(0, k, step):
        part = rows[i:i + step]
        if n % 4:
            part = torch.nn.functional.pad(part, (0, 4 * words - n))
        part = part.contiguous()
        if part.storage_offset() % 4:   # a view starting inside a 32-bit word
            part = part.clone()
        part = part.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
        out[i:i + step] = (part * w).sum(dim=1)
    return out


def _check_digests(rows: torch.Tensor, digests, what: str, error=ValueError) -> None:
    """Raises ``error`` unless ``digests`` (one int64 per row) equals ``_row_digests(rows)``."""
    try:
        d = digests if isinstance(digests, torch.Tensor) else torch.as_tensor(np.asarray(digests))
    except (TypeError, ValueError, RuntimeError):
        raise error(f"{what}: the digest must be int64 of shape ({len(rows)},), got {type(digests).__name__}") from None
    if d.dtype != torch.int64 or tuple(d.shape) != (len(rows),):
        raise error(f"{what}: the digest must be int64 of shape ({len(rows)},), got {d.dtype} {tuple(d.shape)}")
    bad = (_row_digests(rows) != d.to(rows.device)).nonzero().flatten().cpu()
    if len(bad):
        shown = ", ".join(str(int(r)) for r in bad[:8]) + (", ..." if len(bad) > 8 else "")
        raise error(f"{what}: {len(bad)} row(s) ({shown}) do not match their digest (checksum); the snapshot is "
                    "corrupt, was edited, or its rows were mixed with another snapshot's")


def _check_snapshot_digests(c: torch.Tensor, f: Optional[torch.Tensor], state: dict, what: str,
                            error=ValueError) -> None:
    """Raises ``error`` unless a snapshot's console rows ``c`` match its ``digest`` and
    its frame buffers ``f`` (None: the snapshot has none) its ``frame_buffer_digest``
    (tied to the console's: a frame-buffer row of another snapshot is refused; a
    snapshot saved before frame buffers had a digest is taken without that check)."""
    _check_digests(c, state["digest"], f"{what} consoles", error)
    if f is not None and "frame_buffer_digest" in state:
        fd = state["frame_buffer_digest"]
        if isinstance(fd, torch.Tensor) and fd.dtype == torch.int64 and tuple(fd.shape) == (len(c),):
            fd = fd.to(c.device) ^ _row_digests(c)   # untied from the (checked) consoles
        _check_digests(f, fd, f"{what} frame buffers", error)


def _parse_device(device, error=ValueError) -> torch.device:
    """``device`` as a ``torch.device``: ``None`` is the default, the CPU (as PyTorch's
    ``device=None``); raises ``error`` for anything torch does not parse or that is not
    a CPU or CUDA device."""
    if device is None:
        return torch.device("cpu")
    if isinstance(device, (int, np.integer)) and not isinstance(device, (bool, np.bool_)):
        # PyTorch takes an int as the accelerator's ordinal: CUDA's here
        device = torch.device("cuda", int(device)) if device >= 0 else device
    try:
        d = torch.device(device)
    except (RuntimeError, TypeError):
        raise error(f"invalid device {device!r}: use 'cpu', 'cuda' or 'cuda:N'") from None
    if d.type not in ("cpu", "cuda"):
        raise error(f"device {device!r} is not supported: use 'cpu', 'cuda' or 'cuda:N'")
    # 'cpu:N' is the CPU: its tensors are on torch.device('cpu'), which the outputs and
    # the inputs' checks compare with
    return torch.device("cpu") if d.type == "cpu" else d


def _check_memory(num_envs: int, device: torch.device, emulated: bool, extra_per_env: int = 0,
                  what: str = "its consoles and frame buffers", error=ValueError) -> None:
    """``error`` when the consoles and their two frame buffers alone (plus
    ``extra_per_env`` bytes an env, e.g. a vector env's frame stacks) would not fit in the
    machine's memory (the host's available memory, or the GPU's), before anything is
    allocated."""
    need = num_envs * (_core.console_state_bytes + 2 * _core.frame_buffer_bytes + extra_per_env)
    if device.type == "cuda" and not emulated:
        index = device.index if device.index is not None else torch.cuda.current_device()
        have, where = torch.cuda.get_device_properties(index).total_memory, f"GPU {index}"
    else:
        have = _host_memory_available()
        if have is None:
            return
        have, where = have
    if need > have:
        raise error(f"num_envs={num_envs} needs at least {need / 2**30:.1f} GiB for {what}, more than the "
                    f"{have / 2**30:.1f} GiB of {where}")


def _host_memory_available():
    """(bytes, where) a new batch may take of the host's memory: Linux's MemAvailable
    (/proc/meminfo: free memory plus what the kernel can reclaim without swapping), else
    the physical memory; None when neither can be read."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):   # no such sysconf names here
        total = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    whole = f"; {total / 2**30:.1f} GiB in all" if total else ""
                    return avail, f"this machine's available memory (MemAvailable{whole})"
    except (OSError, ValueError, IndexError):
        pass
    return None if total is None else (total, "this machine")


def ale_float(x) -> float:
    """The float ALE 0.12.1 uses after ``setFloat(key, x)``: ``x`` as a C++ float,
    written to its settings table by ``std::ostream`` (6 significant digits, ``%g``),
    read back with ``atof`` as a float again (Settings.cxx); e.g. 1/3 -> 0.333333."""
    return float(np.float32(float(_cpp_ostream_float(float(np.float32(x))))))


def _cpp_ostream_float(v: float) -> str:
    """``std::ostream << v`` with the default precision (6) and format (``%g``)."""
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    return "%.6g" % v


def _real_number(x):
    """``x`` as a Python / NumPy real number (a 0-d array or tensor gives its value), or None
    when it is not one (bools, strings, None, arrays with more than one value...)."""
    if isinstance(x, torch.Tensor) and x.ndim == 0 and x.dtype != torch.bool and not x.is_complex():
        x = x.item()
    elif isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        return None
    return x


def _core_cuda_built() -> bool:
    try:
        from . import _cuda  # noqa: F401
    except ImportError:
        return False
    return True


def _no_cuda_reason() -> str:
    """Why device="cuda" is not available here (when cuda_available() is False)."""
    if not _core_cuda_built():
        return ("this build of cule has no CUDA backend (cule.build_info()['cuda'] is False; "
                "reinstall with nvcc present: CULE_CUDA=1 pip install -e .)")
    return "no CUDA device is present (torch.cuda.is_available() is False)"


def _index_or_none(value) -> Optional[int]:
    """``operator.index(value)`` (an int, a NumPy integer, a 0-d integer array or tensor),
    or None for anything else, bools included."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, torch.Tensor) and value.dtype == torch.bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _int_arg(name: str, value, low: int, high: Optional[int] = None) -> int:
    """An integer argument of ``Atari``: anything with ``__index__`` (an int, a NumPy
    integer, a 0-d integer array or tensor, as ale-py's bindings take one) but a bool, in
    [low, high]; ValueError otherwise."""
    v = _index_or_none(value)
    if v is None or v < low or (high is not None and v > high):
        span = f">= {low}" if high is None else f"in [{low}, {'2**31 - 1' if high == 2**31 - 1 else high}]"
        raise ValueError(f"{name} must be an integer {span}, got {value!r}")
    return v


def _probability(value) -> float:
    """``repeat_action_probability`` as ALE uses it (``ale_float``); ValueError for
    anything but a real number in [0, 1]."""
    p = _real_number(value)
    if p is None:
        raise ValueError(f"repeat_action_probability must be a number in [0, 1], got {value!r}")
    if not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"repeat_action_probability must be in [0, 1], got {value!r}")
    return ale_float(float(p))


_FIXED_HINTS = {
    "mode": "set_mode() selects another mode at the next reset",
    "difficulty": "set_difficulty() selects another difficulty at the next reset",
    "seeds": "reload(seeds) powers consoles on again with new seeds",
}


def _fixed(name: str) -> property:
    """A read-only attribute of ``Atari``, set once by its constructor; assigning it
    raises AttributeError (its consoles, buffers and reloads were made from it)."""
    key = "_fixed_" + name

    def get(self):
        try:
            return self.__dict__[key]
        except KeyError:   # (a constructor that stopped early)
            raise AttributeError(f"cule.Atari.{name} is not set") from None

    def refuse(self, value):
        hint = _FIXED_HINTS.get(name, "make a new cule.Atari for another value")
        raise AttributeError(f"cule.Atari.{name} is fixed when the batch is made ({hint})")
    return property(get, refuse, doc=f"Read-only: {name}, as made by the constructor (see the class docstring).")


def _check_device_actions(actions, device) -> torch.Tensor:
    """Actions for the CUDA backend: an integer tensor of ids.

    Ids coming from the host are range-checked here (ValueError at once).  Ids already
    on the GPU are range-checked by the step kernel without a host synchronisation:
    an out-of-range id makes that act() change nothing, and the ValueError is raised
    by a later call (see ``Atari.act``)."""
    t = torch.as_tensor(actions)
    if t.dtype == torch.bool or t.is_floating_point() or t.is_complex():
        raise ValueError(f"actions must be integers, got {t.dtype}")
    if t.is_meta:
        raise ValueError("actions is a tensor on the meta device, which holds no values")
    if t.device.type == "cpu" and t.numel() and bool(((t < 0) | (t >= 18)).any()):
        raise ValueError("actions contains ids outside [0, 18)")
    return t.to(device=device, dtype=torch.int64)


class Atari:
    """``num_envs`` Atari 2600 consoles with ALE 0.12.1 semantics, stepped in a batch.

    Args:
        game: an ALE game id (``"pong"``, ``"Pong"``, ``"space_invaders"``) or the path
            of a ROM file; ROMs are identified by MD5 (see ``cule.list_games()``).
        num_envs: number of consoles, in [1, 2**31 - 1]; a batch whose consoles and
            frame buffers (about 101 KB each) would not fit in the machine's available
            memory (Linux's MemAvailable; or the GPU's memory) is refused before anything
            is allocated.
        device: ``"cpu"`` (also ``None``, as in PyTorch, and ``"cpu:N"``, which is the CPU)
            or ``"cuda"`` / ``"cuda:N"`` / an int N (CUDA device N, as PyTorch takes an
            int), a str or ``torch.device`` (needs a CUDA build, see
            ``cule.build_info()``, and a GPU; outputs are then CUDA tensors).
        frameskip: frames emulated per ``act`` call (ALE ``frame_skip``), in [1, 2**31 - 1].
        repeat_action_probability: probability that a frame repeats the previous
            action instead of the new one (sticky actions), decided on every frame as
            ALE does, in [0, 1].  ALE's default 0.25.  Stored as ALE's ``setFloat``
            stores it (ALE 0.12.1 Settings.cxx): rounded to a float (32-bit), written
            with 6 significant digits and read back as a float, so 1/3 acts as
            0.333333 (``repeat_action_probability`` shows the value used).
        full_action_space: ``action_set`` is ALE's legal action set
            (``getLegalActionSet``: all 18 actions, except for skiing and lost_luggage,
            whose RomSettings make the 9 with FIRE illegal) instead of the game's minimal
            set.
        max_num_frames_per_episode: truncate an episode after this many frames
            (0: never), as ALE's setting of that name; in [0, 2**31 - 1].
        truncate_on_loss_of_life: ALE's setting of that name: an episode is truncated
            (``truncated`` True, later ``act`` calls emulate nothing) once the game's
            ``lives`` is below the lives its ALE RomSettings start with (ALE 0.12.1
            StellaEnvironment::isGameTruncated; ``initial_lives``).  Judged after every
            frame, ``reset`` and ALE-semantics ``restore_state``: a game whose lives
            after ``reset`` are already below that count starts truncated, as in ALE.
        mode, difficulty: game mode and difficulty switches; must be ones the game
            offers.  None keeps ALE's defaults (ALE 0.12.1 RomSettings).  Given, they are
            applied as ``setMode``/``setDifficulty`` followed by ``reset_game`` after the
            ROM is loaded, exactly as Gymnasium's AtariEnv drives ALE.
        seed: an int ``s`` (env ``i`` is seeded ``s + i``, like ALEInterface's
            ``random_seed``), one int per env, or None for random seeds.  Seeds must be
            in [0, 2**31 - 1].
        num_threads: CPU threads stepping the consoles (default None: all cores); at
            most ``num_envs`` are started, as more would have no console to step.
        render: True (default): ``screen_rgb``/``screen_grayscale`` show ALE's screen.
            Only the last two frames of each ``act`` are drawn to pixels (the one
            shown, and the one before it, which keeps ALE's second frame buffer
            exact); the others are emulated without drawing (collision latches
            included).  When those two frames do not cover the whole screen, the
            ``act`` is redone drawing every frame, so screens are always ALE's.  False: no frame
            is drawn (emulation only, e.g. for RAM observations or benchmarks); RAM,
            rewards, lives and flags are unchanged, and the screen methods raise
            RuntimeError.
        sound: False (default) or True for ALE's sound observations (``sound_obs``):
            ``audio`` then holds each console's 512 samples of the last frame of its
            last ``act``, as ALE's ``getAudio`` (the TIA's two tone generators as ALE
            0.12.1's sound device models them, csrc/tia_sound.hpp).  The reset_game
            memo then also compares the sound registers, so fewer resets match an
            earlier one's and run in full (see the README).
        cpu: ALE's CPU core (its ``cpu`` setting, ALE 0.12.1 Console.cxx): ``"low"``
            (default, ALE's default) for M6502Low, which charges an instruction's cycles
            at once, or ``"high"`` for M6502High, which charges a cycle at each bus
            access and makes the 6502's dummy reads and writes (csrc/cpu6507.hpp).  The
            two give different games only rarely in play (pitfall2), more often in code
            a game runs after its RAM is poked.  ``"high"`` runs on both backends, more
            slowly (on CUDA a separate, table-driven copy of the CPU loop).

    Attributes (besides the per-env tensors below):
        game (str): the ALE id; rom: the ROM's facts (``rom.info``: modes, difficulties,
            minimal action set, from ALE 0.12.1's RomSettings).
        action_set: int64 tensor [A] (CPU) of ALE action ids: the game's minimal action
            set, or ALE's legal set with ``full_action_space``; ``act`` takes ids.
        screen_shape: (H, W) of every screen, ALE's: 210 x 160 for most games, 250 rows
            for PAL ROMs, 214 / 230 / 220 for carnival / journey_escape / pooyan.
        repeat_action_probability (float): the value in use (ALE keeps a 32-bit float).
        seeds: int64 NumPy array [num_envs]: what each console was seeded with (ALE's
            ``random_seed``; the ``seed`` argument as resolved, fresh ones drawn for
            ``seed=None``; ``reload`` updates the rows it reloads).
        initial_lives (int): the game's lives as its ALE RomSettings are constructed
            (ALE's ``m_max_lives``, the limit of ``truncate_on_loss_of_life``).
        num_envs, frameskip, max_num_frames_per_episode, truncate_on_loss_of_life, cpu,
            full_action_space, render, sound: as given (ints / bools / str).
        mode, difficulty (int): as given; ``mode=None`` gives the ROM's default mode,
            ``difficulty=None`` 0 (ALE's defaults).
        device (torch.device): ``None`` gives ``cpu``, ``"cuda"`` the current CUDA device
            (``cuda:N``).
        ``frameskip``, ``repeat_action_probability``, ``max_num_frames_per_episode`` and
        ``truncate_on_loss_of_life`` may be assigned between calls (checked and stored as
        the constructor does; ValueError, nothing changed, for a bad value); the other
        attributes are read-only (AttributeError): the consoles were made from them.

    Integer arguments take anything with ``__index__`` but a bool (an int, a NumPy
    integer, a 0-d integer array or tensor), as ale-py's bindings do.

    Raises:
        ValueError: unknown or unsupported game, unreadable or unknown ROM file, an
            argument out of range.
    """

    def __init__(self, game: Union[str, os.PathLike], num_envs: int, *, device: Union[str, torch.device] = "cpu",
                 frameskip: int = 1, repeat_action_probability: float = 0.25, full_action_space: bool = False,
                 max_num_frames_per_episode: int = 0, truncate_on_loss_of_life: bool = False,
                 mode: Optional[int] = None,
                 difficulty: Optional[int] = None, seed: Union[None, int, Sequence[int]] = None,
                 num_threads: Optional[int] = None, render: bool = True, sound: bool = False,
                 cpu: str = "low", _emulate_cuda: bool = False, _paddle_range: Optional[tuple] = None,
                 _system_random_seed: Optional[int] = None):
        self.rom: Rom = load_rom(game)
        info = self.rom.info
        num_envs = _int_arg("num_envs", num_envs, 1, 2**31 - 1)
        device = _parse_device(device)
        self.__dict__["_fixed_device"] = device
        # Private, for tests: drive the CUDA backend's code compiled for the host
        # (cule._cuda_emu) on CPU tensors; everything but the torch.cuda calls is the
        # device="cuda" path.
        if _emulate_cuda and self.device.type != "cpu":
            raise ValueError("_emulate_cuda runs on CPU tensors: leave device as 'cpu'")
        if self.device.type == "cuda" and not cuda_available():
            raise ValueError(f"device {str(device)!r} is not available: {_no_cuda_reason()}; use device='cpu'")
        if (self.device.type == "cuda" and self.device.index is not None
                and self.device.index >= torch.cuda.device_count()):
            raise ValueError(f"device {str(device)!r} is not available: this machine has "
                             f"{torch.cuda.device_count()} CUDA device(s)")
        _check_memory(num_envs, self.device, _emulate_cuda)
        frameskip = _int_arg("frameskip", frameskip, 1, 2**31 - 1)
        p = _probability(repeat_action_probability)
        max_num_frames_per_episode = _int_arg("max_num_frames_per_episode", max_num_frames_per_episode, 0, 2**31 - 1)
        modes = info["modes"]
        explicit_mode = mode is not None or difficulty is not None
        m = info["default_mode"] if mode is None else _index_or_none(mode)
        if m is None:
            raise ValueError(f"mode must be an integer, got {mode!r} ({type(mode).__name__})")
        if mode is not None and m not in modes:
            raise ValueError(f"mode {mode!r} is not available for {self.rom.game}; available modes: {modes}")
        mode = m
        difficulties = info["difficulties"]
        d = 0 if difficulty is None else _index_or_none(difficulty)
        if d is None:
            raise ValueError(f"difficulty must be an integer, got {difficulty!r} ({type(difficulty).__name__})")
        if difficulty is not None and d not in difficulties:   # (None: ALE's 0, whatever the game lists)
            raise ValueError(f"difficulty {difficulty!r} is not available for {self.rom.game}; "
                             f"available difficulties: {difficulties}")
        difficulty = d
        if num_threads is None:
            num_threads = os.cpu_count() or 1
        num_threads = min(_int_arg("num_threads", num_threads, 1), num_envs)
        if not isinstance(render, (bool, np.bool_)):
            raise ValueError(f"render must be True or False, got {render!r}")
        if not isinstance(full_action_space, (bool, np.bool_)):
            raise ValueError(f"full_action_space must be True or False, got {full_action_space!r}")
        if not isinstance(sound, (bool, np.bool_)):
            raise ValueError(f"sound must be True or False, got {sound!r}")
        seeds = self._seeds(seed, num_envs)

        self.__dict__.update(_fixed_game=self.rom.game, _fixed_num_envs=num_envs,
                             _fixed_full_action_space=bool(full_action_space), _fixed_mode=mode,
                             _fixed_difficulty=difficulty, _fixed_seeds=seeds,
                             _fixed_screen_shape=self.rom.screen_shape, _fixed_render=bool(render),
                             _fixed_sound=bool(sound))
        self._frameskip = frameskip
        # ALE stores the probability as a float (32-bit) and compares draws against it.
        self._repeat_action_probability = p
        self._max_num_frames_per_episode = max_num_frames_per_episode
        self.truncate_on_loss_of_life = truncate_on_loss_of_life   # checked by the property
        cfg = native_config(self.rom)
        if _paddle_range is not None:
            # Private, for AtariEnv.ale.loadROM: ALE's paddle_min / paddle_max settings
            # (the paddles' resistance range; StellaEnvironment's constructor).
            cfg["paddle_min"], cfg["paddle_max"] = (int(v) for v in _paddle_range)
        if _system_random_seed is not None:
            # Private, for AtariEnv.ale.loadROM: ALE's system_random_seed (an int32 taken
            # as uint32), the seed of the system RNG at power-on (RAM, RIOT timer,
            # cartridge RAM).
            cfg["system_random_seed"] = int(_system_random_seed) & 0xFFFFFFFF
        if not isinstance(cpu, str) or cpu not in ("low", "high"):
            raise ValueError(f"cpu must be 'low' or 'high' (ALE's M6502Low / M6502High), got {cpu!r}")
        if cpu == "high":
            cfg["cpu_high"] = True
        self._cpu = cpu
        # Sound observations: the TIA's audio registers are tracked, and each act makes
        # samples after its last frame (ALE's frame_skip = this batch's frameskip).
        cfg["sound"] = bool(sound)
        self._cfg = cfg
        self._initial_lives = int(_core.initial_lives(cfg["game_id"]))
        ids = _core.legal_actions(cfg["game_id"]) if self.full_action_space else list(info["minimal_actions"])
        self.action_set = torch.tensor(ids, dtype=torch.int64)
        self._cuda = None
        if _emulate_cuda:
            self._cuda = CudaBackend(cfg, self.rom.data, num_envs, self.device, module=emulated_module())
            self._batch = self._cuda.batch
        elif self.device.type == "cuda":
            self._cuda = CudaBackend(cfg, self.rom.data, num_envs, self.device)
            self.__dict__["_fixed_device"] = self._cuda.device   # "cuda" becomes "cuda:N", the GPU in use
            self._batch = self._cuda.batch
        else:
            self._batch = _core.CpuBatch(cfg, self.rom.data, num_envs, int(num_threads))
        # Frames drawn per act: the last two (see CpuBatch.render_last), or none.
        self._batch.render_last = 2 if self.render else 0
        self._rewards = np.zeros(num_envs, dtype=np.int32)
        self._audio = None
        if self.sound:
            # ALE's getAudio buffer, zeros until an act processes audio (the backend
            # writes into it; this object keeps it alive).
            self._audio = torch.zeros((num_envs, _AUDIO_SAMPLES), dtype=torch.uint8, device=self.device)
            if self._cuda is not None:
                self._batch.set_audio(self._audio.data_ptr())
            else:
                self._batch.set_audio(self._audio.numpy())
        # ALE loadROM: power on and reset_game in the default mode and difficulty.
        if self._cuda is not None:
            self._cuda.load(seeds, np.full(num_envs, info["default_mode"], np.uint16),
                            np.zeros(num_envs, np.uint8), self._params())
        else:
            self._batch.load(seeds.astype(np.uint32), np.full(num_envs, info["default_mode"], np.uint16),
                             np.zeros(num_envs, np.uint8), *self._params())
        if explicit_mode:
            # As ale.setMode(m); ale.setDifficulty(d); ale.reset_game() (what Gymnasium's
            # AtariEnv does after loading the ROM).
            self._apply_mode_and_difficulty(np.arange(num_envs, dtype=np.int64))

    @staticmethod
    def _seeds(seed, n: int) -> np.ndarray:
        if seed is None:
            return (np.random.SeedSequence().generate_state(n, dtype=np.uint32) & np.uint32(_MAX_SEED)).astype(np.int64)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            s = int(seed)
            if s < 0 or s + n - 1 > _MAX_SEED:
                raise ValueError(f"seed must be in [0, {_MAX_SEED - n + 1}] for {n} envs, got {seed!r}")
            return np.arange(s, s + n, dtype=np.int64)
        if isinstance(seed, (str, bytes, float, bool)):
            raise ValueError(f"seed must be None, an int or a sequence of ints, got {type(seed).__name__} {seed!r}")
        try:
            arr = np.asarray(list(seed))
        except TypeError:
            raise ValueError(f"seed must be None, an int or a sequence of ints, got {type(seed).__name__}") from None
        if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"seed must hold one integer per env ({n}), got shape {arr.shape} dtype {arr.dtype}")
        if arr.min() < 0 or arr.max() > _MAX_SEED:
            raise ValueError(f"seeds must be in [0, {_MAX_SEED}], got {arr.min()}..{arr.max()}")
        return arr.astype(np.int64)

    game = _fixed("game")
    num_envs = _fixed("num_envs")
    device = _fixed("device")
    full_action_space = _fixed("full_action_space")
    mode = _fixed("mode")
    difficulty = _fixed("difficulty")
    seeds = _fixed("seeds")
    screen_shape = _fixed("screen_shape")
    render = _fixed("render")
    sound = _fixed("sound")

    @property
    def frameskip(self) -> int:
        """Frames emulated per ``act`` (ALE ``frame_skip``); may be changed between calls,
        checked as the constructor checks it (ValueError)."""
        return self._frameskip

    @frameskip.setter
    def frameskip(self, value) -> None:
        self._frameskip = _int_arg("frameskip", value, 1, 2**31 - 1)

    @property
    def repeat_action_probability(self) -> float:
        """Sticky actions' probability as ALE uses it (a 32-bit float written with 6
        significant digits, ``ale_float``); may be changed between calls, checked and
        rounded as the constructor does (ValueError outside [0, 1])."""
        return self._repeat_action_probability

    @repeat_action_probability.setter
    def repeat_action_probability(self, value) -> None:
        self._repeat_action_probability = _probability(value)

    @property
    def max_num_frames_per_episode(self) -> int:
        """ALE's ``max_num_frames_per_episode`` (0: never truncate); may be changed
        between calls, checked as the constructor checks it (ValueError)."""
        return self._max_num_frames_per_episode

    @max_num_frames_per_episode.setter
    def max_num_frames_per_episode(self, value) -> None:
        self._max_num_frames_per_episode = _int_arg("max_num_frames_per_episode", value, 0, 2**31 - 1)

    @property
    def cpu(self) -> str:
        """ALE's CPU core the batch runs: ``"low"`` (M6502Low) or ``"high"`` (M6502High)."""
        return self._cpu

    @property
    def initial_lives(self) -> int:
        """The game's lives as its ALE RomSettings are constructed (ALE's ``m_max_lives``,
        the limit of ``truncate_on_loss_of_life``; ALE 0.12.1 games/supported)."""
        return self._initial_lives

    @property
    def truncate_on_loss_of_life(self) -> bool:
        """ALE's ``truncate_on_loss_of_life``; may be changed between calls (it is judged
        at the next act, reset or ALE-semantics restore).  Raises ValueError for anything
        but True / False."""
        return self._truncate_on_loss_of_life

    @truncate_on_loss_of_life.setter
    def truncate_on_loss_of_life(self, value) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"truncate_on_loss_of_life must be True or False, got {value!r}")
        self._truncate_on_loss_of_life = bool(value)

    def _params(self):
        """The backends' EnvParams: (frameskip, repeat_action_probability,
        max_num_frames_per_episode, the lives limit or _core.NO_LIVES_LIMIT)."""
        max_lives = self.initial_lives if self.truncate_on_loss_of_life else _core.NO_LIVES_LIMIT
        return self.frameskip, self.repeat_action_probability, self.max_num_frames_per_episode, max_lives

    # ---- stepping ----

    def act(self, actions) -> torch.Tensor:
        """Emulate ``frameskip`` frames on every console (ALE ``act``).

        Args:
            actions: int tensor (or array) of shape [num_envs] holding ALE action ids
                (0..17, see ``action_set``); an action the game forbids becomes NOOP.
        Returns:
            int32 tensor [num_envs]: rewards summed over the frameskip frames.
        Raises:
            TypeError: ``actions`` is None or a string.
            ValueError: wrong shape, non-integer dtype, or an id outside [0, 18).
                On the CUDA backend, ids in a CUDA tensor are checked on the GPU so the
                step needs no host synchronisation: an out-of-range id makes that call
                change nothing (rewards 0), and the ValueError is raised by the first
                later call that finds the check done (``act``, ``reset``,
                ``synchronize``, which always does, the setters ``set_ram`` /
                ``set_mode`` / ``set_difficulty``, and a vector env's ``reset`` /
                ``step``).
        """
        # Fast path (CPU backend): a CPU tensor or an array of integer ids, checked and
        # converted by the native side; anything it declines takes the full checks below.
        if self._cuda is not None:
            pass
        elif type(actions) is torch.Tensor and actions.is_cpu and not actions.requires_grad:
            r = self._batch.act_fast(actions.numpy(), *self._params())
            if r is not None:
                return torch.from_numpy(r)
        elif type(actions) is np.ndarray:
            r = self._batch.act_fast(actions, *self._params())
            if r is not None:
                return torch.from_numpy(r)
        if isinstance(actions, torch.Tensor):
            shape = tuple(actions.shape)
        elif actions is None or isinstance(actions, (str, bytes)):
            raise TypeError(f"actions must be an integer tensor or array of shape ({self.num_envs},), got "
                            f"{type(actions).__name__}")
        else:
            shape = np.shape(actions)
        if shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {shape}")
        if self._cuda is not None:
            return self._cuda.act(_check_device_actions(actions, self.device), self._params())
        a = _as_index_array(actions, "actions", 18).astype(np.uint8)
        self._batch.act(a, self._rewards, *self._params())
        return torch.from_numpy(self._rewards.copy())

    def synchronize(self) -> None:
        """Wait for the work queued on this emulator's device (a no-op on the CPU) and
        raise the ValueError of any earlier ``act`` whose CUDA actions were out of range."""
        if self._cuda is not None:
            self._cuda.synchronize()

    def reset(self, env_ids=None) -> None:
        """ALE ``reset_game`` for every console, or for the given env indices.

        RAM is not cleared (as in ALE, it carries over between episodes).  An id
        listed twice is reset once.  Raises ValueError for non-integer or out-of-range
        ids.
        """
        if env_ids is None:
            ids = np.arange(self.num_envs, dtype=np.int64)
        else:
            ids = np.unique(_as_index_array(env_ids, "env_ids", self.num_envs))
        if ids.size and self._cuda is not None:
            self._cuda.raise_pending()
            self._cuda.reset(torch.from_numpy(ids), self._params())
        elif ids.size:
            self._batch.reset(np.ascontiguousarray(ids, dtype=np.int64), *self._params())

    def reload(self, seeds, env_ids=None) -> None:
        """Power the consoles on again with new ALE seeds (ALE ``setInt("random_seed", s)``
        followed by ``loadROM``): fresh RAM and RNGs, the ROM's default mode and difficulty
        0, then ``reset_game``; a mode or difficulty given to the constructor is applied
        again afterwards, as the constructor does.  Frame counters restart at 0.

        Args:
            seeds: an int ``s`` (the i-th reloaded env, in index order, gets ``s + i``)
                or one int per reloaded env, in the order of ``env_ids``, each in
                [0, 2**32 - 1] (ALE casts its int32 ``random_seed`` to uint32, so
                Gymnasium's wrapped negative seeds map to this range; ALE alone seeds
                from the clock for -1, which 2**32 - 1 here does not).
            env_ids: indices of the envs to reload (default: all), without duplicates.
                Reloading a subset costs a power-on of every console (the others are
                restored afterwards).
        Raises:
            ValueError: bad seeds or env ids.
        """
        ids = (np.arange(self.num_envs, dtype=np.int64) if env_ids is None
               else _as_index_array(env_ids, "env_ids", self.num_envs))
        if len(np.unique(ids)) != len(ids):
            raise ValueError("env_ids has duplicates")
        k = int(ids.size)
        if isinstance(seeds, (torch.Tensor, np.ndarray)) and seeds.ndim == 0 and not (
                seeds.dtype in (torch.bool, np.bool_)):
            seeds = seeds.item()   # a 0-d integer array or tensor is an int
        if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
            ids = np.sort(ids)
            s = np.arange(int(seeds), int(seeds) + k, dtype=np.int64)
        else:
            s = np.asarray(seeds.detach().cpu().numpy() if isinstance(seeds, torch.Tensor) else seeds)
            if s.size == 0 and s.dtype == np.float64:
                s = s.astype(np.int64)   # an empty list: no seeds
            if s.shape != (k,) or not np.issubdtype(s.dtype, np.integer) or s.dtype == np.bool_:
                raise ValueError(f"seeds must be an int or {k} integers, got shape {s.shape} dtype {s.dtype}")
            s = s.astype(np.int64)
        if k == 0:
            return
        if s.min() < 0 or s.max() > 2**32 - 1:
            raise ValueError("seeds must be in [0, 2**32 - 1]")
        all_seeds = np.zeros(self.num_envs, dtype=np.uint32)
        all_seeds[ids] = s.astype(np.uint32)
        keep = None
        if k < self.num_envs:
            others = np.setdiff1d(np.arange(self.num_envs), ids)
            keep = (others, self.clone_state(others),
                    None if self._audio is None else self._audio[torch.from_numpy(others)].clone())
        if self._audio is not None:
            # A new StellaEnvironment's audio is zeros (until its reset_game acts).
            self._audio[torch.from_numpy(ids)] = 0
        n = self.num_envs
        if self._cuda is not None:
            self._cuda.load(all_seeds, np.full(n, self.rom.info["default_mode"], np.uint16), np.zeros(n, np.uint8),
                            self._params())
        else:
            self._batch.load(all_seeds, np.full(n, self.rom.info["default_mode"], np.uint16), np.zeros(n, np.uint8),
                             *self._params())
        seeds = self.seeds.copy()   # (the array handed out before stays as it was)
        seeds[ids] = s
        self.__dict__["_fixed_seeds"] = seeds
        if self.mode != self.rom.info["default_mode"] or self.difficulty != 0:
            self._apply_mode_and_difficulty(ids)
        if keep is not None:
            self.restore_state(keep[1], keep[0])
            if keep[2] is not None:
                self._audio[torch.from_numpy(keep[0])] = keep[2]

    # ---- ALE's setters ----

    def set_ram(self, index: int, value, env_ids=None) -> None:
        """ALE ``setRAM(index, value)``: RAM byte ``index`` ($80 + index) of the given
        consoles (default: all) becomes ``value``.  As ALE 0.12.1 does it (a write through
        the console's bus, ``System::poke``), the data bus holds the value afterwards; the
        next frame runs on from the changed RAM.

        Args:
            index: 0..127.
            value: an int in 0..255 for every env, or one per env of ``env_ids`` (a
                sequence, NumPy array or tensor of integers).
            env_ids: env indices (default: all), without duplicates.
        Raises:
            ValueError: an index outside 0..127, a value outside 0..255, values that do
                not match the envs, or bad env ids.  Nothing is changed then.
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < 128:
            raise ValueError(f"index must be an integer in [0, 128) (RAM bytes $80-$FF), got {index!r}")
        self._set(_core.SET_RAM, int(index), value, env_ids, "value", range(256))

    def set_mode(self, mode: int, env_ids=None) -> None:
        """ALE ``setMode(mode)`` on the given consoles (default: all): the mode is stored
        and selected at their next ``reset`` (ALE 0.12.1 ``StellaEnvironment::setMode``;
        ``reset_game`` then selects it between its two soft resets).  ``reload`` returns
        the consoles to this batch's own ``mode`` (the constructor's), as ALE's
        ``loadROM`` returns to the default mode.

        Raises:
            ValueError: a mode the game does not offer (``rom.info["modes"]``; ALE raises
                "Invalid game mode requested"), or bad env ids.  Nothing is changed then.
        """
        self._set(_core.SET_MODE, 0, mode, env_ids, "mode", self.rom.info["modes"])

    def set_difficulty(self, difficulty: int, env_ids=None) -> None:
        """ALE ``setDifficulty(difficulty)`` on the given consoles (default: all): bit 0
        is the left difficulty switch (1: A), bit 1 the right one.  As in ALE 0.12.1 the
        switches take the new position from the next frame (``ALEState::resetKeys`` sets
        them whenever an action is applied), not only at the next reset; ``reload``
        returns to this batch's own ``difficulty``.

        Raises:
            ValueError: a difficulty the game does not offer (``rom.info["difficulties"]``;
                ALE raises "Invalid difficulty requested"), or bad env ids.  Nothing is
                changed then.
        """
        self._set(_core.SET_DIFFICULTY, 0, difficulty, env_ids, "difficulty", self.rom.info["difficulties"])

    def _set(self, what: int, index: int, values, env_ids, name: str, allowed) -> None:
        ids = (np.arange(self.num_envs, dtype=np.int64) if env_ids is None
               else _as_index_array(env_ids, "env_ids", self.num_envs))
        if len(np.unique(ids)) != len(ids):
            raise ValueError("env_ids has duplicates")
        if isinstance(values, torch.Tensor):
            if values.is_meta:
                raise ValueError(f"{name} is a tensor on the meta device, which holds no values")
            values = values.detach().cpu().numpy()
        def not_allowed(x):
            if isinstance(allowed, range):
                return ValueError(f"{name} {x} is outside [{allowed.start}, {allowed.stop - 1}]")
            return ValueError(f"{name} {x} is not available for {self.game}; available: {list(allowed)}")

        if isinstance(values, int) and not isinstance(values, bool) and not -2**63 <= values < 2**63:
            raise not_allowed(values)   # (NumPy could not even hold it)
        v = np.asarray(values)
        if v.dtype == np.bool_ or not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{name} must be an integer or integers, got {values!r}")
        if v.ndim == 0:
            v = np.full(len(ids), v, dtype=v.dtype)
        elif v.shape != (len(ids),):
            raise ValueError(f"{name} must be one integer or {len(ids)} (one per env), got shape {v.shape}")
        bad = [x for x in np.unique(v).tolist() if x not in allowed]   # Python ints: no wrap-around
        if bad:
            raise not_allowed(bad[0])
        self._write(what, index, v.astype(np.int64), ids)

    def _write(self, what: int, index: int, values: np.ndarray, ids: np.ndarray) -> None:
        """The setters' write (checked values): env ``ids[k]`` gets ``values[k]``."""
        if not len(ids):
            return
        v32 = np.ascontiguousarray(values, dtype=np.int32)
        if self._cuda is not None:
            self._cuda.raise_pending()
            self._cuda.set(torch.from_numpy(ids), what, index, torch.from_numpy(v32))
        else:
            self._batch.set(np.ascontiguousarray(ids), what, index, v32)

    def _apply_mode_and_difficulty(self, ids: np.ndarray) -> None:
        """This batch's own mode and difficulty on envs ``ids``, then reset_game, as
        Gymnasium's AtariEnv drives ALE after a ROM load.  (Unchecked: a mode given
        alone leaves difficulty 0, which backgammon, whose only difficulty is 3, does
        not list, as ALE leaves it.)"""
        self._write(_core.SET_MODE, 0, np.full(len(ids), self.mode), ids)
        self._write(_core.SET_DIFFICULTY, 0, np.full(len(ids), self.difficulty), ids)
        self.reset(ids)

    # ---- save / restore ----

    def clone_state(self, env_ids=None, include_rng: bool = True, frame_buffers: bool = True) -> dict:
        """Snapshot of the given consoles (default: all): everything that determines their
        future, bit for bit (CPU, RIOT, TIA, cartridge, frame buffers, ALE episode state,
        both RNGs, mode and difficulty).  ``include_rng`` matters only to
        ``restore_state(..., ale_semantics=True)``, which then leaves the sticky-action
        RNG as it is without it, as ALE 0.12.1's ``restoreState`` does with a state from
        ``cloneState()`` (whose default is False); the snapshot holds the bytes either way
        and says ``include_rng``.

        Returns a dict of plain values and tensors, savable with ``torch.save`` (and
        loadable with ``torch.load``, ``weights_only=True`` included):
        ``format``, ``game``, ``md5``, ``console_state_bytes``, ``frame_buffer_bytes``,
        ``env_ids`` (int64 [k], on the CPU), ``consoles`` (uint8 [k, console_state_bytes]),
        ``frame_buffers`` (uint8 [k, frame_buffer_bytes]), ``digest`` and
        ``frame_buffer_digest`` (int64 [k], a checksum of each row of ``consoles``, and
        one of each row of ``frame_buffers`` xor its console's, which ``restore_state``
        checks),
        ``include_rng`` (bool), ``sound`` (whether the batch tracks the TIA's audio: its
        sound registers and generators are in ``consoles``, its ``audio`` samples are
        not, as ALE's ``cloneState`` leaves out ``getAudio``'s buffer), ``cpu`` (ALE's CPU
        core the batch runs: ``"low"``, or ``"high"`` for ALE's ``cpu`` setting's
        M6502High, see ``cule.ALEInterface``); ``consoles``,
        ``frame_buffers`` and the digests are on the env's device.  Both backends write the
        same bytes, so a state moves between CPU and CUDA envs.  The bytes are this build's
        struct layout: restore them with the same cule version, and do not edit them.
        A batch made with ``render=False`` draws nothing, so its snapshots' frame buffers
        hold no screen: restored into a batch that renders, the screen is blank (or
        stale) until the next frame is drawn.

        ``frame_buffers=False`` leaves the frame buffers (96 KB a console, nearly all of
        a snapshot) out, as ALE's states leave out the screen: ``frame_buffers`` and
        ``frame_buffer_digest`` are then None, and only ``restore_state(...,
        ale_semantics=True)``, which keeps the restoring console's own frame buffers,
        takes the snapshot (the Gymnasium env's and ``cule.ALEInterface``'s states are
        such snapshots).

        Raises ValueError for bad env ids (out of range, not integers, or listed twice:
        restore_state could not put such a snapshot back) and for an ``include_rng`` or
        ``frame_buffers`` that is not a bool.
        """
        if not isinstance(include_rng, (bool, np.bool_)):
            raise ValueError(f"include_rng must be a bool, got {include_rng!r}")
        if not isinstance(frame_buffers, (bool, np.bool_)):
            raise ValueError(f"frame_buffers must be a bool, got {frame_buffers!r}")
        ids = (np.arange(self.num_envs, dtype=np.int64) if env_ids is None
               else _as_index_array(env_ids, "env_ids", self.num_envs))
        if len(np.unique(ids)) != len(ids):
            raise ValueError("env_ids has duplicates")
        if self._cuda is not None:
            c, f = self._cuda.export_state(torch.from_numpy(ids))
            cs, fs = self._cuda.console_state_bytes, self._cuda.frame_buffer_bytes
        else:
            consoles, fbs = self._batch.state_views()
            c = torch.from_numpy(consoles[ids])
            f = torch.from_numpy(fbs[ids]) if frame_buffers else None
            cs, fs = consoles.shape[1], fbs.shape[1]
        digest = _row_digests(c)
        return {
            "format": "cule.Atari/1",
            "game": self.game,
            "md5": self.rom.info["md5"],
            "console_state_bytes": int(cs),
            "frame_buffer_bytes": int(fs),
            "env_ids": torch.from_numpy(ids.copy()),
            "consoles": c,
            "frame_buffers": f if frame_buffers else None,
            "digest": digest,
            # Tied to the row's console, so frame buffers of another snapshot are refused.
            "frame_buffer_digest": _row_digests(f) ^ digest if frame_buffers else None,
            "include_rng": bool(include_rng),
            "sound": self.sound,
            "cpu": self._cpu,
        }

    def restore_state(self, state: dict, env_ids=None, ale_semantics: bool = False) -> None:
        """Put consoles back in a state from ``clone_state`` (possibly of another ``Atari``
        of the same game, or loaded from disk).

        By default everything is restored: the consoles then have the snapshot's future,
        whatever ran in between.  ALE's ``restoreState`` (ale-py 0.12.1) restores less:
        the sticky action, the frame buffers (so the screen until the next frame), the
        TIA's partial-frame flags and object masks, the data bus and the input events go
        on from before the restore, as does the sticky-action RNG unless the state was
        cloned with ``include_rng``; a few fields come back altered (the DPC's
        fractional clocks in pitfall2, five of miniature_golf's variables) or not at all
        (a flag in chopper_command and demon_attack, atlantis2's lives).
        ALE also judges truncation by the restoring env's max_num_frames_per_episode
        and truncate_on_loss_of_life.
        ``ale_semantics=True`` restores exactly as ALE does, that included (csrc/ale_env.hpp,
        ``ale_restore_state``); ``cule.AtariEnv.restore_state`` uses it.

        Args:
            state: the dict ``clone_state`` returned (a ``cule.ALEState`` too).
            env_ids: the envs to overwrite, one per snapshot row (default: the env ids
                the snapshot was taken from).
            ale_semantics: restore as ALE 0.12.1's ``restoreState`` does (above); the
                only restore that takes a snapshot without frame buffers
                (``clone_state(frame_buffers=False)``), since it keeps the consoles' own.
        Raises:
            ValueError: a snapshot without frame buffers for a full restore, an ale-py
                state (said so), a state of another game, format or build, consoles or frame buffers
                whose bytes do not match their digest (a corrupt or edited snapshot; a
                snapshot saved before frame buffers had a digest is restored without
                that check), or env ids that do
                not match the snapshot's rows, a non-bool ``ale_semantics`` or ``include_rng``,
                or a full restore into a batch with sound of a state from one without, or a
                state of the other CPU core (``cpu``: ALE's M6502::load refuses another
                core's state).
            Nothing is changed then.
        """
        if not isinstance(ale_semantics, (bool, np.bool_)):
            raise ValueError(f"ale_semantics must be a bool, got {ale_semantics!r}")
        if not isinstance(state, dict) or state.get("format") != "cule.Atari/1":
            raise ValueError("state must be a dict returned by cule.Atari.clone_state" + _state_type_note(state))
        missing = [k for k in ("game", "md5", "console_state_bytes", "frame_buffer_bytes", "consoles",
                               "frame_buffers", "env_ids", "digest") if k not in state]
        if missing:
            raise ValueError(f"state is missing {', '.join(missing)}: pass a dict returned by cule.Atari.clone_state")
        if not isinstance(state.get("include_rng", True), (bool, np.bool_)):
            raise ValueError("state's include_rng must be a bool")
        if self.sound and not ale_semantics and not state.get("sound", False):
            # Its consoles never recorded their audio writes: their sound registers and
            # generators are not the game's.  (An ALE restore keeps this batch's own.)
            raise ValueError("state comes from a batch made without sound=True: a full restore into this "
                             "batch would bring back sound registers that were never recorded "
                             "(restore it with ale_semantics=True, or take it from a batch with sound)")
        if state["game"] != self.game:
            raise ValueError(f"state is of {state['game']!r}, not of {self.game!r} (the game loaded here)")
        cpu = self._cpu
        if state.get("cpu", "low") != cpu:
            # ALE's System::loadState stops at the CPU (M6502::load checks the core's name).
            raise ValueError(f"state was taken with ALE's cpu={state.get('cpu', 'low')!r} core; this batch runs "
                             f"cpu={cpu!r} (ALE cannot restore another core's state either)")
        if state["md5"] != self.rom.info["md5"]:
            raise ValueError(f"state was taken with a ROM of MD5 {state['md5']!r}; {self.game!r} is loaded "
                             f"here from a ROM of MD5 {self.rom.info['md5']!r}")
        if self._cuda is not None:
            cs, fs = self._cuda.console_state_bytes, self._cuda.frame_buffer_bytes
        else:
            consoles, fbs = self._batch.state_views()
            cs, fs = consoles.shape[1], fbs.shape[1]
        if state["console_state_bytes"] != cs or state["frame_buffer_bytes"] != fs:
            raise ValueError("state was saved by a cule build with another console layout")
        c = state["consoles"]
        f = state["frame_buffers"]
        if f is None and not ale_semantics:
            raise ValueError("state holds no frame buffers (clone_state(frame_buffers=False), the states of the "
                             "Gymnasium env and ALEInterface): only restore_state(..., ale_semantics=True) takes it")
        # Tensors of either backend (CPU or CUDA) or arrays.
        try:
            c = c if isinstance(c, torch.Tensor) else torch.from_numpy(np.asarray(c))
            f = f if isinstance(f, torch.Tensor) or f is None else torch.from_numpy(np.asarray(f))
        except (TypeError, ValueError):   # not numbers (strings, objects, ragged lists)
            raise ValueError("state arrays are malformed: consoles and frame_buffers must be uint8 arrays "
                             "or tensors, as clone_state returns them") from None
        if (c.dtype != torch.uint8 or c.ndim != 2 or c.shape[1] != cs
                or f is not None and (f.dtype != torch.uint8 or f.ndim != 2 or len(c) != len(f) or f.shape[1] != fs)):
            raise ValueError("state arrays are malformed")
        _check_snapshot_digests(c, f, state, "state")
        ids = _as_index_array(state["env_ids"] if env_ids is None else env_ids, "env_ids", self.num_envs)
        if len(ids) != len(c):
            raise ValueError(f"state holds {len(c)} consoles but {len(ids)} env ids were given")
        if len(np.unique(ids)) != len(ids):
            raise ValueError("env_ids has duplicates")
        if ale_semantics:
            # Merge on the host (a rare path): each overwritten env's own console and
            # frame buffers, with the snapshot loaded into them as ALE would.
            if self._cuda is not None:
                now, now_f = (x.cpu() for x in self._cuda.export_state(torch.from_numpy(ids)))
                now_f = now_f.to(c.device)
            else:   # the frame buffers stay where they are
                now, now_f = torch.from_numpy(consoles[ids]), None
            merged = now.numpy()
            _core.ale_restore_rows(merged, np.ascontiguousarray(c.detach().cpu().numpy()), self._cfg,
                                   bool(state.get("include_rng", True)), *self._params()[2:])
            c, f = torch.from_numpy(merged).to(c.device), now_f
        if self._cuda is not None:
            self._cuda.import_state(torch.from_numpy(ids), c, f)
        else:
            consoles[ids] = c.detach().cpu().numpy()
            if f is not None:
                fbs[ids] = f.detach().cpu().numpy()

    # ---- observations ----

    @property
    def ram(self) -> torch.Tensor:
        """uint8 tensor [num_envs, 128]: the RIOT RAM ($80-$FF), as ALE's getRAM."""
        if self._cuda is not None:
            return self._cuda.ram()
        out = np.empty((self.num_envs, 128), dtype=np.uint8)
        self._batch.read_ram(out)
        return torch.from_numpy(out)

    @property
    def audio(self) -> torch.Tensor:
        """uint8 tensor [num_envs, 512], on the batch's device: each console's audio
        samples (ALE ``getAudio``) of the last frame of its last ``act``, made after that
        frame from the TIA's audio registers (ALE 0.12.1 ``processAudio``); zeros after
        loading.  Resets and restores leave it as it is, as in ALE, except that a reset
        whose mode selection acts (berzerk, double_dunk, some modes of adventure and
        video_cube) makes audio with those acts, as ALE's does (so a batch of those
        games has audio from its first reset on).

        Raises:
            RuntimeError: the batch was made without ``sound=True``.
        """
        if self._audio is None:
            raise RuntimeError("this cule.Atari was made without sound=True: no audio is generated")
        return self._audio.clone()

    def _check_render(self):
        if not self.render:
            raise RuntimeError("this cule.Atari was created with render=False: no frames are drawn, "
                               "so there is no screen to read (RAM, rewards and flags are available)")

    def screen_rgb(self) -> torch.Tensor:
        """uint8 tensor [num_envs, H, W, 3] of the last frame, as ALE's getScreenRGB.

        Raises:
            RuntimeError: the emulator was created with ``render=False``.
        """
        self._check_render()
        if self._cuda is not None:
            return self._cuda.screen_rgb()
        h, w = self.screen_shape
        out = np.empty((self.num_envs, h, w, 3), dtype=np.uint8)
        self._batch.screen_rgb(out)
        return torch.from_numpy(out)

    def screen_grayscale(self) -> torch.Tensor:
        """uint8 tensor [num_envs, H, W] of the last frame, as ALE's getScreenGrayscale.

        Raises:
            RuntimeError: the emulator was created with ``render=False``.
        """
        self._check_render()
        if self._cuda is not None:
            return self._cuda.screen_grayscale()
        h, w = self.screen_shape
        out = np.empty((self.num_envs, h, w), dtype=np.uint8)
        self._batch.screen_grayscale(out)
        return torch.from_numpy(out)

    def _info(self):
        if self._cuda is not None:
            return self._cuda.info()
        n = self.num_envs
        lives = np.empty(n, np.int32)
        term = np.empty(n, np.uint8)
        trunc = np.empty(n, np.uint8)
        ep = np.empty(n, np.int32)
        fr = np.empty(n, np.int32)
        self._batch.read_info(lives, term, trunc, ep, fr)
        return lives, term, trunc, ep, fr

    @property
    def lives(self) -> torch.Tensor:
        """int32 tensor [num_envs]: ALE ``lives()`` (0 for games without lives)."""
        return torch.as_tensor(self._info()[0])

    @property
    def terminated(self) -> torch.Tensor:
        """bool tensor [num_envs]: the game is over (ALE ``game_over(with_truncation=False)``)."""
        return torch.as_tensor(self._info()[1]).bool()

    @property
    def truncated(self) -> torch.Tensor:
        """bool tensor [num_envs] on the batch's device: the episode reached
        max_num_frames_per_episode, or, with truncate_on_loss_of_life, the game's lives
        are below ``initial_lives`` (ALE ``game_truncated``; some games, such as amidar,
        bank_heist, demon_attack and turmoil, start below it and so are truncated at
        once)."""
        return torch.as_tensor(self._info()[2]).bool()

    @property
    def episode_frame_number(self) -> torch.Tensor:
        """int32 tensor [num_envs]: frames emulated in this episode (ALE ``getEpisodeFrameNumber``)."""
        return torch.as_tensor(self._info()[3])

    @property
    def frame_number(self) -> torch.Tensor:
        """int32 tensor [num_envs]: frames emulated by acts since the ROM was loaded (ALE ``getFrameNumber``; those of ``reset`` are not counted)."""
        return torch.as_tensor(self._info()[4])

    def __repr__(self) -> str:
        return (f"cule.Atari({self.game!r}, num_envs={self.num_envs}, device={str(self.device)!r}, "
                f"frameskip={self.frameskip}, repeat_action_probability={self.repeat_action_probability})")
