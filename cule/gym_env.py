"""``cule.AtariEnv``: a single Gymnasium environment with ale-py 0.12.1 ``AtariEnv`` semantics.

Same constructor arguments, defaults, spaces, seeding and step results as
``ale_py.env.AtariEnv`` (src/ale/python/env.py at v0.12.1), on one cule console:
for the same ``reset(seed=...)`` and actions it returns the same observations, rewards,
flags and info step for step.  Observations are NumPy arrays, as Gymnasium expects.

Registered as ``cule/<Game>-v5`` (see ``cule.registration``); ``gym.make`` gives this class.
"""
from __future__ import annotations

import functools
import operator
import os
import pathlib
import sys
import time
import warnings
from typing import Any, Optional, Union

import gymnasium
import numpy as np
import torch
from gymnasium import error, spaces, utils
from gymnasium.utils import seeding

from . import _core, _vector
from .ale_settings import AleSettings
from .ale_state import ALEState
from .atari import Atari, _index_or_none, _real_number, _state_type_note
from .human_render import HumanDisplay
from ._rom_table import ROMS
from .roms import PADDLE_MAX, PADDLE_MIN, _PADDLE_MAX_OVERRIDE, identify, load_rom
from .vector_env import (_DIRECTION_ACTIONS, CONTINUOUS_ACTION_TABLE, ALEIndexError, ALERuntimeError, ALETypeError,
                         InvalidArgument, _check_real, _invalid_argument, _is_int)

ACTION_NAMES = ["NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
                "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE",
                "DOWNLEFTFIRE"]


def _ale_index(value, name: str, what: str, valid) -> int:
    """An index argument as ale-py's bindings take it: ALETypeError where pybind11
    refuses it (not an int, or negative: ALE's parameter is unsigned), ALERuntimeError
    where ALE does (``valid(v)`` false).  A Python bool is an int (NumPy's is not, as
    for pybind11); the parameter is a C unsigned int."""
    v = _ale_uint(value)
    if v is None:
        raise ALETypeError(f"{name} must be an integer in [0, 2**32 - 1], got {value!r} ({type(value).__name__})")
    if not valid(v):
        raise ALERuntimeError(f"{what} (got {v})")
    return v


def _ale_uint(value) -> Optional[int]:
    """``value`` as pybind11 takes a C unsigned int: anything with ``__index__`` (an int,
    a Python bool, a NumPy integer, a 0-d integer array or tensor such as ``q.argmax()``)
    in [0, 2**32 - 1]; None otherwise (a NumPy bool too, as for pybind11)."""
    if isinstance(value, np.bool_):
        return None
    try:
        v = operator.index(value)
    except TypeError:
        return None
    return v if 0 <= v <= 2**32 - 1 else None


