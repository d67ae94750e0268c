"""``cule.ALEState``: one console's state with ale-py 0.12.1's ``ALEState`` methods.

``cule.ALEInterface.cloneState`` (and ``cloneSystemState``) and ``cule.AtariEnv.clone_state``
return it where ale-py returns an ``ale_py.ALEState``, so code written against ALE's
state object (planners, Go-Explore archives, scripts that save states) runs unchanged::

    state = ale.cloneState()
    state.getFrameNumber(), state.getEpisodeFrameNumber()    # frames, not agent steps
    state.getCurrentMode(), state.getDifficulty()
    data = state.serialize()                                  # bytes
    same = cule.ALEState(data)                                # from those bytes
    assert same.equals(state) and same == state
    ale.restoreState(same)

It is also the dict ``cule.Atari.clone_state`` returns for one console (``consoles``,
``frame_buffers``, ``digest``, ...), which every ``restore_state`` takes as before.
Pickling and ``copy.deepcopy`` go through ``serialize``.  The bytes are cule's (this
build's console layout, as ``cule.Atari.clone_state`` describes), not ALE's: a state
moves between cule envs of the same game, not to or from ale-py.
"""
from __future__ import annotations

import functools
import hashlib
import json

import numpy as np
import torch

from . import _core
from ._rom_table import ROMS
from .atari import _check_snapshot_digests, _row_digests, _state_type_note
from .vector_env import ALETypeError, InvalidArgument

_MAGIC = b"cule.ALEState/1\n"
_FORMAT = "cule.Atari/1"
# The snapshot's plain values, in the header of serialize()'s bytes.
_META = ("format", "game", "md5", "console_state_bytes", "frame_buffer_bytes", "include_rng", "sound", "cpu")
_ROWS = ("env_ids", "digest", "frame_buffer_digest")   # int64 [1] tensors, in the header too


