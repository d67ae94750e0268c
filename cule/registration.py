"""Gymnasium registration: ``cule/<Game>-v5`` for every game cule supports.

Names and defaults follow ale-py 0.12.1's ``register_v5_envs`` (src/ale/python/
registration.py): ``ALE/Pong-v5`` -> ``cule/Pong-v5`` with repeat_action_probability 0.25,
frameskip 4, the minimal action set and max_num_frames_per_episode 108000;
``gym.make`` gives ``cule.AtariEnv`` and ``gym.make_vec`` gives ``cule.AtariVectorEnv``.
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


def register_v5_envs() -> list:
    """Registers ``cule/<Game>-v5`` for each game of ``cule.list_games()``; returns the ids."""
    ids = []
    for rom in list_games():
        if rom in _MULTIPLAYER_ONLY:
            continue
        env_id = f"cule/{rom_id_to_name(rom)}-v5"
        ids.append(env_id)
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="cule.gym_env:AtariEnv",
            vector_entry_point="cule.vector_env:AtariVectorEnv",
            kwargs=dict(
                game=rom,
                repeat_action_probability=0.25,
                full_action_space=False,
                frameskip=4,
                max_num_frames_per_episode=108_000,
            ),
        )
    return ids
