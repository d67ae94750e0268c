"""ALE 0.12.1's settings table, for ``AtariEnv.ale``'s ``getInt`` / ``setInt`` ... methods.

ALE keeps every setting as a string in one table (``src/ale/emucore/Settings.cxx``):

- the keys and defaults of ``Settings::setDefaultSettings`` (each with a type, which
  ``setInt`` / ``setFloat`` / ``setBool`` / ``setString`` must match, else ALE raises
  "The key ... does not exist or has incorrect value type"), plus Stella's internal
  keys (``palette``, ``sound``, ``fragsize``, ``freq``, ``tiafreq``, ``volume``,
  ``clipvol``), which take a value of any type;
- a setter writes its value as ``std::ostream`` does (ints in decimal, floats with 6
  significant digits, bools as ``1`` / ``0``), then ``Settings::validate`` puts an
  unknown ``palette`` back to ``standard`` and a ``volume`` outside 0..100 or a
  ``freq`` / ``tiafreq`` outside 0..48000 back to their defaults;
- the getters convert the stored string as C does: ``getInt`` with ``atoi`` (``"0.25"``
  reads 0), ``getFloat`` with ``atof`` as a float (32-bit), ``getBool`` true only for
  ``1`` / ``true`` (internal keys also ``True``); an unknown key reads -1, -1.0, False
  and ``""``.

Nothing here emulates: ``ConsoleView.loadROM`` reads the table to configure the console
(see ``cule.gym_env``).
"""
from __future__ import annotations

import operator
import re

import numpy as np

from .atari import _cpp_ostream_float
from .vector_env import ALERuntimeError, ALETypeError

_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1

# Settings::setDefaultSettings (ALE 0.12.1), by type.
DEFAULT_INTS = {
    "system_random_seed": 4753849, "max_num_frames": 0, "max_num_frames_per_episode": 0,
    "paddle_min": -1, "paddle_max": -1, "random_seed": -1, "frame_skip": 1,
    "reward_min": _INT32_MIN, "reward_max": _INT32_MAX, "fragsize": 64,
}
DEFAULT_FLOATS = {"repeat_action_probability": 0.25}
DEFAULT_BOOLS = {
    "run_length_encoding": True, "restricted_action_set": False, "color_averaging": False,
    "send_rgb": False, "truncate_on_loss_of_life": False, "display_screen": False, "sound_obs": False,
}
DEFAULT_STRINGS = {"cpu": "low", "rom_file": "", "record_screen_dir": "", "record_sound_filename": ""}
# Stella's own settings (Settings::Settings), set before the defaults above; the typed
# setters accept any type for these.
_INTERNAL = {"palette": "standard", "sound": "false", "fragsize": "512", "freq": "31400",
             "tiafreq": "31400", "volume": "100", "clipvol": "true"}
_TYPED = {"int": DEFAULT_INTS, "float": DEFAULT_FLOATS, "bool": DEFAULT_BOOLS, "string": DEFAULT_STRINGS}

_ATOI = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_ATOF_DEC = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_ATOF_HEX = re.compile(r"[ \t\n\v\f\r]*([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)")
_ATOF_SPECIAL = re.compile(r"[ \t\n\v\f\r]*([+-]?)(infinity|inf|nan)", re.IGNORECASE)


class UnknownSetting(ALERuntimeError):
    """A setter named a key ALE does not have for that value type (ale-py: RuntimeError;
    also a ValueError)."""


def _atoi(s: str) -> int:
    """C's ``atoi`` (glibc: ``(int) strtol``, saturating at the long range first)."""
    m = _ATOI.match(s)
    if not m:
        return 0
    v = max(-2**63, min(2**63 - 1, int(m.group(1))))
    return (v + 2**31) % 2**32 - 2**31


def _atof(s: str) -> float:
    """C's ``atof``, then the cast to float that ``Settings::getFloat`` makes."""
    m = _ATOF_HEX.match(s)
    if m:
        digits = m.group(2)
        if "p" not in digits.lower():
            digits += "p0"
        v = float.fromhex(m.group(1) + "0x" + digits)
    elif (m := _ATOF_DEC.match(s)):
        v = float(m.group(1))
    elif (m := _ATOF_SPECIAL.match(s)):
        v = float(m.group(1) + ("inf" if m.group(2).lower().startswith("inf") else "nan"))
    else:
        v = 0.0
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def _int_arg(value, method: str) -> int:
    """What ale-py's binding accepts for an ``int`` argument (ints, bools, NumPy
    integers: anything with ``__index__``) in the C ``int`` range; TypeError otherwise."""
    try:
        v = operator.index(value)
    except TypeError:
        raise ALETypeError(f"{method}(): value must be an int, got {type(value).__name__} {value!r}") from None
    if not _INT32_MIN <= v <= _INT32_MAX:
        raise ALETypeError(f"{method}(): value {v} does not fit in a C int [{_INT32_MIN}, {_INT32_MAX}]")
    return v


