"""render_mode="human" (cule/human_render.py): the window shows the screen before each
frame ALE's act emulates (ALE 0.12.1 StellaEnvironment::act and ScreenSDL), and the
env's results are ale-py's.  Runs headless on SDL's dummy video driver."""
import sys

import numpy as np
import pytest

import gymnasium as gym

import cule
from cule import human_render

ale_py = pytest.importorskip("ale_py")
pytest.importorskip("pygame")
gym.register_envs(cule)
gym.register_envs(ale_py)


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    yield
    if human_render._current is not None:
        human_render._current.close()


def _shows(window: np.ndarray, screen: np.ndarray) -> bool:
    """Whether the window shows `screen` stretched to its size: sampled at the centre of
    each screen pixel, which any nearest-pixel stretch maps back to that pixel."""
    h, w = screen.shape[:2]
    wh, ww = window.shape[:2]
    rows = ((np.arange(h) + 0.5) * wh / h).astype(int)
    cols = ((np.arange(w) + 0.5) * ww / w).astype(int)
    return np.array_equal(window[rows][:, cols], screen)


def test_scale_factor_is_ales():
    # ALE 0.12.1 ScreenSDL::getScaleFactor: round(ceil(0.4 * larger side) / 428 or 321).
    assert human_render.scale_factor(1920, 1080) == 2     # 768 / 428 = 1.79
    assert human_render.scale_factor(1024, 768) == 1      # 410 / 428 = 0.96
    assert human_render.scale_factor(3840, 2160) == 4     # 1536 / 428 = 3.59
    assert human_render.scale_factor(1080, 1920) == 2     # 768 / 321 = 2.39
    assert human_render.scale_factor(2675, 1000) == 3     # 1070 / 428 = 2.5: C rounds halves up
    assert human_render.scale_factor(0, 0) == 1


@pytest.mark.parametrize("env_id,kw", [
    ("Pong-v5", dict(frameskip=1)),
    ("Breakout-v5", dict(frameskip=4, sound_obs=True)),
    ("Adventure-v5", dict(frameskip=3, repeat_action_probability=0.0)),   # PAL: 50 frames/s
])
def test_window_shows_every_frame_and_results_are_ale_pys(env_id, kw):
    # ale-py in human mode, one frame a step, gives the screen of every frame; cule in
    # human mode must return the same results and show, after each of its steps, the
    # screen before the step's last frame.  (Human mode sets ALE's sound, whose SDL device
    # makes the sound observations zeros.)
    fs = kw.pop("frameskip")
    ref = gym.make(f"ALE/{env_id}", frameskip=1, render_mode="human", **kw)
    env = gym.make(f"cule/{env_id}", frameskip=fs, render_mode="human", **kw)
    assert not isinstance(env, gym.wrappers.HumanRendering)
    display = env.unwrapped._display
    assert display.max_fps == (50 if env_id.startswith("Adventure") else 60)
    assert display.window_pixels().shape[2] == 3
    rng = np.random.default_rng(3)
    oa, _ = ref.reset(seed=7)
    oc, _ = env.reset(seed=7)
    assert display.frames_shown == 0          # reset_game's frames are not shown
    image = (lambda o: o["image"]) if kw.get("sound_obs") else (lambda o: o)
    np.testing.assert_array_equal(image(oa), image(oc))
    for t in range(12):
        a = int(rng.integers(env.action_space.n))
        reward = 0.0
        for f in range(fs):
            before_last = image(oa)
            oa, r, term_a, trunc_a, info_a = ref.step(a)
            reward += r
        oc, rc, term_c, trunc_c, info_c = env.step(a)
        assert display.frames_shown == (t + 1) * fs
        assert _shows(display.window_pixels(), before_last), t
        if kw.get("sound_obs"):
            np.testing.assert_array_equal(oa["sound"], oc["sound"])
            assert not oc["sound"].any()
        np.testing.assert_array_equal(image(oa), image(oc))
        assert (reward, term_a, trunc_a, info_a) == (rc, term_c, trunc_c, info_c)
        assert env.render() is None
    # ALE's act through env.unwrapped.ale shows a frame too.
    env.unwrapped.ale.act(0)
    assert display.frames_shown == 12 * fs + 1
    assert _shows(display.window_pixels(), image(oc))
    env.close()
    assert not display.is_open and human_render._current is None
    env.step(0)                                # the env goes on without a window
    assert display.frames_shown == 12 * fs + 1
    ref.close()


