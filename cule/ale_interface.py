"""``cule.ALEInterface``: ale-py 0.12.1's ``ALEInterface`` on one cule console.

For code written against ALE's own interface rather than Gymnasium (planners, older
agents, scripts)::

    ale = cule.ALEInterface()                      # was: ale_py.ALEInterface()
    ale.setInt("random_seed", 123)
    ale.setFloat("repeat_action_probability", 0.25)
    ale.loadROM(ale_py.roms.get_rom_path("breakout"))
    actions = ale.getMinimalActionSet()
    while not ale.game_over():
        reward = ale.act(actions[1])
    ale.reset_game()

Same method names, arguments, defaults and results as ale-py's, with the settings
table and ``loadROM`` of ``AtariEnv.ale`` (``cule.gym_env.ConsoleView``, where each
method's semantics and the settings cule emulates are listed).  Differences: states
are ``cule.ALEState`` objects (ale-py's ``ALEState`` methods on a ``cule.Atari.clone_state``
dict; their bytes are cule's, not ALE's), bad input
raises ValueError where ale-py ends the process (where it raises RuntimeError or
TypeError, cule's error is of that class and a ValueError too), and no sound is played.
"""
from __future__ import annotations

from .gym_env import AtariEnv, ConsoleView, _rom_path_arg
from .vector_env import InvalidArgument

_NOT_LOADED = "ROM not set: call loadROM(path) first"


class ALEInterface(ConsoleView):
    """ale-py 0.12.1's ``ALEInterface()``: ALE's default settings (``random_seed`` -1,
    which seeds each load from the time, ``repeat_action_probability`` 0.25,
    ``frame_skip`` 1 ...) and no console until ``loadROM``.

    Raises:
        RuntimeError: a method that needs a console, called before the first
            ``loadROM`` (ale-py: RuntimeError "ROM not set", or a crash).
    """

    def __init__(self) -> None:
        self._console = None
        super().__init__(None)

    @property
    def _env(self) -> AtariEnv:
        if self._console is None:
            raise RuntimeError(_NOT_LOADED)
        return self._console

    @_env.setter
    def _env(self, env) -> None:
        self._console = env

    def loadROM(self, rom_file) -> None:  # noqa: N802
        """ALE ``loadROM``: a new console for the ROM file, configured from the settings
        (see ``cule.gym_env.ConsoleView.loadROM``).

        Raises:
            TypeError: ``rom_file`` is not a str, bytes or os.PathLike path.
            ValueError: an empty path before any ROM was loaded (ALE: "No ROM File
                specified."), a missing file, a directory, a ROM cule does not support,
                or a setting value cule refuses (a negative ``frame_skip``; settings
                cule does not act on, such as ``record_sound_filename``, are stored
                and ignored).  Nothing is changed.
        """
        if self._console is not None:
            return super().loadROM(rom_file)
        if _rom_path_arg(rom_file, "loadROM") == "":
            raise InvalidArgument("No ROM File specified: loadROM('') reloads the ROM loaded last, and none "
                                  "was loaded yet")
        plan = self._plan_load(rom_file)
        env = AtariEnv(plan["path"], frameskip=1)   # its own console, then loaded as ALE would
        env.ale = self
        env._apply_load(plan)
        self._console = env

    def __repr__(self) -> str:
        rom = self.getString("rom_file") if self._console is not None else None
        return f"cule.ALEInterface(rom_file={rom!r})"