@functools.lru_cache(2)
def _colour_averaging_tables(pal: bool):
    """ALE 0.12.1's colour averaging (the ``color_averaging`` setting; PhosphorBlend in
    src/ale/environment/phosphor_blend.cpp): (blend uint8 [256, 256], rgb uint8 [256, 3],
    gray uint8 [256]).  ``blend[cv, pv]`` is the palette index ALE's screen shows for a
    pixel whose current frame has index ``cv`` and previous frame ``pv``: each RGB channel
    blended as ``(hi - lo) * 77 // 100 + lo`` (Stella's phosphor ratio 77), then the even
    palette index nearest to the blend with its two low bits cleared (L1 distance over
    RGB, the first of equals).  ALE leaves the blend of an odd index (PAL colour loss)
    unset; a fresh (zeroed) table gives black's nearest, as here.  ``rgb`` and ``gray``
    convert an index as ALE's ColourPalette does."""
    rgb, gray = _core.palette_lut(pal)
    colours = rgb[0::2].astype(np.int32)                                   # the even indices
    hi = np.maximum(colours[:, None, :], colours[None, :, :])
    lo = np.minimum(colours[:, None, :], colours[None, :, :])
    blended = ((hi - lo) * 77 // 100 + lo) & ~3                            # [128, 128, 3]
    nearest = lambda c: 2 * np.abs(c[..., None, :] - colours).sum(-1).argmin(-1)   # noqa: E731
    blend = np.full((256, 256), nearest(np.zeros(3, np.int32)), np.uint8)
    blend[0::2, 0::2] = nearest(blended)
    return blend, rgb, gray


def _averaged_index(atari: Atari, frame_buffers: np.ndarray, current: int) -> np.ndarray:
    """The colour-averaged screen (palette indices, uint8 [H, W]) of a console of `atari`
    from its two frame buffers (uint8 [2 * frame_buffer_bytes]), buffer `current` the
    current one."""
    h, w = atari.screen_shape
    buffers = frame_buffers.reshape(2, _core.frame_buffer_bytes)[:, :h * w].reshape(2, h, w)
    blend = _colour_averaging_tables(atari.rom.info["display"] == "PAL")[0]
    return blend[buffers[current], buffers[1 - current]]


def _caller_stacklevel() -> int:
    """The ``warnings.warn`` stacklevel of the first frame outside the cule package
    (the user's call that led here)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _write_screen_png(path, rgb: np.ndarray) -> None:
    """An RGB screen (uint8 [H, W, 3]) as ALE 0.12.1's ScreenExporter writes it: a PNG
    of H x 2W pixels (each pixel twice as wide), here with imageio."""
    import imageio.v3 as iio

    iio.imwrite(path, np.repeat(rgb, 2, axis=1), extension=".png")


def _require_state(state, call: str, source: str) -> None:
    """ALETypeError (a TypeError, as ale-py's binding raises) unless ``state`` is a state
    dict; an ale-py state is named as such."""
    if not isinstance(state, dict) or not state.get("format"):
        raise ALETypeError(f"{call}: state must be a state from {source}"
                           + (" (a dict without the keys of one)" if isinstance(state, dict) else _state_type_note(state)))


class ConsoleView:
    """``AtariEnv.ale``: ALEInterface's methods for the env's console (ale-py 0.12.1's
    names, arguments and return types), for code that drives or reads
    ``env.unwrapped.ale`` directly: Gymnasium's ``AtariPreprocessing`` and
    Stable-Baselines3's Atari wrappers (screens, lives), planners (``act``,
    ``cloneState`` / ``restoreState``, ``reset_game``).

    ``act`` emulates ALE's ``frame_skip`` frames (1 under ale-py's env) with the env's
    sticky actions.  ALE's settings table is here too (``getInt`` / ``setInt`` ...,
    ``loadROM``; see ``loadROM`` for the settings cule emulates).  States are
    ``cule.ALEState`` objects: ale-py's ``ALEState`` methods on a one-console
    ``cule.Atari.clone_state`` dict.  Buffers given to
    the ``getScreen*`` / ``getRAM`` methods must be writable uint8 NumPy arrays or CPU
    tensors of the right shape (else ValueError).
    """

    def __init__(self, env: "AtariEnv"):
        self._env = env
        self._settings = AleSettings()
        self._display_requested = False   # setBool("display_screen", True) since the last window opened

    def __reduce_ex__(self, protocol):
        # As ale-py's ALEInterface, which pybind11 makes unpicklable: pickle and
        # copy.deepcopy / copy.copy raise TypeError (a copy made here was a fresh console,
        # not tied to its env, whose play contradicted the settings it reported).
        raise TypeError(f"cannot pickle {type(self).__name__!r} object (as ale-py's ALEInterface); "
                        f"a state from cloneState() pickles, and so does the env (a fresh one)")

    @property
    def _atari(self) -> Atari:
        return self._env.atari   # loadROM may replace it

    # ---- episode ----

    def lives(self) -> int:
        """Lives left (ALE ``lives``; 0 for games without lives)."""
        return int(self._atari.lives[0])

    def game_over(self, with_truncation: bool = True) -> bool:
        """The episode has ended: terminated, or truncated (max_num_frames_per_episode,
        truncate_on_loss_of_life) unless ``with_truncation`` is False (ALE ``game_over``)."""
        return bool(self._atari.terminated[0]) or (bool(with_truncation) and self.game_truncated())

    def game_truncated(self) -> bool:
        """The episode reached max_num_frames_per_episode, or lost a life with
        truncate_on_loss_of_life (ALE ``game_truncated``)."""
        return bool(self._atari.truncated[0])

    def getEpisodeFrameNumber(self) -> int:  # noqa: N802 (ALE's name)
        """Frames emulated since the episode's reset_game."""
        return int(self._atari.episode_frame_number[0])

    def getFrameNumber(self) -> int:  # noqa: N802
        """Frames emulated by acts since the ROM was loaded (ALE ``getFrameNumber``: the
        frames ``reset_game`` emulates are not counted)."""
        return int(self._atari.frame_number[0])

    def act(self, action, paddle_strength: float = 1.0) -> int:
        """ALE ``act``: ALE's ``frame_skip`` setting's frames (1 unless ``setInt("frame_skip",
        k)``; the env's own frameskip is applied by ``step``, not here) with ALE action id
        ``action`` (0..17, an int or ``ale_py.Action``), sticky actions included; returns
        their summed reward, clamped by ``reward_min`` / ``reward_max`` if set.

        Raises:
            ValueError: an action outside 0..17 or a strength outside [-1, 1] (ale-py
                acts on both); ``ALETypeError`` (also a TypeError, as ale-py raises) for a
                negative or non-integer action.  A bool is an int, as in ale-py.
        """
        a = _ale_uint(getattr(action, "value", action))   # ale-py takes a C unsigned int
        if a is None:
            raise ALETypeError(f"action must be an ALE action id 0..17, got {action!r}")
        if a >= len(ACTION_NAMES):
            raise InvalidArgument(f"action must be an ALE action id 0..17, got {action!r}")
        if not isinstance(paddle_strength, bool) and _real_number(paddle_strength) is None:
            raise ALETypeError(f"paddle_strength must be a number, got {paddle_strength!r}")
        strength = float(paddle_strength)
        if not -1.0 <= strength <= 1.0:
            raise InvalidArgument(f"paddle_strength must be in [-1, 1], got {paddle_strength!r}")
        return self._env._act_ale(a, strength, 1)

    # ---- state ----

    def cloneState(self, include_rng: bool = False) -> ALEState:  # noqa: N802
        """The console's state (ALE ``cloneState``), a ``cule.ALEState``; see
        ``AtariEnv.clone_state``.
        ``ALETypeError`` (also a TypeError, as ale-py) for an ``include_rng`` that is not
        a bool."""
        if not isinstance(include_rng, bool):
            raise ALETypeError(f"cloneState(): include_rng must be a bool, got {include_rng!r}")
        return self._env.clone_state(include_rng=include_rng)

    def restoreState(self, state: dict) -> None:  # noqa: N802
        """Restores a ``cloneState`` state as ALE does; see ``AtariEnv.restore_state``.
        ``ALETypeError`` (also a TypeError, as ale-py) for anything but a state dict."""
        _require_state(state, "restoreState()", "cloneState")
        self._env.restore_state(state)

    def cloneSystemState(self) -> ALEState:  # noqa: N802
        """ALE ``cloneSystemState``: ``cloneState(include_rng=True)``, as in ALE 0.12.1."""
        return self._env.clone_state(include_rng=True)

    def restoreSystemState(self, state: dict) -> None:  # noqa: N802
        """ALE ``restoreSystemState``: ``restoreState``, as in ALE 0.12.1."""
        self.restoreState(state)

    # ---- game facts ----

    def reset_game(self) -> None:
        """ALE ``reset_game`` (without the env's ``reset`` bookkeeping, as in ale-py)."""
        self._env._recorded(self._atari.reset)

    def setRAM(self, index: int, value: int) -> None:  # noqa: N802
        """ALE ``setRAM``: RAM byte ``index`` (0..127, address $80 + index) becomes
        ``value`` (0..255); see ``cule.Atari.set_ram``.

        Raises:
            ALERuntimeError: an index of 128 or more (a ValueError and, as ale-py raises,
                a RuntimeError).
            ALETypeError: a negative or non-integer index, or a value outside 0..255 (a
                ValueError and, as ale-py raises, a TypeError).
        """
        index = _ale_index(index, "setRAM index", "setRAM index out of bounds: RAM indices are 0..127",
                           lambda i: i < 128)
        v = _ale_uint(value)
        if v is None or v > 255:
            raise ALETypeError(f"setRAM value must be an integer in 0..255, got {value!r}")
        with _invalid_argument():
            self._atari.set_ram(index, v)

    def setMode(self, mode: int) -> None:  # noqa: N802
        """ALE ``setMode``: selected at the next ``reset_game`` (or the env's ``reset``);
        a ``reset(seed=...)`` reloads the ROM and returns to the env's own ``mode``, as in
        ale-py.

        Raises:
            ALERuntimeError: a mode ``getAvailableModes`` does not list (a ValueError and,
                as ale-py raises, a RuntimeError).
            ALETypeError: a negative or non-integer mode (ale-py: TypeError).
        """
        modes = self.getAvailableModes()
        mode = _ale_index(mode, "mode", f"Invalid game mode requested: {self._atari.game} has modes {modes}",
                          lambda m: m in modes)
        with _invalid_argument():
            self._atari.set_mode(mode)

    def setDifficulty(self, difficulty: int) -> None:  # noqa: N802
        """ALE ``setDifficulty``: the difficulty switches move from the next frame on (as
        in ALE); a ``reset(seed=...)`` returns to the env's own ``difficulty``.

        Raises:
            ALERuntimeError: a difficulty ``getAvailableDifficulties`` does not list (a
                ValueError and, as ale-py raises, a RuntimeError).
            ALETypeError: a negative or non-integer difficulty (ale-py: TypeError).
        """
        levels = self.getAvailableDifficulties()
        difficulty = _ale_index(difficulty, "difficulty", f"Invalid difficulty requested: {self._atari.game} has "
                                f"difficulties {levels}", lambda d: d in levels)
        with _invalid_argument():
            self._atari.set_difficulty(difficulty)

    def getMinimalActionSet(self) -> list:  # noqa: N802
        """The game's minimal action set, as ``ale_py.Action`` values."""
        return _actions(self._atari.rom.info["minimal_actions"])

    def getLegalActionSet(self) -> list:  # noqa: N802
        """ALE's legal action set (all 18 but for skiing and lost_luggage), as ``ale_py.Action``."""
        return _actions(_core.legal_actions(self._atari._cfg["game_id"]))

    def getAvailableModes(self) -> list:  # noqa: N802
        """The game's modes (ALE ``getAvailableModes``)."""
        return [int(m) for m in self._atari.rom.info["modes"]]

    def getAvailableDifficulties(self) -> list:  # noqa: N802
        """The game's difficulties (ALE ``getAvailableDifficulties``)."""
        return [int(d) for d in self._atari.rom.info["difficulties"]]

    # ---- observations ----

    def getAudio(self, buffer=None):  # noqa: N802
        """The 512 audio samples of the last frame acted (ALE ``getAudio``): a new uint8
        [512] array, or written into ``buffer`` (returns None then).  Zeros without
        ``sound_obs``, or with the setting ``sound`` (human mode sets it), as in ALE."""
        audio = self._atari.audio[0] if self._atari.sound else torch.zeros(512, dtype=torch.uint8)
        return _fill(audio, buffer)

    def getAudioSize(self) -> int:  # noqa: N802
        """512: audio samples per frame (ALE ``getAudioSize``; ALE 0.12.1's
        ``SoundRaw::SamplesPerFrame``)."""
        return 512

    def getScreenDims(self) -> tuple:  # noqa: N802
        """(height, width) of the screen, e.g. (210, 160)."""
        return tuple(self._atari.screen_shape)

    def getRAMSize(self) -> int:  # noqa: N802
        """128: the RIOT's RAM bytes."""
        return 128

    def getRAM(self, buffer=None):  # noqa: N802
        """The 128 bytes of RIOT RAM: a new uint8 [128] array, or written into ``buffer``
        (returns None then, as ALE)."""
        return _fill(self._atari.ram[0], buffer)

    def getScreen(self, buffer=None):  # noqa: N802
        """The screen as palette indices (ALE ``getScreen``): a new uint8 [H, W] array,
        or written into ``buffer`` (returns None then, as ALE).

        Raises:
            ALETypeError / ALERuntimeError: a ``buffer`` of the wrong type / shape, as
                ``getScreenRGB``.
        """
        return _fill(torch.from_numpy(self._env._screen("index")), buffer)

    def getScreenRGB(self, buffer=None):  # noqa: N802
        """The screen in RGB: a new uint8 [H, W, 3] array, or written into ``buffer``
        (returns None then, as ALE).

        Raises:
            ALETypeError (a TypeError, as ale-py): ``buffer`` is not a writable uint8
                NumPy array or CPU tensor, or a tensor of the wrong shape.
            ALERuntimeError (a RuntimeError, as ale-py): a uint8 NumPy array of the
                wrong shape.
        """
        return _fill(torch.from_numpy(self._env._screen("rgb")), buffer)

    def saveScreenPNG(self, filename) -> None:  # noqa: N802
        """Writes the RGB screen to ``filename`` as a PNG, each pixel twice as wide (H x
        320), as ALE 0.12.1's ``saveScreenPNG`` (ScreenExporter's doubled width): the
        same pixels as ALE's file, written with imageio.

        Raises:
            ALETypeError: a ``filename`` that is not a str or ``os.PathLike`` (a
                TypeError, as ale-py raises).
            OSError: the file cannot be written (e.g. its folder does not exist; ALE
                logs an error and writes nothing).
        """
        if not isinstance(filename, (str, os.PathLike)):
            raise ALETypeError(f"saveScreenPNG(): filename must be a str or os.PathLike, got {filename!r}")
        _write_screen_png(filename, self.getScreenRGB())

    def getScreenGrayscale(self, buffer=None):  # noqa: N802
        """The screen in ALE's grayscale (its NTSC/PAL palette's luminance): a new uint8
        [H, W] array, or written into ``buffer`` (returns None then, as ALE)."""
        return _fill(torch.from_numpy(self._env._screen("gray")), buffer)

    # ---- settings and ROM loading (ALE 0.12.1 Settings.cxx, ALEInterface::loadROM) ----

    def getInt(self, key: str) -> int:  # noqa: N802
        """ALE ``getInt``: the setting read with C's ``atoi`` (-1 for an unknown key).
        ale-py's env sets ``repeat_action_probability``, ``max_num_frames_per_episode``
        (when given), ``sound_obs`` and, at each load, ``random_seed`` (an int32).
        The getters raise TypeError for a key that is not a str, as ale-py."""
        return self._settings.get_int(key)

    def getFloat(self, key: str) -> float:  # noqa: N802
        """ALE ``getFloat``: the setting read with C's ``atof`` as a float (32-bit), e.g.
        0.25, or 0.10000000149011612 for 0.1 (-1.0 for an unknown key)."""
        return self._settings.get_float(key)

    def getBool(self, key: str) -> bool:  # noqa: N802
        """ALE ``getBool`` (False for an unknown key)."""
        return self._settings.get_bool(key)

    def getString(self, key: str) -> str:  # noqa: N802
        """ALE ``getString``: the stored text (``""`` for an unknown key)."""
        return self._settings.get_string(key)

    def setInt(self, key: str, value: int) -> None:  # noqa: N802
        """ALE ``setInt``: stored only; ``loadROM`` (and so the env's ``reset(seed=...)``)
        reads it.

        Raises:
            ALERuntimeError: ``key`` is not one of ALE's int settings (a ValueError and,
                as ale-py raises, a RuntimeError).
            TypeError: ``value`` is not an int in the C ``int`` range (as ale-py).
        """
        with _invalid_argument():
            self._settings.set_int(key, value)

    def setFloat(self, key: str, value: float) -> None:  # noqa: N802
        """ALE ``setFloat``: stored as ALE stores it (as a float, with 6 significant
        digits: 1/3 reads back as 0.333333); ``loadROM`` reads it.

        Raises:
            ALERuntimeError: ``key`` is not one of ALE's float settings (a ValueError and,
                as ale-py raises, a RuntimeError).
            TypeError: ``value`` is not a number (as ale-py).
        """
        with _invalid_argument():
            self._settings.set_float(key, value)

    def setBool(self, key: str, value: bool) -> None:  # noqa: N802
        """ALE ``setBool``: stored only; ``loadROM`` reads it.

        Raises:
            ALERuntimeError: ``key`` is not one of ALE's bool settings (a ValueError and,
                as ale-py raises, a RuntimeError).
            TypeError: ``value`` is not True or False (as ale-py).
        """
        with _invalid_argument():
            self._settings.set_bool(key, value)
        if key == "display_screen":
            self._display_requested = bool(value)

    def setString(self, key: str, value: str) -> None:  # noqa: N802
        """ALE ``setString``: stored only; ``loadROM`` reads it.

        Raises:
            ALERuntimeError: ``key`` is not one of ALE's string settings (a ValueError and,
                as ale-py raises, a RuntimeError).
            TypeError: ``value`` is not a str (as ale-py).
        """
        with _invalid_argument():
            self._settings.set_string(key, value)

    def loadROM(self, rom_file) -> None:  # noqa: N802
        """ALE ``loadROM``: a new console for the ROM file (power-on and ``reset_game``,
        frame counters at 0, the ROM's default mode and difficulty 0) configured from the
        settings, as ALE 0.12.1's StellaEnvironment reads them:

        - ``random_seed`` (the sticky-action and reset RNGs; -1: the time, as ALE);
        - ``repeat_action_probability`` (below 0 acts as 0, above 1 or NaN as 1);
        - ``frame_skip`` (frames per ``act``, at least 1; also in ``reset_game``'s
          mode-selection acts);
        - ``max_num_frames_per_episode`` (0 or less: none);
        - ``record_screen_dir`` (non-empty: before each frame ALE's act runs or refuses,
          the mode selection's acts in ``reset_game`` included, the screen is saved as
          ``<dir>/NNNNNN.png``, numbered from 000000 at each load, H x 320 pixels: ALE's
          ScreenExporter.  A file that cannot be written is skipped with a warning, as
          ALE logs an error and goes on);
        - ``system_random_seed`` (the system RNG's seed when the console is made: the
          power-on RAM, the RIOT timer's start and cartridge RAM, ALE 0.12.1 System.cxx;
          4753849 by default);
        - ``cpu`` (``"low"``, the default, ALE's M6502Low; any other value ALE's
          M6502High, which charges a cycle at each bus access and makes the 6502's dummy
          reads and writes, ALE 0.12.1 Console.cxx; see ``csrc/cpu6507.hpp``);
        - ``truncate_on_loss_of_life`` (the episode is truncated once ``lives()`` is
          below the game's initial lives, ALE's ``m_max_lives``; see
          ``cule.Atari``'s argument of that name);
        - ``reward_min`` / ``reward_max`` (each act's reward clamped);
        - ``paddle_min`` / ``paddle_max`` (-1: ALE's 27450 / 790196; backgammon and
          blackjack set their own ``paddle_max`` first, as their RomSettings do);
        - ``sound_obs``;
        - ``display_screen``: a window shows the game from then on (see
          ``cule.human_render``; ``render_mode="human"`` sets it, as in ale-py); False
          closes it.  A window closed since (by the user, ``close()`` or a newer env)
          opens again only once ``setBool("display_screen", True)`` is called.
          ``sound`` (ALE plays the sound) is accepted; cule plays none, and as in
          ALE (whose SDL sound device then replaces the one of ``sound_obs``)
          ``getAudio`` and sound observations are zeros while it is set.

        ``rom_file`` (a str, bytes or ``os.PathLike`` path) then names the file.  The
        env's action set, spaces, ``mode`` and ``difficulty`` stay as they were, as in
        ale-py; the env's ``reset(seed=...)`` loads the env's own ROM again this way.  An
        empty path reloads the ROM loaded last (ALE's OSystem ``romFile``), whatever the
        ``rom_file`` setting says.

        Raises:
            TypeError: ``rom_file`` is not a path (None included), as ale-py.
            ValueError: the file is missing, a directory or not a ROM cule supports
                (ALE exits the process); ``frame_skip`` is negative (ALE 0.12.1 keeps it
                unsigned, so its ``act`` would not return).  Nothing is changed.
            gymnasium.error.Error: ``display_screen`` is set and no window can be
                opened (SDL can open none, or pygame is missing).  Nothing is changed.
        """
        self._env._apply_load(self._plan_load(rom_file))

    @staticmethod
    def isSupportedROM(rom_file):  # noqa: N802
        """ALE ``isSupportedROM`` (static, as ale-py's): the ALE game id of the ROM file
        (a str, bytes or ``os.PathLike`` path) when its MD5 is that of a ROM ale-py 0.12.1
        ships with single-player settings, else None (as ale-py: None also for its four
        multiplayer-only ROMs, combat, joust, maze_craze and warlords).

        Raises:
            TypeError: ``rom_file`` is not a path (as ale-py).
            ALERuntimeError: the file does not exist or cannot be read (a ValueError and,
                as ale-py raises, a RuntimeError).
        """
        path = _rom_path_arg(rom_file, "isSupportedROM")
        if not os.path.exists(path):
            raise ALERuntimeError(f"ROM file doesn't exist: {path}")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ALERuntimeError(f"Failed to open rom file {path}: {e.strerror or e}") from None
        try:
            game = identify(data, path)
        except ValueError:
            return None
        return game if ROMS[game]["single_player"] else None

    @staticmethod
    def setLoggerMode(mode) -> None:  # noqa: N802
        """ALE ``setLoggerMode`` (static): an ``ale_py.LoggerMode``, or the int of one
        (0, 1, 2; also True, as ale-py's binding converts), is accepted and ignored
        (cule logs nothing).

        Raises:
            ALETypeError (a TypeError, as ale-py raises): ``mode`` is neither.
            ImportError: ale-py is not installed (``ale_py.LoggerMode`` is its type).
        """
        from ale_py import LoggerMode

        values = {int(m.value) for m in LoggerMode.__members__.values()}
        if not (isinstance(mode, LoggerMode) or (isinstance(mode, int) and int(mode) in values)):
            raise ALETypeError(f"setLoggerMode(): mode must be an ale_py.LoggerMode, got "
                            f"{type(mode).__name__} {mode!r}")

    def _plan_load(self, rom_file) -> dict:
        """What ``loadROM(rom_file)`` would load, from the settings; raises ValueError
        (InvalidArgument) without changing anything when it cannot."""
        s = self._settings
        path = _rom_path_arg(rom_file, "loadROM")
        if path == "":   # ALE: OSystem::createConsole reloads its last ROM file
            path = self._env._loaded_rom_path
        if not os.path.exists(path):
            raise InvalidArgument(f"ROM file {path!r} not found")
        if os.path.isdir(path):
            raise InvalidArgument(f"ROM file {path!r} is a directory")
        with _invalid_argument():
            rom = load_rom(pathlib.Path(path))   # a path, even one named like a game
        frame_skip = s.get_int("frame_skip")
        if frame_skip < 0:
            raise InvalidArgument(f"frame_skip {frame_skip} is negative: ALE 0.12.1 keeps it "
                                  f"unsigned, so its act would not return; loadROM changed nothing")
        p = s.get_float("repeat_action_probability")
        p = 0.0 if p < 0.0 else p if p <= 1.0 else 1.0   # NaN and p > 1: always sticky, as 1
        seed = s.get_int("random_seed")
        seed = int(time.time()) if seed == -1 else seed
        paddle_max = _PADDLE_MAX_OVERRIDE.get(rom.game, s.get_int("paddle_max"))
        paddle_min = s.get_int("paddle_min")
        reward = (s.get_int("reward_min"), s.get_int("reward_max"))
        return {
            "path": path, "rom": rom, "seed": seed % 2**32,
            "repeat_action_probability": p,
            "frame_skip": max(1, frame_skip),
            "max_num_frames_per_episode": max(0, s.get_int("max_num_frames_per_episode")),
            "truncate_on_loss_of_life": s.get_bool("truncate_on_loss_of_life"),
            "system_random_seed": s.get_int("system_random_seed") & 0xFFFFFFFF,
            # ALE Console.cxx: M6502Low for "low", M6502High for any other value.
            "cpu_high": s.get_string("cpu") != "low",
            "record_screen_dir": s.get_string("record_screen_dir"),
            "reward_clip": None if reward == (-2**31, 2**31 - 1) else reward,
            "paddle_range": (PADDLE_MIN if paddle_min == -1 else paddle_min,
                             PADDLE_MAX if paddle_max == -1 else paddle_max),
            # ALE's OSystem::createSound at each load: with the setting sound, an SDL
            # sound device, which makes no observations (getAudio gives zeros); else
            # sound_obs's raw device.
            "sound": s.get_bool("sound_obs") and not s.get_bool("sound"),
            "display": s.get_bool("display_screen"),
            "colour_averaging": s.get_bool("color_averaging"),
        }