class ALEState(dict):
    """A one-console ``cule.Atari.clone_state`` snapshot with ale-py 0.12.1's
    ``ALEState`` methods (``getFrameNumber``, ``getEpisodeFrameNumber``,
    ``getCurrentMode``, ``getDifficulty``, ``serialize``, ``equals``, ``==``).

    ``ALEState(data)``: the state whose ``serialize()`` gave the bytes ``data``;
    ``ALEState(snapshot)``: wraps a ``cule.Atari.clone_state`` dict of one console (its
    values are shared, not copied) after checking it; ``ALEState()``: an empty state (as
    ale-py's ``ALEState()``; it cannot be restored and its getters raise).  States hash
    by identity, as ale-py's, while ``==`` compares them as ``equals`` does.

    Raises:
        ALETypeError (a TypeError, as ale-py's binding raises, and a ValueError):
            ``data`` is neither bytes nor a snapshot dict (None and ale-py's states
            included), or more than one argument.
        InvalidArgument (a ValueError): bytes that are not a serialized cule state, or
            that are truncated, edited or corrupt (their BLAKE2b checksum, then each
            row's, is checked); a dict that is not a ``cule.Atari.clone_state`` snapshot
            of exactly one console, with all its keys, uint8 rows of this build's sizes
            that match their checksums, a supported game and its ROM's MD5 and a bool
            ``include_rng``.
    """

    # Hashed by identity, as ale-py's ALEState (archives keyed by state objects), while
    # == compares states as ALE does: like ale-py's, equal states can hash differently.
    __hash__ = object.__hash__
    __module__ = "cule"   # pickles and reprs name cule.ALEState, where users import it from

    def __init__(self, *data) -> None:
        if not data:
            super().__init__()
            return
        if len(data) > 1:
            raise ALETypeError(f"ALEState() takes one argument (bytes or a snapshot dict), got {len(data)}")
        data = data[0]
        if isinstance(data, (bytes, bytearray, memoryview)):
            super().__init__(_deserialize(bytes(data)))
        elif isinstance(data, dict):
            _check_snapshot(data, deep=True)
            super().__init__(data)
        else:
            raise ALETypeError("ALEState() takes the bytes of ALEState.serialize() or a cule.Atari.clone_state "
                               "dict" + (_state_type_note(data) or f", got {type(data).__name__}"))

    @classmethod
    def _of(cls, snapshot: dict) -> "ALEState":
        """A state of a snapshot cule.Atari.clone_state just made (no checks needed)."""
        state = cls.__new__(cls)
        dict.__init__(state, snapshot)
        return state

    # ---- ale_py.ALEState's getters ----

    def getFrameNumber(self) -> int:  # noqa: N802
        """Frames emulated since the ROM was loaded (ALE ``ALEState::getFrameNumber``)."""
        return self._field("frame_number", signed=True)

    def getEpisodeFrameNumber(self) -> int:  # noqa: N802
        """Frames emulated since the last reset (ALE ``ALEState::getEpisodeFrameNumber``)."""
        return self._field("episode_frame_number", signed=True)

    def getCurrentMode(self) -> int:  # noqa: N802
        """The game mode the console was in (ALE ``ALEState::getCurrentMode``)."""
        return self._field("mode", signed=False)

    def getDifficulty(self) -> int:  # noqa: N802
        """The difficulty the console was in (ALE ``ALEState::getDifficulty``)."""
        return self._field("difficulty", signed=False)

    def _field(self, name: str, signed: bool) -> int:
        _check_snapshot(self)
        offset, size = _core.console_ale_fields[name]
        return int.from_bytes(_row_bytes(self["consoles"], "consoles")[offset:offset + size], "little", signed=signed)

    # ---- bytes and comparison ----

    def serialize(self) -> bytes:
        """The state as bytes (ALE ``ALEState::serialize``): a header naming the game,
        its ROM's MD5, the settings the snapshot records and the checksums, then the
        console's bytes (about 5.8 KB in all; 96 KB more for a snapshot that holds
        frame buffers, such as ``cule.Atari.clone_state([i])``'s).  ``cule.ALEState(data)``
        reads them back.  The same state always gives the same bytes.  Raises
        InvalidArgument for a state that is empty or not a snapshot."""
        _check_snapshot(self)
        missing = [k for k in _META + _ROWS if k not in self]
        if missing:
            raise InvalidArgument(f"the state lacks {', '.join(missing)}: not a complete cule.Atari.clone_state snapshot")
        fbs = self["frame_buffers"] is not None
        try:
            head = {k: self[k] for k in _META}
            head.update({k: None if self[k] is None else [int(v) for v in torch.as_tensor(self[k]).reshape(-1).tolist()]
                         for k in _ROWS})
            head["frame_buffers"] = fbs
            text = json.dumps(head, sort_keys=True, separators=(",", ":")).encode()
        except (TypeError, ValueError, RuntimeError) as e:
            raise InvalidArgument(f"the state's values are not those of a snapshot ({e})") from None
        body = [_row_bytes(self["consoles"], "consoles")]
        if fbs:
            body.append(_row_bytes(self["frame_buffers"], "frame_buffers"))
        data = b"".join([_MAGIC, text, b"\n"] + body)
        return data + _checksum(data)

    def equals(self, other: "ALEState") -> bool:
        """Whether ``other`` holds the same state as ALE judges it (ALE
        ``ALEState::equals``, which compares serialized states): the same game, ROM and
        CPU core, and the same console in everything ALE's ``restoreState`` puts back,
        the sticky-action RNG included only in a state cloned with ``include_rng`` (and
        then both must be).  What ALE's restore leaves as it was (the screen, the sticky
        action, the TIA's partial-frame flags, the sound generators, ...) is not
        compared, so ``restoreState(s)`` followed by ``cloneState().equals(s)`` is True,
        as with ale-py.  Two empty states are equal.  (``serialize()``'s bytes also hold
        those other parts: equal states can serialize differently.)

        Raises ALETypeError (a TypeError, as ale-py) for anything but a state, and
        InvalidArgument for a dict that is not a one-console snapshot.
        """
        if not isinstance(other, dict) or (other and "format" not in other):
            raise ALETypeError("equals() takes an ALEState" + (" (a dict without the keys of one)"
                                                                if isinstance(other, dict) else _state_type_note(other)))
        if not self or not other:
            return not self and not other
        return _ale_key(self) == _ale_key(other)

    def __eq__(self, other) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        try:
            return self.equals(other)
        except InvalidArgument:     # not a one-console snapshot (nor a state): no ALEState equals it
            return False

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __reduce__(self):
        return (ALEState, (self.serialize(),) if self else ())

    def __repr__(self) -> str:
        if self.get("format") != _FORMAT:
            return "cule.ALEState()" if not self else f"cule.ALEState({dict.__repr__(self)})"
        return (f"<cule.ALEState of {self.get('game')}: frame {self.getFrameNumber()} (episode frame "
                f"{self.getEpisodeFrameNumber()}), mode {self.getCurrentMode()}, difficulty {self.getDifficulty()}>")


