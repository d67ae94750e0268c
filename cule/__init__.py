"""cule: a GPU-resident, bit-exact Atari 2600 learning environment.

Thousands of Atari 2600 consoles, each bit-exact with ALE (ale-py 0.12.1), stepped
in a batch on CPU threads (and, in CUDA builds, on the GPU).
"""
from . import _core
from .atari import Atari
from .roms import list_games, load_rom
from .vector_env import AtariVectorEnv
# The exceptions for bad arguments: InvalidArgument (a ValueError and gymnasium.error.Error)
# and its subclasses that are also the class ale-py raises in the same place.
from .vector_env import ALEIndexError, ALERuntimeError, ALETypeError, InvalidArgument
from .gym_env import AtariEnv
from .ale_interface import ALEInterface
from .ale_state import ALEState
from .registration import register_v0_v4_envs as _register_v0_v4_envs
from .registration import register_v5_envs as _register_v5_envs

_register_v5_envs()      # cule/<Game>-v5 for gym.make / gym.make_vec
_register_v0_v4_envs()   # cule/<Game>[NoFrameskip]-v0 / -v4, ale-py's legacy ids

__version__ = "0.1.0"


def _cuda_built() -> bool:
    try:
        from . import _cuda  # noqa: F401
    except ImportError:
        return False
    return True


def build_info() -> dict:
    """Facts about this build, a dict: ``version`` (str), ``cuda`` (bool: the CUDA
    backend ``cule._cuda`` was compiled; a GPU is still needed to use it),
    ``console_state_bytes`` (int: per-console emulator state, excluding frame buffers)
    and ``frame_buffer_bytes`` (int: a console's two frame buffers together)."""
    return {
        "version": __version__,
        "cuda": _cuda_built(),
        "console_state_bytes": int(_core.console_state_bytes),
        "frame_buffer_bytes": 2 * int(_core.frame_buffer_bytes),
    }


__all__ = ["ALEIndexError", "ALEInterface", "ALERuntimeError", "ALEState", "ALETypeError", "Atari", "AtariEnv", "AtariVectorEnv",
           "InvalidArgument", "build_info", "list_games", "load_rom", "__version__"]