def test_window_events_and_takeover():
    import pygame

    env = cule.AtariEnv("pong", render_mode="human")
    env.reset(seed=0)
    display = env._display
    for key, fps in ((pygame.K_LEFT, 55), (pygame.K_LEFT, 50), (pygame.K_RIGHT, 55), (pygame.K_RIGHT, 60),
                     (pygame.K_RIGHT, 60)):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))
        env.step(0)
        assert display.fps == fps
    # A second env in human mode takes pygame's one window over.
    other = cule.AtariEnv("breakout", render_mode="human")
    assert not display.is_open and other._display.is_open
    shown = display.frames_shown
    env.step(0)
    assert display.frames_shown == shown
    # Closing the window (the user) closes the display; the env goes on.
    other.reset(seed=0)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    obs, *_ = other.step(1)
    assert not other._display.is_open and obs.shape == (210, 160, 3)
    other.close()
    other.close()          # closing twice is harmless
    env.close()


def test_missing_pygame_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)    # import pygame -> ImportError
    with pytest.raises(gym.error.DependencyNotInstalled, match="pip install pygame"):
        cule.AtariEnv("pong", render_mode="human")
    assert human_render._current is None


def test_no_display_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "no_such_driver")
    with pytest.raises(gym.error.Error, match="SDL_VIDEODRIVER=dummy"):
        cule.AtariEnv("pong", render_mode="human")
    assert human_render._current is None


def test_display_screen_setting_opens_and_closes_the_window_at_load_rom(monkeypatch):
    # ALE 0.12.1 (OSystem::createConsole): each loadROM makes a new screen, a window iff
    # display_screen, paced at the console's frame rate.  ale-py's human mode sets
    # display_screen and sound before its first load.
    ref = gym.make("ALE/Pong-v5", render_mode="human").unwrapped
    human = gym.make("cule/Pong-v5", render_mode="human").unwrapped
    for key in ("display_screen", "sound"):
        assert human.ale.getBool(key) is ref.ale.getBool(key) is True
    ref.close()
    human.close()

    env = cule.AtariEnv("pong")
    assert env._display is None and env.render_mode is None
    env.ale.setBool("display_screen", True)
    env.ale.setBool("sound", True)          # accepted; cule plays no sound
    env.ale.loadROM("")
    display = env._display
    assert display.is_open and display.max_fps == 60
    env.ale.act(0)
    assert display.frames_shown == 1
    env.reset(seed=3)                       # a seeded reset loads again: the same window
    assert env._display is display and display.is_open
    env.ale.setBool("display_screen", False)
    env.ale.loadROM("")
    assert not display.is_open and human_render._current is None
    env.ale.act(0)
    assert display.frames_shown == 1
    # No window can be opened: loadROM raises and changes nothing.
    env.ale.act(0)
    frame = env.ale.getFrameNumber()
    env.ale.setBool("display_screen", True)
    monkeypatch.setenv("SDL_VIDEODRIVER", "no_such_driver")
    with pytest.raises(gym.error.Error, match="could not open a window .*setBool\\('display_screen', False\\)"):
        env.ale.loadROM("")
    assert env.ale.getFrameNumber() == frame and not display.is_open
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env.ale.loadROM(cule.roms.load_rom("adventure").path)     # a PAL console: 50 frames/s
    assert env._display.is_open and env._display.max_fps == 50
    env.close()