def _check_snapshot(state: dict, deep: bool = False) -> None:
    """InvalidArgument unless ``state`` is a one-console snapshot; ``deep``: also its
    values (the keys restore_state needs, uint8 rows of this build's sizes matching
    their checksums, a supported game, a bool include_rng)."""
    if not state:
        raise InvalidArgument("the ALEState is empty (ALEState() holds no console): take one with cloneState()")
    if state.get("format") != _FORMAT:
        raise InvalidArgument("not a console state: an ALEState is a cule.Atari.clone_state snapshot of one console")
    for k in ("consoles", "frame_buffers"):
        rows = state.get(k)
        if k == "frame_buffers" and rows is None and k in state:   # clone_state(frame_buffers=False)
            continue
        if not isinstance(rows, (torch.Tensor, np.ndarray)) or rows.ndim != 2 or len(rows) != 1:
            raise InvalidArgument(f"an ALEState holds one console: its {k!r} must be a [1, n] uint8 array, got "
                                  + (f"shape {tuple(rows.shape)}" if hasattr(rows, "shape") else type(rows).__name__)
                                  + " (take a batch's console i with clone_state([i]))")
    if not deep:
        return
    missing = [k for k in _META + _ROWS if k not in state]
    if missing:
        raise InvalidArgument(f"the state lacks {', '.join(missing)}: not a complete cule.Atari.clone_state snapshot")
    if not isinstance(state["include_rng"], (bool, np.bool_)):
        raise InvalidArgument("the state's include_rng must be a bool")
    if state["console_state_bytes"] != _core.console_state_bytes or state["frame_buffer_bytes"] != 2 * _core.frame_buffer_bytes:
        raise InvalidArgument("the state was saved by a cule build with another console layout")
    try:
        _game_config(state["game"])
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"the state's game: {e}") from None
    if state["md5"] != ROMS[state["game"]]["md5"]:
        raise InvalidArgument(f"the state's ROM MD5 {state['md5']!r} is not that of {state['game']!r}")
    consoles = _one_row(state["consoles"], "consoles")
    fbs = None if state["frame_buffers"] is None else _one_row(state["frame_buffers"], "frame_buffers")
    if consoles.shape[1] != _core.console_state_bytes or fbs is not None and fbs.shape[1] != 2 * _core.frame_buffer_bytes:
        raise InvalidArgument("the state's rows are not this build's console and frame-buffer sizes: they cannot "
                              "match their checksum (a corrupt or edited snapshot)")
    _check_snapshot_digests(consoles, fbs, state, "the state's", InvalidArgument)


def _one_row(rows, name: str) -> torch.Tensor:
    """A one-row snapshot array as a uint8 [1, n] CPU tensor of its own (InvalidArgument
    for another dtype)."""
    return torch.frombuffer(bytearray(_row_bytes(rows, name)), dtype=torch.uint8).reshape(1, -1)


@functools.lru_cache(maxsize=None)
def _game_config(game: str) -> dict:
    from .roms import load_rom, native_config

    return native_config(load_rom(game))