def _float_arg(value, method: str) -> float:
    """A float argument as ale-py's binding takes it (ints, bools, floats, NumPy
    numbers), cast to a C float (overflow gives inf, as the C cast)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__float__"):
        raise ALETypeError(f"{method}(): value must be a float, got {type(value).__name__} {value!r}")
    with np.errstate(over="ignore"):
        return float(np.float32(float(value)))


class AleSettings:
    """One ALEInterface's settings table (ALE 0.12.1 ``Settings``); see the module
    docstring.  Keys are ALE's (``"repeat_action_probability"``, ``"frame_skip"``...)."""

    def __init__(self):
        self._internal = dict(_INTERNAL)
        self._external: dict = {}
        # setDefaultSettings: strings, floats, bools, ints (fragsize overwrites Stella's).
        for kind in ("string", "float", "bool", "int"):
            for key, value in _TYPED[kind].items():
                self._store(kind, key, value)

    @staticmethod
    def _format(kind: str, value) -> str:
        if kind == "float":
            return _cpp_ostream_float(value)
        if kind == "bool":
            return "1" if value else "0"
        return str(value)

    def _store(self, kind: str, key: str, value) -> None:
        text = self._format(kind, value)
        if key in self._internal:
            self._internal[key] = text
        else:
            if key not in _TYPED[kind]:
                raise UnknownSetting(f"The key {key} you are trying to set does not exist or has "
                                     f"incorrect value type (ALE 0.12.1 has no {kind} setting {key!r})")
            self._external[key] = text
        # Settings::validate (ale-py's build has SDL_SUPPORT, so the sound keys too).
        for name, low, high, default in (("volume", 0, 100, "100"), ("freq", 0, 48000, "31400"),
                                         ("tiafreq", 0, 48000, "31400")):
            if not low <= self.get_int(name) <= high:
                self._internal[name] = default
        if self._internal["palette"] not in ("standard", "z26", "user"):
            self._internal["palette"] = "standard"

    def _text(self, key: str):
        if key in self._internal:
            return self._internal[key], True
        if key in self._external:
            return self._external[key], False
        return None, False

    # ---- getters: ALE's conversions ----

    def get_int(self, key: str) -> int:
        text, _ = self._text(_key(key, "getInt"))
        return -1 if text is None else _atoi(text)

    def get_float(self, key: str) -> float:
        text, _ = self._text(_key(key, "getFloat"))
        return -1.0 if text is None else _atof(text)

    def get_bool(self, key: str) -> bool:
        text, internal = self._text(_key(key, "getBool"))
        if text is None:
            return False
        return text in (("1", "true", "True") if internal else ("1", "true"))

    def get_string(self, key: str) -> str:
        text, _ = self._text(_key(key, "getString"))
        return "" if text is None else text

    # ---- setters: ALE's key and type checks ----

    def set_int(self, key: str, value) -> None:
        self._store("int", _key(key, "setInt"), _int_arg(value, "setInt"))

    def set_float(self, key: str, value) -> None:
        self._store("float", _key(key, "setFloat"), _float_arg(value, "setFloat"))

    def set_bool(self, key: str, value) -> None:
        if not isinstance(value, bool):
            raise ALETypeError(f"setBool(): value must be True or False, got {type(value).__name__} {value!r}")
        self._store("bool", _key(key, "setBool"), value)

    def set_string(self, key: str, value) -> None:
        if not isinstance(value, str):
            raise ALETypeError(f"setString(): value must be a str, got {type(value).__name__} {value!r}")
        self._store("string", _key(key, "setString"), value)

    def copy(self) -> "AleSettings":
        out = AleSettings.__new__(AleSettings)
        out._internal = dict(self._internal)
        out._external = dict(self._external)
        return out


def _key(key, method: str) -> str:
    if not isinstance(key, str):
        raise ALETypeError(f"{method}(): key must be a str, got {type(key).__name__} {key!r}")
    return key