def _rom_path_arg(rom_file, method: str) -> str:
    """A ROM path argument as text (str, bytes or os.PathLike, as ale-py's path
    overloads take); TypeError for anything else."""
    if not isinstance(rom_file, (str, bytes, os.PathLike)):
        raise ALETypeError(f"{method}(): rom_file must be a str, bytes or os.PathLike path, got "
                        f"{type(rom_file).__name__} {rom_file!r}")
    return os.fsdecode(rom_file)


def _actions(ids) -> list:
    """ALE action ids as ``ale_py.Action`` values (ints where ale-py is missing)."""
    try:
        from ale_py import Action
    except ImportError:
        return [int(a) for a in ids]
    return [Action(int(a)) for a in ids]


def _fill(src: torch.Tensor, out):
    """A copy of src as a NumPy array, or src written into `out` (then None).  A buffer
    of another type or dtype is an ALETypeError; a uint8 array of another shape an
    ALERuntimeError for screens, an ALETypeError for RAM and audio (as ale-py raises)."""
    src = src.cpu().numpy()
    if out is None:
        return src.copy()
    if isinstance(out, torch.Tensor):
        if out.device.type != "cpu" or out.dtype != torch.uint8 or tuple(out.shape) != src.shape:
            raise ALETypeError(f"buffer must be a uint8 CPU tensor of shape {src.shape}, got "
                               f"{out.dtype} {tuple(out.shape)} on {out.device}")
        out.copy_(torch.from_numpy(src))
        return None
    if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.shape != src.shape:
        got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        shape_only = isinstance(out, np.ndarray) and out.dtype == np.uint8 and src.ndim >= 2
        raise (ALERuntimeError if shape_only else ALETypeError)(
            f"buffer must be a uint8 NumPy array of shape {src.shape}, got {got}")
    if not out.flags.writeable:
        raise ALETypeError("buffer is read-only")
    out[...] = src
    return None


