"""Gymnasium registration: ``cule/<Game>-v5`` for every game cule supports, and the
legacy v0 / v4 ids ale-py keeps for the games of the early Atari papers.

Names and defaults follow ale-py 0.12.1's ``register_v5_envs`` and
``register_v0_v4_envs`` (src/ale/python/registration.py):

- ``ALE/Pong-v5`` -> ``cule/Pong-v5``: repeat_action_probability 0.25, frameskip 4, the
  minimal action set, max_num_frames_per_episode 108000.  ``gym.make`` gives
  ``cule.AtariEnv`` and ``gym.make_vec`` gives ``cule.AtariVectorEnv``.
- ``Pong-v0`` / ``Pong-v4`` / ``PongNoFrameskip-v0`` / ``PongNoFrameskip-v4`` ->
  ``cule/Pong-v0`` ...: frameskip drawn from [2, 5) each step (``NoFrameskip``: 1),
  repeat_action_probability 0.25 (v0) or 0 (v4), the minimal action set,
  max_num_frames_per_episode 108000.  As in ale-py they have no vector entry point, so
  ``gym.make_vec`` wraps single ``cule.AtariEnv`` instances in Gymnasium's vector env.

Importing ``cule`` registers them (``gym.register_envs(cule)`` documents that import).
"""
from __future__ import annotations

import gymnasium

from .roms import list_games

# ROMs without single-player settings in ALE; ale-py registers no v5 id for them.
_MULTIPLAYER_ONLY = {"combat", "joust", "maze_craze", "warlords"}


def rom_id_to_name(rom: str) -> str:
    """snake_case ALE id -> the PascalCase name of its Gymnasium id (``space_invaders`` -> ``SpaceInvaders``)."""
    return rom.title().replace("_", "")


# The games ale-py 0.12.1 registers v0 / v4 ids for (``register_v0_v4_envs``).
LEGACY_GAMES = (
    "adventure", "air_raid", "alien", "amidar", "assault", "asterix", "asteroids", "atlantis",
    "bank_heist", "battle_zone", "beam_rider", "berzerk", "bowling", "boxing", "breakout", "carnival",
    "centipede", "chopper_command", "crazy_climber", "defender", "demon_attack", "double_dunk",
    "elevator_action", "enduro", "fishing_derby", "freeway", "frostbite", "gopher", "gravitar", "hero",
    "ice_hockey", "jamesbond", "journey_escape", "kangaroo", "krull", "kung_fu_master",
    "montezuma_revenge", "ms_pacman", "name_this_game", "phoenix", "pitfall", "pong", "pooyan",
    "private_eye", "qbert", "riverraid", "road_runner", "robotank", "seaquest", "skiing", "solaris",
    "space_invaders", "star_gunner", "tennis", "time_pilot", "tutankham", "up_n_down", "venture",
    "video_pinball", "wizard_of_wor", "yars_revenge", "zaxxon",
)


def _register(env_id: str, rom: str, sticky: float, frameskip, vector: bool) -> None:
    """One id for cule.AtariEnv (and cule.AtariVectorEnv with ``vector``), unless taken."""
    if env_id in gymnasium.registry:
        return
    gymnasium.register(
        id=env_id,
        entry_point="cule.gym_env:AtariEnv",
        vector_entry_point="cule.vector_env:AtariVectorEnv" if vector else None,
        kwargs=dict(game=rom, repeat_action_probability=sticky, full_action_space=False, frameskip=frameskip,
                    max_num_frames_per_episode=108_000),
    )


def register_v0_v4_envs() -> list:
    """Registers ``cule/<Game>[NoFrameskip]-v0`` / ``-v4`` for each of LEGACY_GAMES with
    ale-py's keyword arguments (see the module docstring); returns the ids."""
    supported = set(list_games())
    ids = []
    for rom in LEGACY_GAMES:
        if rom not in supported:
            continue
        for suffix, frameskip in (("", (2, 5)), ("NoFrameskip", 1)):
            for version, sticky in (("v0", 0.25), ("v4", 0.0)):
                ids.append(f"cule/{rom_id_to_name(rom)}{suffix}-{version}")
                _register(ids[-1], rom, sticky, frameskip, vector=False)
    return ids


def register_v5_envs() -> list:
    """Registers ``cule/<Game>-v5`` for each game of ``cule.list_games()``; returns the ids."""
    ids = []
    for rom in list_games():
        if rom in _MULTIPLAYER_ONLY:
            continue
        ids.append(f"cule/{rom_id_to_name(rom)}-v5")
        _register(ids[-1], rom, 0.25, 4, vector=True)
    return ids