def _ale_key(state: dict) -> tuple:
    """What ALE's serialized state holds, as cule's console bytes: the console as ALE's
    restoreState would leave it if everything it does not restore were zero
    (csrc/ale_env.hpp ale_restore_state, applied to a zeroed console)."""
    _check_snapshot(state)
    rows = _one_row(state["consoles"], "consoles").numpy()
    if rows.shape[1] != _core.console_state_bytes:
        raise InvalidArgument("the state was saved by a cule build with another console layout")
    include_rng = state.get("include_rng", True)    # as restore_state reads it
    if not isinstance(include_rng, (bool, np.bool_)):
        raise InvalidArgument("the state's include_rng must be a bool")
    try:
        cfg = _game_config(state.get("game"))
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"the state's game: {e}") from None
    key = np.zeros_like(rows)
    _core.ale_restore_rows(key, rows, cfg, bool(include_rng), 0, _core.NO_LIVES_LIMIT)
    # A console that tracks the TIA's sound and one that does not differ in ALE's state
    # (its TIA's sound bytes): sound observations on or off.
    return (state.get("game"), state.get("md5"), state.get("cpu", "low"), bool(include_rng),
            bool(state.get("sound", False)), key.tobytes())


def _row_bytes(rows, name: str) -> bytes:
    a = rows.detach().cpu().numpy() if isinstance(rows, torch.Tensor) else np.asarray(rows)
    if a.dtype != np.uint8:
        raise InvalidArgument(f"the state's {name!r} must be uint8, got {a.dtype}")
    return a.tobytes()


def _checksum(data: bytes) -> bytes:
    """The 16 bytes that end serialize()'s output: BLAKE2b of everything before them
    (so an edited header is refused as well as edited console bytes)."""
    return hashlib.blake2b(data, digest_size=16).digest()


def _deserialize(data: bytes) -> dict:
    bad = "not the bytes of a cule ALEState (ALEState.serialize())"
    if not data.startswith(_MAGIC):
        raise InvalidArgument(bad + (": an ale-py state's bytes cannot be read by cule" if data else ": empty"))
    data, check = data[:-16], data[-16:]
    if _checksum(data) != check:
        raise InvalidArgument("the ALEState's bytes are truncated, padded or corrupt: their checksum does not match")
    end = data.find(b"\n", len(_MAGIC))
    try:
        head = json.loads(data[len(_MAGIC):end]) if end > 0 else None
    except (ValueError, RecursionError):
        head = None
    damaged = InvalidArgument(bad + ": its header is damaged")
    if (not isinstance(head, dict) or head.get("format") != _FORMAT
            or any(k not in head for k in _META + _ROWS + ("frame_buffers",))):
        raise damaged
    cs, fs, fbs = head["console_state_bytes"], head["frame_buffer_bytes"], head["frame_buffers"]
    rows = [k for k in _ROWS if fbs or k != "frame_buffer_digest"]
    if (not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (cs, fs))
            or not isinstance(fbs, bool) or not (fbs or head["frame_buffer_digest"] is None)
            or any(not isinstance(head[k], list) or len(head[k]) != 1
                   or not all(isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63 for v in head[k])
                   for k in rows)):
        raise damaged
    body = data[end + 1:]
    size = cs + (fs if fbs else 0)
    if len(body) != size:
        raise InvalidArgument(f"the ALEState's bytes are truncated or padded: {len(body)} bytes of console"
                              + (" and frame buffers" if fbs else "") + f", the header says {size}")
    consoles = torch.frombuffer(bytearray(body[:cs]), dtype=torch.uint8).reshape(1, cs)
    state = {k: head[k] for k in _META}
    state.update(consoles=consoles, frame_buffers=None, frame_buffer_digest=None)
    state.update({k: torch.tensor(head[k], dtype=torch.int64) for k in rows})
    digest = int(_row_digests(consoles)[0])
    ok = digest == head["digest"][0]
    if fbs:
        state["frame_buffers"] = torch.frombuffer(bytearray(body[cs:]), dtype=torch.uint8).reshape(1, fs)
        ok = ok and int(_row_digests(state["frame_buffers"])[0]) ^ digest == head["frame_buffer_digest"][0]
    if not ok:
        raise InvalidArgument("the ALEState's bytes are corrupt: a checksum does not match")
    return state
