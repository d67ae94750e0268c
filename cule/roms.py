"""ROM lookup: ALE game ids, ROM files and their identification by MD5.

ROMs come from ale-py's bundled collection (``ale_py.roms``).  A ROM is identified by
its MD5 against the table of the 108 ROMs ale-py 0.12.1 ships; an unknown file is
rejected, never silently replaced by another game.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from ._rom_table import ROMS

# Games whose ALE RomSettings (reward, terminal, lives, modes) cule implements, with
# the id of each in the native core (csrc/games/dispatch.hpp GameId).
from ._game_ids import GAME_IDS as _GAME_IDS

# Cartridge types the native core implements (csrc/state.hpp CartType).
_CART_TYPES = {"2K": 0, "4K": 1, "F8": 2, "F6": 3, "E0": 5, "FE": 6, "F6SC": 7, "F8SC": 8, "DPC": 9}

_MD5_TO_GAME = {info["md5"]: name for name, info in ROMS.items()}

# Stella's "F8 swapped" ROMs start in the other bank (ALE 0.12.1 Cart.cxx).
_F8_SWAPPED_MD5 = {"bc24440b59092559a1ec26055fd1270e", "75ee371ccfc4f43e7d9b8f24e1266b55"}

PADDLE_MIN = 27450      # ALE 0.12.1 ale_state.hpp PADDLE_MIN
PADDLE_MAX = 790196     # ALE 0.12.1 ale_state.hpp PADDLE_MAX
# Games whose RomSettings::modifyEnvironmentSettings() raises paddle_max.
_PADDLE_MAX_OVERRIDE = {"backgammon": 1000000, "blackjack": 795000}


@dataclass(frozen=True)
class Rom:
    """A ROM that cule can run: its ALE game id, image and per-ROM facts.

    Attributes:
        game (str): the ALE game id (``"pong"``).
        path (str): the file the image was read from (ale-py's bundled ROM for a name).
        data (bytes): the ROM image.
        info (dict): facts about the ROM from ALE 0.12.1 (its RomSettings and Stella's
            properties, the table ``cule/_rom_table.py``): ``md5``, ``size`` (bytes),
            ``cart`` (the bank-switching scheme, e.g. "F8"), ``display`` ("NTSC" /
            "PAL"), ``screen`` ((height, width) of ALE's screen), ``ystart`` /
            ``height`` (the displayed lines), ``modes`` / ``difficulties`` (lists of
            ints, ALE's ``getAvailableModes`` / ``getAvailableDifficulties``),
            ``default_mode``, ``minimal_actions`` (ALE action ids), ``controllers``,
            ``single_player`` and the console switches and quirks the emulator is
            configured with.
    """

    game: str
    path: str
    data: bytes
    info: dict

    @property
    def screen_shape(self) -> tuple:
        """(height, width) of ALE's screen for this ROM."""
        return tuple(self.info["screen"])


def list_games() -> list:
    """The ALE ids of the games cule supports, sorted (e.g. ``"pong"``)."""
    return sorted(_GAME_IDS)


# A game id: "pong", "Pong", "SpaceInvaders", optionally as a Gymnasium id ("Pong-v5",
# "PongNoFrameskip-v4", "ALE/Pong-v5", "cule/Pong-v5", "ALE/Pong"); group 1 is the name.
_GAME_ID = re.compile(r"(?:(?i:ALE|cule)/)?([A-Za-z]\w*?)(?:NoFrameskip)?(?:-v\d+)?")


_LOOSE_IDS = {g.replace("_", "").lower(): g for g in ROMS}
assert len(_LOOSE_IDS) == len(ROMS), "two ALE ids differ only in case or underscores"


def _game_name(game: str):
    """The ALE id a game id names ("Pong-v5" -> "pong"), or None if it names none."""
    m = _GAME_ID.fullmatch(game.strip())
    name = m.group(1) if m else game.strip()
    return _LOOSE_IDS.get(name.replace("_", "").replace("-", "").replace(" ", "").lower())


def _is_path(game: str) -> bool:
    # A name of an ALE game is the game, whatever files the working directory holds
    # (gymnasium.make("cule/Breakout-v5") must not read a file called "breakout");
    # a file of that name is read when given as a path ("./breakout", a pathlib.Path).
    if _game_name(game) is not None:
        return False
    if os.path.isfile(game):
        return True
    if _GAME_ID.fullmatch(game.strip()) or re.match(r"\s*(?i:ALE|cule)/", game):
        return False
    return os.sep in game or game.endswith((".bin", ".a26", ".rom"))


def identify(data: bytes, where: str) -> str:
    """The ALE game id of a ROM image, by MD5.  Raises ValueError if it is unknown."""
    if not data:
        raise ValueError(f"{where}: the file is empty, not an Atari 2600 ROM")
    md5 = hashlib.md5(data).hexdigest()
    game = _MD5_TO_GAME.get(md5)
    if game is None:
        sizes = sorted({info["size"] for info in ROMS.values()})
        if len(data) not in sizes:
            reason = f"its size ({len(data)} bytes) is not that of any ROM ale-py 0.12.1 ships"
        else:
            reason = f"its MD5 {md5} matches none of the ROMs ale-py 0.12.1 ships"
        raise ValueError(f"{where}: not a known Atari 2600 ROM: {reason}")
    return game


def _check_supported(game: str, where: str) -> None:
    info = ROMS[game]
    if not info["single_player"]:
        raise ValueError(f"{where}: {game} is a multiplayer-only ROM; ALE has no single-player settings for it")
    if game not in _GAME_IDS:
        raise ValueError(f"{where}: {game} is an ALE game that cule does not support yet; "
                         f"supported: {', '.join(list_games())}")


def load_rom(game: str) -> Rom:
    """Resolve ``game``: an ALE id (``"pong"``, ``"Pong"``, ``"space_invaders"``,
    ``"SpaceInvaders"``), the same as a Gymnasium id (``"Pong-v5"``, ``"ALE/Pong-v5"``,
    ``"cule/Pong-v5"``, ``"PongNoFrameskip-v4"``), or a ROM file path.  A string that
    names an ALE game means the game even where a file of that name exists in the
    working directory; a ``pathlib.Path`` (any ``os.PathLike``) is always a path, and so
    is any other existing file.

    Returns a ``Rom`` (its ``game``, ``path``, ``data`` and ``info``).

    Raises ValueError naming the game or file and the reason when it is unknown,
    unreadable, not a ROM ale-py ships, or not supported by cule.
    """
    if not isinstance(game, (str, os.PathLike)):
        raise ValueError(f"game must be an ALE game id or a ROM path, got {type(game).__name__}")
    as_path = isinstance(game, os.PathLike)
    game = os.fspath(game)
    if isinstance(game, bytes):
        raise ValueError("game must be an ALE game id or a ROM path, got bytes")
    if as_path or _is_path(game):
        try:
            with open(game, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ValueError(f"{game}: cannot read ROM file ({e.strerror or e})") from None
        name = identify(data, game)
        _check_supported(name, game)
        return Rom(name, game, data, ROMS[name])
    # "pong", "SpaceInvaders", "TicTacToe3D", "Tic_Tac_Toe_3D" ...: ids compared without
    # case or underscores (unique among ALE's ids).
    name = _game_name(game)
    if name is None:
        raise ValueError(f"unknown game {game!r}: not an ALE game id (see cule.list_games() for the "
                         f"{len(_GAME_IDS)} supported games)")
    _check_supported(name, repr(game))
    from ale_py import roms as ale_roms

    path = str(ale_roms.get_rom_path(name))
    with open(path, "rb") as f:
        data = f.read()
    if identify(data, path) != name:
        raise ValueError(f"{path}: the ROM ale-py ships for {name} has an unexpected MD5")
    return Rom(name, path, data, ROMS[name])


def native_config(rom: Rom) -> dict:
    """The GameConfig the native core takes (csrc/state.hpp), from the ROM's facts."""
    info = rom.info
    cart = info["cart"]
    if cart not in _CART_TYPES:
        raise ValueError(f"{rom.path}: cartridge type {cart} is not implemented yet")
    cart_type = _CART_TYPES[cart]
    if cart == "F8" and info["md5"] in _F8_SWAPPED_MD5:
        cart_type = 4
    left, right = info["controllers"]
    types = [1 if left == "PADDLES" else 0, 1 if right == "PADDLES" else 0]
    jacks = [0, 1]
    if info["swap_ports"]:
        # Stella plugs the controller made for the left jack into the right slot.
        types = types[::-1]
        jacks = [1, 0]
    pal = info["display"] == "PAL"
    height = info["height"]
    screen_height = info["screen"][0]
    return {
        "rom_size": len(rom.data),
        "cart_type": cart_type,
        "game_id": _GAME_IDS[rom.game],
        "pal": pal,
        "autodetect": info["autodetect"],
        "ctrl_type": types,
        "ctrl_jack": jacks,
        "swap_paddles": info["swap_paddles"],
        "left_diff_a": info["left_diff_a"],
        "right_diff_a": info["right_diff_a"],
        "hmove_blanks": info["hmove_blanks"],
        "ystart": info["ystart"],
        "height": height,
        "screen_height": screen_height,
        "paddle_min": PADDLE_MIN,
        "paddle_max": _PADDLE_MAX_OVERRIDE.get(rom.game, PADDLE_MAX),
    }