class AtariEnv(gymnasium.Env, utils.EzPickle):
    """One Atari 2600 game as a Gymnasium environment, ale-py's ``AtariEnv`` semantics.

    Args (ale-py's, same defaults):
        game: ALE game id in snake_case (``"pong"``; also ``"Pong"`` or a Gymnasium id,
            as ``cule.roms.load_rom`` takes) or a ROM path.
        mode, difficulty: game mode / difficulty (None: the ROM's default mode and
            difficulty 0), applied as ALE ``setMode`` / ``setDifficulty`` after every ROM
            load; they take effect at the next reset.
        obs_type: ``"rgb"`` (uint8 [210, 160, 3]), ``"grayscale"`` (uint8 [210, 160]) or
            ``"ram"`` (uint8 [128]); heights are the game's screen height.
        frameskip: frames per step: an int in [1, 2**31 - 1], or ``(low, high)`` (ints,
            ``high`` at most 2**31) to draw it uniformly from ``[low, high)`` each step
            with the env's ``np_random``.  A Python int or tuple, as ale-py requires (a
            NumPy integer raises InvalidArgument).
        repeat_action_probability: sticky actions, per frame (default 0.25).
        full_action_space: ALE's legal action set (all 18 actions; 9 for skiing and
            lost_luggage, whose ALE 0.12.1 RomSettings ``isLegal`` make FIRE illegal)
            instead of the game's minimal set.
        continuous: actions are float32 (radius, theta, fire) as in ale-py: direction and
            fire past ``continuous_action_threshold`` pick one of the 18 ALE actions
            (the full action space is used), the radius is the paddle strength.
        max_num_frames_per_episode: truncate after this many frames (None, 0 or less:
            never, as ALE's setting).
        render_mode: None, ``"rgb_array"`` (``render()`` returns the RGB screen) or
            ``"human"``: a window shows every frame ALE's act emulates, at the console's
            frame rate (60 frames/s NTSC, 50 PAL), as ale-py's ``display_screen`` does;
            ``render()`` returns None.  Results are the same in every mode.  It needs a
            display (or ``SDL_VIDEODRIVER=dummy``); see ``cule.human_render`` for what it
            does and where it differs from ALE (pacing, closing the window, no sound, one
            window per process).
        sound_obs: observations are dicts ``{"image": <the obs_type observation>,
            "sound": uint8 [512]}``, the sound being ALE's ``getAudio`` after the step's
            last frame (see ``cule.Atari``'s ``sound``), as ale-py's.

    ``env.ale`` has ALEInterface's methods for this console (``ConsoleView``: ``act``,
    ``cloneState`` / ``restoreState``, ``lives``, the screens and RAM ...), which
    Gymnasium's ``AtariPreprocessing`` and Stable-Baselines3's Atari wrappers use.

    ``step`` returns (obs, reward: float, terminated, truncated, info) with info
    ``lives``, ``episode_frame_number``, ``frame_number`` (frames, not steps);
    ``reset(seed=s)`` also reports ``info["seeds"]`` = (NumPy seed, ALE seed) drawn from
    ``np.random.SeedSequence(s)`` and reloads the ROM with that ALE seed, as ale-py does.

    Raises:
        gymnasium.error.Error (InvalidArgument, also a ValueError) for bad arguments:
        ``ALETypeError`` (also a TypeError, as ale-py's bindings raise) for a mode,
        difficulty, ``repeat_action_probability``, ``continuous_action_threshold`` or
        ``max_num_frames_per_episode`` of the wrong type (a string, a float mode);
        ``ALERuntimeError`` (also a RuntimeError, as ale-py) for a mode or difficulty
        the game lacks.  cule also refuses what ale-py lets through:
        ``repeat_action_probability`` outside [0, 1] (ALE then repeats always / never)
        and ``step`` with a negative action index (ale-py's list indexing wraps -1 to
        the last action): ``ALEIndexError``.
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}   # ale-py 0.12.1's

    def __init__(
        self,
        game: str,
        mode: Optional[int] = None,
        difficulty: Optional[int] = None,
        obs_type: str = "rgb",
        frameskip: Union[tuple, int] = 4,
        repeat_action_probability: float = 0.25,
        full_action_space: bool = False,
        continuous: bool = False,
        continuous_action_threshold: float = 0.5,
        max_num_frames_per_episode: Optional[int] = None,
        render_mode: Optional[str] = None,
        sound_obs: bool = False,
    ):
        if obs_type not in {"rgb", "grayscale", "ram"}:
            raise InvalidArgument(f"Invalid observation type: {obs_type}. Expecting: rgb, grayscale, ram.")
        if type(frameskip) not in (int, tuple):
            raise InvalidArgument(f"Invalid frameskip type: {type(frameskip)}.")
        if isinstance(frameskip, int) and frameskip <= 0:
            raise InvalidArgument(f"Invalid frameskip of {frameskip}, frameskip must be positive.")
        if isinstance(frameskip, tuple):
            if len(frameskip) != 2 or not all(_is_int(f) for f in frameskip):
                raise InvalidArgument(f"Invalid stochastic frameskip {frameskip}, expected (low, high) integers.")
            if frameskip[0] >= frameskip[1]:
                raise InvalidArgument("Invalid stochastic frameskip, lower bound must be strictly less than upper "
                                      "bound.")
            if frameskip[0] <= 0:
                raise InvalidArgument("Invalid stochastic frameskip, lower bound must be positive.")
        # (cule's limit: a step's frame count is an int32; ale-py would loop for ever.)
        if (frameskip[1] if isinstance(frameskip, tuple) else frameskip + 1) > 2**31:
            raise InvalidArgument(f"Invalid frameskip {frameskip}: at most 2**31 - 1 frames a step.")
        if render_mode is not None and render_mode not in {"rgb_array", "human"}:
            raise InvalidArgument(f"Render mode {render_mode} not supported (rgb_array, human).")
        # Arguments of the wrong type: ALETypeError (also a TypeError), as ale-py's
        # setInt / setFloat / setMode / setDifficulty bindings raise TypeError.
        if max_num_frames_per_episode is not None:
            # an int, a NumPy integer, a 0-d integer array or tensor (not a bool, nor a bool tensor)
            frames = _index_or_none(max_num_frames_per_episode)
            if frames is None:
                raise ALETypeError(f"max_num_frames_per_episode must be None or an integer, "
                                   f"got {max_num_frames_per_episode!r}")
            max_num_frames_per_episode = frames
        _check_real("repeat_action_probability", repeat_action_probability)
        _check_real("continuous_action_threshold", continuous_action_threshold)
        if not (isinstance(continuous, (bool, np.bool_)) or (_is_int(continuous) and continuous in (0, 1))):
            raise InvalidArgument(f"continuous must be a bool, got {continuous!r}")

        utils.EzPickle.__init__(self, game=game, mode=mode, difficulty=difficulty, obs_type=obs_type,
                                frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                                full_action_space=full_action_space or continuous, continuous=continuous,
                                continuous_action_threshold=continuous_action_threshold,
                                max_num_frames_per_episode=max_num_frames_per_episode, render_mode=render_mode,
                                sound_obs=sound_obs)
        with _invalid_argument():
            if not isinstance(sound_obs, (bool, np.bool_)):   # ale-py's setBool: TypeError
                raise ALETypeError(f"sound_obs must be True or False, got {sound_obs!r}")
            self.atari = Atari(game, 1, frameskip=1, repeat_action_probability=repeat_action_probability,
                               full_action_space=bool(full_action_space or continuous),
                               max_num_frames_per_episode=max(0, int(max_num_frames_per_episode or 0)), seed=0,
                               num_threads=1, sound=bool(sound_obs))
        info = self.atari.rom.info
        if mode is not None:
            mode = _ale_index(mode, "mode", f"Invalid game mode for {self.atari.game}; available: {info['modes']}",
                              lambda v: v in info["modes"])
        if difficulty is not None:
            difficulty = _ale_index(difficulty, "difficulty", f"Invalid difficulty for {self.atari.game}; "
                                    f"available: {info['difficulties']}", lambda v: v in info["difficulties"])
        self._game = self.atari.game
        self._game_mode = mode
        self._game_difficulty = difficulty
        self._frameskip = frameskip
        self._obs_type = obs_type
        self.render_mode = render_mode
        self.sound_obs = bool(sound_obs)
        self.continuous = bool(continuous)
        self.continuous_action_threshold = continuous_action_threshold
        # ALE's sticky paddle strength (continuous actions only).
        self._sticky_strength = np.full(1, _vector.initial_paddle_strength, np.float32)
        self._strength = np.zeros(1, np.float32)
        self._rewards = np.zeros(1, np.int32)
        self._action_set = [int(a) for a in self.atari.action_set.tolist()]
        self._act = np.zeros(1, np.uint8)
        self._rom_path = self.atari.rom.path
        self._loaded_rom_path = self._rom_path   # ALE OSystem romFile: what loadROM("") reloads
        # ALE's frame_skip and reward clipping of the loaded console (loadROM sets them).
        self._ale_frame_skip = 1
        self._reward_clip = None
        self._colour_averaging = False   # ALE's color_averaging setting, as loaded
        self._record_dir = ""            # ... record_screen_dir, and its screens saved
        self._recorded_screens = 0
        self._record_warned = False
        self._display = None   # the window of display_screen (render_mode="human")
        self.ale = ConsoleView(self)
        # The settings ale-py's AtariEnv makes before its first loadROM.
        self.ale.setFloat("repeat_action_probability", self.atari.repeat_action_probability)
        if max_num_frames_per_episode is not None:
            self.ale.setInt("max_num_frames_per_episode", int(max_num_frames_per_episode))
        if render_mode == "human":   # loadROM opens the window
            self.ale.setBool("display_screen", True)
            self.ale.setBool("sound", True)
        self.ale.setBool("sound_obs", self.sound_obs)

        self.seed_game()
        self.load_game()

        if self.continuous:
            self.action_space = spaces.Box(low=np.array([0.0, -np.pi, 0.0]).astype(np.float32),
                                           high=np.array([1.0, np.pi, 1.0]).astype(np.float32),
                                           dtype=np.float32, shape=(3,))
        else:
            self.action_space = spaces.Discrete(len(self._action_set))
        h, w = self.atari.screen_shape
        if obs_type == "ram":
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=(128,))
        else:
            shape = (h, w, 3) if obs_type == "rgb" else (h, w)
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=shape)
        if self.sound_obs:
            self.observation_space = spaces.Dict(image=self.observation_space,
                                                 sound=spaces.Box(low=0, high=255, dtype=np.uint8, shape=(512,)))

    # ---- seeding and loading, as ale-py ----

    def seed_game(self, seed: Optional[int] = None) -> tuple:
        """Seeds the NumPy RNG (stochastic frameskip) and the ALE seed of the next load,
        from ``np.random.SeedSequence(seed).generate_state(2)``, as ale-py 0.12.1's
        ``AtariEnv.seed_game``; returns both seeds, a tuple of two ``numpy.uint32``."""
        ss = np.random.SeedSequence(seed)
        np_seed, ale_seed = ss.generate_state(n_words=2)
        self._np_random, _ = seeding.np_random(int(np_seed))
        # ale-py: setInt("random_seed", np.int32(ale_seed)); ALE casts it back to uint32.
        self.ale.setInt("random_seed", (int(ale_seed) + 2**31) % 2**32 - 2**31)
        return np_seed, ale_seed

    def load_game(self) -> None:
        """ALE ``loadROM`` of the env's ROM with the current settings (``self.ale``), then
        ``setMode`` / ``setDifficulty``."""
        self.ale.loadROM(self._rom_path)
        if self._game_mode is not None:
            self.atari.set_mode(int(self._game_mode))   # selected at the next reset_game
        if self._game_difficulty is not None:
            self.atari.set_difficulty(int(self._game_difficulty))

    # ---- gymnasium API ----

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        """Starts an episode (ALE ``reset_game``); with ``seed``, first reseeds and reloads
        the ROM exactly as ale-py does.  Returns (obs, info): obs as ``observation_space``
        (uint8 NumPy; a dict with ``sound_obs``), info ``{"lives": int,
        "episode_frame_number": int, "frame_number": int}`` plus, with ``seed``,
        ``"seeds"`` (the two numpy.uint32 seeds ``seed_game`` returns).

        Raises:
            gymnasium.error.Error: a negative or non-integer ``seed`` (Gymnasium's own
                check, as with ale-py).
            InvalidArgument (a ValueError and a gymnasium.error.Error): ALE settings set
                through ``env.unwrapped.ale`` that the reload refuses (a negative
                ``frame_skip``, a display that cannot be opened); nothing is changed
                then.
        """
        if seed is not None:
            self.ale._plan_load(self._rom_path)   # settings cule cannot load raise here, first
        super().reset(seed=seed, options=options)
        seeded_with = None
        if seed is not None:
            seeded_with = self.seed_game(seed)
            self.load_game()
        self._recorded(self.atari.reset)
        obs = self._get_obs()
        info = self._get_info()
        if seeded_with is not None:
            info["seeds"] = seeded_with
        return obs, info

    def step(self, action):
        """Repeats ``action`` (an index into the action set) for ``frameskip`` frames.

        Units: one call is one agent step, ``frameskip`` frames (times ALE's own
        ``frame_skip`` setting when one was set through ``env.unwrapped.ale`` and the
        ROM reloaded, as in ale-py).  With ``continuous=True`` the action is a float32
        array of shape (3,): (radius, theta, fire), finite (ale-py's mapping).

        Returns (obs, reward summed over the frames as a float, terminated (game over),
        truncated (max_num_frames_per_episode reached), info as ``reset``'s without
        ``"seeds"``).

        Raises:
            ALETypeError (a TypeError, as ale-py raises): an action that is not an
                integer.
            ALEIndexError (an IndexError, as ale-py raises): an index outside the
                action space.
            Both are also InvalidArgument (ValueError, gymnasium.error.Error).
        """
        if self.continuous:
            return self._step_continuous(action)
        if isinstance(action, torch.Tensor):
            action = action.item() if action.numel() == 1 and not action.is_floating_point() else action
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = int(action)
        if isinstance(action, bool):
            action = int(action)   # a bool is an int, as in ale-py (and Gymnasium's Discrete)
        if not _is_int(action):
            raise ALETypeError(f"action must be an integer index into the action space, got {action!r}")
        if not 0 <= int(action) < len(self._action_set):
            raise ALEIndexError(f"action {int(action)} is outside the action space "
                                  f"[0, {len(self._action_set)})")
        return self._step_result(self._act_ale(self._action_set[int(action)], 1.0, self._frameskip_now()))

    def _step_result(self, reward: int) -> tuple:
        """step's (obs, reward as a float, terminated, truncated, info) after an act."""
        lives, term, trunc, ep, fr = self.atari._info()
        return (self._get_obs(), float(reward), bool(term[0]), bool(trunc[0]),
                {"lives": int(lives[0]), "episode_frame_number": int(ep[0]), "frame_number": int(fr[0])})

    def _act_ale(self, action: int, strength: float, acts: int) -> int:
        """ALE's act (ALE action id, paddle strength; ALE's frame_skip frames each)
        repeated `acts` times, as ale-py's step loop does; returns the summed reward."""
        frame_skip, clip = self._ale_frame_skip, self._reward_clip
        shown = self._display is not None and self._display.is_open
        if acts > 1 and (self.atari.sound or frame_skip > 1 or clip is not None or shown):
            # ALE makes audio and clamps the reward at the end of each act.
            return sum(self._act_ale(action, strength, 1) for _ in range(acts))
        if shown and not (self.atari.sound and frame_skip > 1):
            # ALE's act shows the screen before each frame it emulates.
            reward = 0
            for _ in range(frame_skip):
                self._display.show(self.atari.screen_rgb()[0].numpy())
                reward += self._act_frames(action, strength, 1)
        elif shown:
            # With sound observations (display_screen set without sound) and ALE's
            # frame_skip above 1, ALE makes the act's audio from all of its frames at once,
            # which frame-by-frame acts would not: the act runs whole, logging the screen
            # before each frame, and the window then shows those screens.
            reward = self._act_frames(action, strength, frame_skip, show=True)
        else:
            reward = self._act_frames(action, strength, acts * frame_skip)
        if clip is not None:
            # std::clamp(reward, reward_min, reward_max) as libstdc++ computes it (also
            # when reward_min > reward_max): min(max(reward, low), high).
            reward = min(max(reward, clip[0]), clip[1])
        return reward

    def _recorded(self, run, frames: int = 64, atari: Optional[Atari] = None, show: bool = False):
        """run() (an act or a reset of the env's console, or of `atari`), returning what
        it returns; with ALE's record_screen_dir set, the screens ALE's act saves before
        each frame it runs or refuses (the mode selection's acts in a reset too) are
        then written to the directory, numbered on from the load (ALE's ScreenExporter).
        With `show`, the display_screen window then shows each of them, as ALE's act
        does before each frame.  `frames`: room for that many screens; a call that logs
        more is run again, from a full snapshot taken before, with room for all of them."""
        if not self._record_dir and not show:
            return run()
        atari = atari or self.atari
        snapshot = atari.clone_state(include_rng=True)
        while True:
            log = np.empty((frames, 2 * _core.frame_buffer_bytes), np.uint8)
            atari._batch.set_screen_log(log)
            try:
                result = run()
                logged = atari._batch.screen_log_count
            finally:
                atari._batch.set_screen_log(None)
            if logged <= frames:
                break
            atari.restore_state(snapshot)
            frames = logged
        h, w = atari.screen_shape
        rgb = _colour_averaging_tables(atari.rom.info["display"] == "PAL")[1]
        if show:
            for entry in log[:logged]:
                self._display.show(rgb[entry[:h * w].reshape(h, w)])
        for entry in log[:logged] if self._record_dir else ():
            # (An entry holds the current frame buffer first.)
            index = _averaged_index(atari, entry, 0) if self._colour_averaging else entry[:h * w].reshape(h, w)
            # ALE opens the file by its C string: a NUL in the directory cuts the path
            # there, so every screen overwrites that one file.
            path = os.path.join(self._record_dir, f"{self._recorded_screens:06d}.png").split("\0", 1)[0]
            self._recorded_screens += 1
            try:
                _write_screen_png(path, rgb[index])
            except OSError as e:   # ALE: "Could not open ... for writing", and goes on
                if not self._record_warned:
                    self._record_warned = True
                    warnings.warn(f"record_screen_dir: could not write {path} ({e}); screens that cannot "
                                  f"be written are skipped, as ALE does (this warning is given once "
                                  f"per load)", RuntimeWarning, stacklevel=_caller_stacklevel())
        return result

    def _act_frames(self, action: int, strength: float, frames: int, show: bool = False) -> int:
        """`frames` frames of ALE's act loop (sticky actions per frame, one audio after
        the last; with `show`, the window shows the screen before each); returns the
        summed reward."""
        return self._recorded(lambda: self._act_frames_now(action, strength, frames), frames, show=show)

    def _act_frames_now(self, action: int, strength: float, frames: int) -> int:
        self._act[0] = action
        # ALE keeps the paddle strength of the last action taken for the frames where the
        # action sticks; while that and this one's are 1 a plain act is the same.
        if strength == 1.0 and self._sticky_strength[0] == 1.0:
            # ale-py repeats ALE's act in Python and leaves ALE's own frame_skip (1 unless
            # set), which the mode selection of a later reset_game acts with (berzerk,
            # double_dunk...): the batch's frameskip is `frames` only while it acts.
            self.atari.frameskip = frames
            try:
                return int(self.atari.act(self._act)[0])
            finally:
                self.atari.frameskip = self._ale_frame_skip
        self._strength[0] = strength
        _vector.act_with_strength(self.atari._batch, self._act, self._strength, self._sticky_strength,
                                  self._rewards, frames, self.atari.repeat_action_probability,
                                  *self.atari._params()[2:])
        return int(self._rewards[0])

    def _frameskip_now(self) -> int:
        if isinstance(self._frameskip, int):
            return self._frameskip
        return int(self.np_random.integers(*self._frameskip))

    def _step_continuous(self, action):
        if isinstance(action, torch.Tensor):
            action = action.detach().cpu().numpy()
        if not isinstance(action, np.ndarray) or action.dtype != np.float32 or action.shape != (3,):
            raise InvalidArgument(f"continuous actions must be float32 arrays of shape (3,), got {action!r}")
        if not np.isfinite(action).all():
            raise InvalidArgument("continuous actions must be finite")
        frameskip = self._frameskip_now()
        thr = self.continuous_action_threshold
        x, y = action[0] * np.cos(action[1]), action[0] * np.sin(action[1])
        h = -int(x < -thr) + int(x > thr)
        v = -int(y < -thr) + int(y > thr)
        fire = int(action[-1] > thr)
        return self._step_result(self._act_ale(int(CONTINUOUS_ACTION_TABLE[h + 1, v + 1, fire]), float(action[0]),
                                               frameskip))

    def render(self):
        """The RGB screen (uint8 [H, W, 3]) with ``render_mode="rgb_array"``; None with
        ``"human"`` (the window is drawn while the env acts), as ale-py.

        Raises:
            gymnasium.error.Error: render_mode is None.
        """
        if self.render_mode == "rgb_array":
            return self._screen("rgb")
        if self.render_mode == "human":
            return None
        raise error.Error(f"Invalid render mode `{self.render_mode}`. Supported modes: `human`, `rgb_array`.")

    def close(self) -> None:
        """Closes the window of ``render_mode="human"`` (the env itself stays usable)."""
        if getattr(self, "_display", None) is not None:
            self._display.close()

    def _screen(self, kind: str) -> np.ndarray:
        """ALE's screen (``getScreen`` / ``getScreenRGB`` / ``getScreenGrayscale``) for
        kind ``"index"`` (uint8 [H, W]), ``"rgb"`` ([H, W, 3]) or ``"gray"`` ([H, W]),
        colour-averaged when the ROM was loaded with ``color_averaging``: ALE's
        processScreen blends the current frame buffer with the previous one, both of
        which the console keeps exact."""
        atari = self.atari
        h, w = atari.screen_shape
        if not self._colour_averaging:
            if kind == "rgb":
                return atari.screen_rgb()[0].numpy()
            if kind == "gray":
                return atari.screen_grayscale()[0].numpy()
            index = np.empty((1, h, w), np.uint8)
            atari._batch.screen_index(index)
            return index[0]
        consoles, frame_buffers = atari._batch.state_views()
        index = _averaged_index(atari, frame_buffers[0], int(consoles[0, _core.console_cur_buf_offset]))
        _, rgb, gray = _colour_averaging_tables(atari.rom.info["display"] == "PAL")
        return index if kind == "index" else rgb[index] if kind == "rgb" else gray[index]

    def _get_obs(self):
        if self._obs_type == "ram":
            image = self.atari.ram[0].numpy()
        elif self._obs_type == "rgb":
            image = self._screen("rgb")
        else:
            image = self._screen("gray")
        if self.sound_obs:
            return {"image": image, "sound": self.ale.getAudio()}
        return image

    def _apply_load(self, plan: dict) -> None:
        """ConsoleView.loadROM's second half: the console of a ``_plan_load`` plan."""
        rom, atari = plan["rom"], self.atari
        if (rom.game != atari.game or plan["sound"] != atari.sound
                or plan["paddle_range"] != (atari._cfg["paddle_min"], atari._cfg["paddle_max"])
                or plan["system_random_seed"] != atari._cfg.get("system_random_seed", _core.SYSTEM_RANDOM_SEED)
                or plan["cpu_high"] != (atari.cpu == "high")):
            # Another game, sound device, paddle range, system seed or CPU core: another
            # console (made before anything changes, so a failure leaves the env as it was).
            with _invalid_argument():
                atari = Atari(pathlib.Path(plan["path"]), 1, frameskip=plan["frame_skip"],
                              repeat_action_probability=plan["repeat_action_probability"],
                              full_action_space=atari.full_action_space,
                              max_num_frames_per_episode=plan["max_num_frames_per_episode"], seed=0,
                              num_threads=1, sound=plan["sound"], _paddle_range=plan["paddle_range"],
                              cpu="high" if plan["cpu_high"] else "low",
                              _system_random_seed=plan["system_random_seed"])
        # ALE's OSystem makes a new screen at each load: a window iff display_screen,
        # paced at the new console's frame rate.  A window that was closed (by the user,
        # close(), or a newer env taking it over) stays closed until display_screen is
        # set again.
        display = self._display if self._display is not None and self._display.is_open else None
        frame_rate = 50 if rom.info["display"] == "PAL" else 60   # ALE Console::getFrameRate
        if plan["display"] and display is None and (self._display is None or self.ale._display_requested):
            try:
                display = HumanDisplay(frame_rate)   # may raise: nothing has changed yet
            except error.DependencyNotInstalled:
                raise
            except error.Error as e:
                if self.render_mode == "human":
                    advice = 'without a display, set SDL_VIDEODRIVER=dummy or use render_mode="rgb_array"'
                else:
                    advice = ("the setting display_screen asks for it: ale.setBool('display_screen', False) "
                              "loads without one; without a display, SDL_VIDEODRIVER=dummy runs headless")
                raise error.Error(f"{e}; {advice}") from None
            self.ale._display_requested = False
        elif display is not None and not plan["display"]:
            display.close()
            display = None
        if display is not None:
            display.max_fps = display.fps = frame_rate
        self._display = display if display is not None else self._display
        atari.frameskip = plan["frame_skip"]
        atari.repeat_action_probability = plan["repeat_action_probability"]
        atari.max_num_frames_per_episode = plan["max_num_frames_per_episode"]
        atari.truncate_on_loss_of_life = plan["truncate_on_loss_of_life"]
        self._record_dir = plan["record_screen_dir"]   # ALE: a new ScreenExporter, from 0
        self._recorded_screens = 0
        self._record_warned = False
        # (Set before the reload: the screens its mode selection saves are blended too.)
        self._colour_averaging = plan["colour_averaging"]
        self._recorded(lambda: atari.reload(plan["seed"]), atari=atari)
        self.atari = atari
        self._ale_frame_skip = plan["frame_skip"]
        self._reward_clip = plan["reward_clip"]
        self._sticky_strength[0] = _vector.initial_paddle_strength   # a new ALE environment
        self._loaded_rom_path = plan["path"]
        settings = self.ale._settings
        settings.set_string("rom_file", plan["path"])
        if rom.game in _PADDLE_MAX_OVERRIDE:   # RomSettings::modifyEnvironmentSettings
            settings.set_int("paddle_max", _PADDLE_MAX_OVERRIDE[rom.game])

    def _get_info(self) -> dict:
        lives, _, _, ep, fr = self.atari._info()
        return {"lives": int(lives[0]), "episode_frame_number": int(ep[0]), "frame_number": int(fr[0])}

    # ---- extras ----

    def get_action_meanings(self) -> list:
        """The names of the actions of the action space, in order (ale-py's)."""
        return [ACTION_NAMES[a] for a in self._action_set]

    @staticmethod
    @functools.lru_cache(18)
    def map_action_idx(left_center_right: int, down_center_up: int, fire: bool):
        """The ALE action (an ``ale_py.Action``) for a joystick position and fire button,
        as ale-py 0.12.1's ``AtariEnv.map_action_idx``, which its continuous actions go
        through: ``left_center_right`` -1 left, 0 centre, 1 right; ``down_center_up`` -1
        down, 0 centre, 1 up; ``fire`` taken by its truth value, as in ale-py.  E.g.
        (1, 1, True) -> UPRIGHTFIRE (14).  Cached like ale-py's (``functools.lru_cache``).

        Raises LookupError (ale-py's error) for a position outside {-1, 0, 1}, and
        TypeError for an unhashable argument (a list or array), as ale-py's cache does."""
        pair = _DIRECTION_ACTIONS.get((left_center_right, down_center_up))   # compared by value, as ale-py
        if pair is None:
            raise LookupError(
                "Unexpected action mapping, expected `left_center_right` and `down_center_up` to be in "
                "{-1, 0, 1} and `fire` to only be `True` or `False`. "
                f"Received {left_center_right=}, {down_center_up=} and {fire=}.")
        return _actions([pair[1 if fire else 0]])[0]

    def get_keys_to_action(self) -> dict:
        """Keyboard keys for ``gymnasium.utils.play``, as ale-py 0.12.1's AtariEnv maps
        them: a tuple of key characters -> the action space's index.  ``w`` up, ``s``
        down, ``a`` left, ``d`` right, space fire, ``e`` noop; a combined action holds its
        keys in that order (vertical, horizontal, fire), e.g. UPRIGHTFIRE -> ("w", "d", " ").

        Raises:
            AttributeError: the env was made with ``continuous=True`` (as ale-py's).
        """
        if self.continuous:
            raise AttributeError("`get_keys_to_action` can't be provided for this Atari environment as "
                                 "`continuous=True`.")
        order = (("UP", "w"), ("DOWN", "s"), ("RIGHT", "d"), ("LEFT", "a"), ("FIRE", " "))
        out = {}
        for i, a in enumerate(self._action_set):
            name = ACTION_NAMES[a]
            out[tuple(key for part, key in order if part in name) or ("e",)] = i
        return out

    def clone_state(self, include_rng: bool = False) -> ALEState:
        """The console's state as ale-py's ``AtariEnv.clone_state`` (ALE ``cloneState``):
        a ``cule.ALEState`` (ale-py's ``ALEState`` methods on a one-console
        ``cule.Atari.clone_state(frame_buffers=False)`` snapshot: like ALE's states, it
        leaves out the screen, which ALE's restore does not bring back); without
        ``include_rng`` (ale-py's default) restoring it leaves the sticky-action RNG as
        it is.

        Raises:
            ALETypeError (a TypeError, as ale-py's binding raises, and a
            gymnasium.error.Error): ``include_rng`` is not a bool.
        """
        if not isinstance(include_rng, bool):   # ale-py's binding refuses NumPy bools too
            raise ALETypeError(f"include_rng must be a bool, got {include_rng!r}")
        return ALEState._of(self.atari.clone_state(include_rng=include_rng, frame_buffers=False))

    def restore_state(self, state: dict) -> None:
        """Restores a ``clone_state`` snapshot as ALE 0.12.1's ``restoreState`` does (see
        ``cule.Atari.restore_state(..., ale_semantics=True)``): among others the sticky
        action, the screen until the next frame and, unless the state includes it, the
        sticky-action RNG go on from before the restore.

        Raises:
            ALETypeError (a TypeError, as ale-py's binding raises, and an
                InvalidArgument): anything but a state (an ale-py state included).
            InvalidArgument: a snapshot of several consoles, of another game or ROM, of
                the other ALE CPU core, or one that is corrupt or malformed (see
                ``cule.Atari.restore_state``); nothing is changed then.
        """
        _require_state(state, "restore_state()", "clone_state")
        # An ALE state has no env ids: a one-console snapshot of any batch goes to this env.
        rows = state.get("consoles")
        if rows is not None and getattr(rows, "ndim", None) == 2 and len(rows) != 1:
            raise InvalidArgument(f"state holds {len(rows)} consoles; this env has one: take the snapshot of a "
                                  f"batch with clone_state([i]) for console i")
        with _invalid_argument():
            self.atari.restore_state(state, env_ids=[0] if rows is not None else None, ale_semantics=True)
