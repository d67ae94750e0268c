"""``render_mode="human"``: a window that shows the game while it is emulated.

What ALE 0.12.1 does with ``display_screen`` (ale-py's ``render_mode="human"``), from
its sources (src/ale/common/ScreenSDL.cpp, src/ale/environment/stella_environment.cpp,
src/ale/emucore/Console.cxx):

- ``StellaEnvironment::act`` shows the screen before each frame it emulates, so every
  frame of a frameskip is shown (one step behind: the last frame of a step appears when
  the next act begins).  reset_game's frames are not shown.
- The window is titled "The Arcade Learning Environment"; its logical size is 428 x 321
  (4:3), scaled up by a whole factor chosen so that it spans about 40% of the desktop.
- Frames are paced to the console's frame rate (``Console::getFrameRate``: 60 frames/s
  for NTSC, 50 for PAL and SECAM).  The LEFT and RIGHT arrow keys lower and raise that
  rate by 5 (between 5 and the console's rate).

What cule does differently, on purpose:

- ALE's pacing delays only every other frame (its ``lastRender`` is not advanced after a
  delay), so pong runs at about 120 frames/s in ale-py 0.12.1 (30 agent steps of 4
  frames took 1.01 s, measured 2026-12-02 with SDL's dummy video driver).  cule paces
  to the console's frame rate, as ALE's documentation says: the game runs in real time.
- Closing the window (or ``env.close()``) closes it and the env goes on, unshown and
  unpaced; ALE ends the process (``std::exit(0)``).  A later ``loadROM`` (the env's
  ``reset(seed=...)``) opens no new window unless ``display_screen`` is set again.
- No sound is played (ALE plays the TIA's sound through SDL).  As in ALE, whose SDL
  sound device makes no observations, ``sound_obs`` observations are zeros in human
  mode (it sets ALE's ``sound``).
- With ``display_screen`` set without ``sound`` (through ``setBool``), ``sound_obs``
  and ALE's own ``frame_skip`` above 1 (set with ``setInt`` and ``loadROM``; ale-py's
  env keeps it at 1), the act runs whole, as ALE makes the act's audio from all its
  frames at once (frame-by-frame acts would not), and the screens logged before each
  of its frames are shown after it: the same screens at the same pace, each shown
  after the act's frames rather than between them.
- pygame (SDL 2) draws the window.  It has one window per process: the newest env that
  opens one takes it over (a copy of an env, each env of a sync vector env in turn), and
  the older one goes on unshown and unpaced.  ale-py opens a window per env.
- ``metadata["render_fps"]`` is 30, ale-py's value, whatever the window's pace.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np
from gymnasium import error

# ALE 0.12.1 ScreenSDL.hpp: the window's logical size.
WINDOW_WIDTH, WINDOW_HEIGHT = 428, 321
WINDOW_TITLE = "The Arcade Learning Environment"


def _import_pygame():
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as e:
        raise error.DependencyNotInstalled(
            'render_mode="human" needs pygame (one of cule\'s dependencies): pip install pygame') from e
    return pygame


def scale_factor(desktop_width: int, desktop_height: int) -> int:
    """ALE 0.12.1 ``ScreenSDL::getScaleFactor``: the whole factor that brings the
    428 x 321 window nearest to 40% of the desktop's larger side (at least 1)."""
    w = int(np.ceil(np.float32(desktop_width) * np.float32(0.4)))
    h = int(np.ceil(np.float32(desktop_height) * np.float32(0.4)))
    ratio = np.float32(w) / np.float32(WINDOW_WIDTH) if w > h else np.float32(h) / np.float32(WINDOW_HEIGHT)
    return max(int(np.floor(ratio + np.float32(0.5))), 1)   # C's round: halves away from 0


_current: Optional["HumanDisplay"] = None   # the display that holds pygame's window


class HumanDisplay:
    """The window of one env in ``render_mode="human"``.

    Args:
        frame_rate: the console's frame rate in frames/s (60 NTSC, 50 PAL / SECAM):
            ``show`` waits so that frames appear at this rate.

    Raises:
        gymnasium.error.DependencyNotInstalled: pygame is missing.
        gymnasium.error.Error: SDL can open no window at all.  (Where it finds no
            display it usually falls back to its offscreen driver instead: the env then
            runs, paced, and shows nothing, as under ale-py; ``SDL_VIDEODRIVER=dummy``
            asks for that.)
    """

    def __init__(self, frame_rate: int):
        global _current
        pygame = self._pygame = _import_pygame()
        self.max_fps = int(frame_rate)
        self.fps = self.max_fps
        try:
            pygame.display.init()
            sizes = pygame.display.get_desktop_sizes() or [(WINDOW_WIDTH, WINDOW_HEIGHT)]
            s = scale_factor(*sizes[0])
            self._window = pygame.display.set_mode((WINDOW_WIDTH * s, WINDOW_HEIGHT * s))
        except pygame.error as e:
            raise error.Error(f"could not open a window ({e})") from None
        if _current is not None:
            _current._window = None   # pygame has one window: this env takes it over
        pygame.display.set_caption(WINDOW_TITLE)
        self._clock = pygame.time.Clock()
        self._index = None   # (screen shape, window rows' screen rows, columns' columns)
        self.frames_shown = 0
        _current = self

    @property
    def is_open(self) -> bool:
        """False once the window was closed (by the user, ``close``, or a newer env)."""
        return self._window is not None

    def show(self, rgb: np.ndarray, frames: int = 1) -> None:
        """Shows one frame (uint8 [H, W, 3], RGB), stretched to the window, then waits
        until ``frames`` / fps seconds have passed since the last one (``frames``: the
        emulated frames it stands for).  Handles the window's events: closing it closes
        the display; LEFT / RIGHT change fps by 5."""
        if self._window is None:
            return
        pygame = self._pygame
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.close()
                return
            if event.type == pygame.KEYDOWN:
                if event.key == pygame.K_LEFT:
                    self.fps = max(self.fps - 5, 5)
                elif event.key == pygame.K_RIGHT:
                    self.fps = min(self.fps + 5, self.max_fps)
        # Stretched to the window, each window pixel taking the screen pixel under its
        # centre (SDL's nearest-pixel scaling, which ALE's renderer uses).
        ww, wh = self._window.get_size()
        h, w = rgb.shape[:2]
        if self._index is None or self._index[0] != (h, w):
            rows = ((np.arange(wh) + 0.5) * h / wh).astype(np.intp)
            cols = ((np.arange(ww) + 0.5) * w / ww).astype(np.intp)
            self._index = ((h, w), rows, cols)
        _, rows, cols = self._index
        pygame.surfarray.blit_array(self._window, rgb[rows][:, cols].swapaxes(0, 1))
        pygame.display.flip()
        self.frames_shown += 1
        self._clock.tick(self.fps / frames)

    def window_pixels(self) -> np.ndarray:
        """What the window shows, uint8 [height, width, 3] (for tests)."""
        return self._pygame.surfarray.array3d(self._window).swapaxes(0, 1).copy()

    def close(self) -> None:
        """Closes the window (nothing happens if it is closed already)."""
        global _current
        if self._window is None:
            return
        self._window = None
        if _current is self:
            _current = None
            self._pygame.display.quit()