def test_ale_interface_display_screen():
    # ale-py: ALEInterface().setBool("display_screen", True) before loadROM shows the game.
    ale = cule.ALEInterface()
    ale.setBool("display_screen", True)
    ale.setInt("random_seed", 4)
    ale.loadROM(str(ale_py.roms.get_rom_path("breakout")))
    ref = ale_py.ALEInterface()
    ref.setInt("random_seed", 4)
    ref.loadROM(str(ale_py.roms.get_rom_path("breakout")))
    display = ale._console._display
    for t in range(5):
        before = ref.getScreenRGB()
        assert ale.act(1) == ref.act(1)
        assert display.frames_shown == t + 1 and _shows(display.window_pixels(), before)
    np.testing.assert_array_equal(ale.getScreenRGB(), ref.getScreenRGB())
    display.close()


def test_closed_window_stays_closed_until_display_screen_is_set_again():
    env = cule.AtariEnv("pong", render_mode="human")
    env.reset(seed=0)
    first = env._display
    env.close()
    env.reset(seed=1)                   # a seeded reset loads the ROM: no new window
    assert not first.is_open and env._display is first and human_render._current is None
    env.step(0)
    assert first.frames_shown == 0
    env.ale.setBool("display_screen", True)
    env.reset(seed=2)
    assert env._display is not first and env._display.is_open
    env.step(0)
    assert env._display.frames_shown == 4
    env.close()


def test_sound_obs_with_ale_frame_skip_shows_every_frame():
    # ALE's act shows the screen before each frame it runs (StellaEnvironment::act).  With
    # sound_obs (display_screen without sound) and ALE's frame_skip above 1, ALE makes an
    # act's audio from all of its frames at once: cule runs the act whole, logging the
    # screens, and shows them after it; ale-py's results stay the same.
    ref = gym.make("ALE/Breakout-v5", frameskip=1, sound_obs=True).unwrapped
    env = gym.make("cule/Breakout-v5", frameskip=1, sound_obs=True).unwrapped
    twin = gym.make("ALE/Breakout-v5", frameskip=1, sound_obs=True).unwrapped   # frame by frame
    for e in (ref, env, twin):
        e.reset(seed=5)
        e.ale.setInt("frame_skip", 3 if e is not twin else 1)
        e.ale.setBool("display_screen", e is not twin)
        e.ale.loadROM("")
    display = env._display
    shown, show = [], display.show
    display.show = lambda rgb, frames=1: (shown.append(np.array(rgb)), show(rgb, frames=frames))
    for t in range(10):
        expected = []
        for _ in range(3):   # the screens before each of the act's frames
            expected.append(twin.ale.getScreenRGB())
            twin.ale.act(1)
        oa, ra, *_ = ref.step(1)
        oc, rc, *_ = env.step(1)
        assert display.frames_shown == 3 * (t + 1)
        assert all(np.array_equal(x, y) for x, y in zip(shown[-3:], expected))
        assert _shows(display.window_pixels(), expected[-1])
        np.testing.assert_array_equal(oa["sound"], oc["sound"])
        np.testing.assert_array_equal(oa["image"], oc["image"])
        assert ra == rc
    assert np.array_equal(twin.ale.getScreenRGB(), ref.ale.getScreenRGB())
    assert oc["sound"].any()
    env.close()
    ref.close()


def test_sound_setting_silences_sound_observations_as_in_ale():
    # ALE 0.12.1 OSystem::createSound: with the setting sound, an SDL sound device, whose
    # process() leaves getAudio's buffer at zeros; sound_obs's raw device otherwise.  Each
    # load makes the device from the settings of the moment.
    ref, ours = ale_py.ALEInterface(), cule.ALEInterface()
    path = str(ale_py.roms.get_rom_path("breakout"))
    for a in (ref, ours):
        a.setInt("random_seed", 2)
        a.setBool("sound_obs", True)
        a.setBool("sound", True)
        a.loadROM(path)
    for _ in range(60):
        assert ref.act(1) == ours.act(1)
        np.testing.assert_array_equal(ref.getAudio(), ours.getAudio())
    assert not ours.getAudio().any()
    for a in (ref, ours):
        a.setBool("sound", False)
        a.loadROM("")
    heard = False
    for _ in range(60):
        assert ref.act(1) == ours.act(1)
        np.testing.assert_array_equal(ref.getAudio(), ours.getAudio())
        heard |= bool(ours.getAudio().any())
    assert heard
