"""The central test: cule.Atari against ale-py 0.12.1, frame by frame.

For every supported game: two consoles in one cule batch and two ALEInterface
instances get the same random action sequences (sticky actions at 0.25, the same
seeds); after every frame RAM, RGB screen, reward, terminal, truncation, lives and
frame numbers must be identical.  Episodes end by game over or by
max_num_frames_per_episode and restart with reset_game, so several episodes (and
ALE's RAM carry-over between them) are covered.  Then every mode and every
difficulty the game offers runs 1,000 frames, and 3,000 frames with sound observations
(ALE's getAudio) run with the audio compared too.  A game that is not exact yet stays
here as an expected failure with its reason (parity_expectations.py).
"""
import json
import os

import pytest

import cule
from ale_harness import HAVE_ALE, run_lockstep
from parity_expectations import XFAIL

pytestmark = pytest.mark.skipif(not HAVE_ALE, reason="ale-py is not installed")

GAMES = cule.list_games()
FRAMES_PER_CONSOLE = 6000      # x 2 consoles = 12,000 frames a game
MAX_FRAMES = 2500              # episodes end at game over or after 2,500 frames
MODE_FRAMES = 1000
SOUND_FRAMES = 1500            # x 2 consoles, frameskip 2, with sound observations

RESULTS = os.environ.get("CULE_PARITY_RESULTS")   # optional JSON lines for tools/parity_table.py


def record(**row):
    if RESULTS:
        with open(RESULTS, "a") as f:
            f.write(json.dumps(row) + "\n")


def maybe_xfail(game):
    if game in XFAIL:
        pytest.xfail(XFAIL[game])


def not_listed_if_exact(game):
    """A game listed as not exact that now runs exact fails (strict expected failure):
    its entry, and the README's parity table, must then be updated."""
    if game in XFAIL:
        pytest.fail(f"{game} is listed in parity_expectations.XFAIL ({XFAIL[game]!r}) but ran exact: "
                    "remove it there and regenerate the README's parity table")


@pytest.mark.parametrize("game", GAMES)
def test_parity_random_play(game):
    err, stats = run_lockstep(game, FRAMES_PER_CONSOLE, seeds=(7, 1234), p=0.25, max_frames=MAX_FRAMES)
    record(test="random_play", game=game, frames=stats["frames"], episodes=stats["episodes"], error=err)
    if err is not None:
        maybe_xfail(game)
    assert err is None, err
    not_listed_if_exact(game)
    assert stats["episodes"] >= 4


@pytest.mark.parametrize("game", GAMES)
def test_parity_every_mode_and_difficulty(game):
    info = cule.load_rom(game).info
    combos = [(m, None) for m in info["modes"]] + [(None, d) for d in info["difficulties"] if d != 0]
    for mode, difficulty in combos:
        err, stats = run_lockstep(game, MODE_FRAMES, seeds=(3,), p=0.25, mode=mode, difficulty=difficulty,
                                  action_seed=5)
        record(test="mode", game=game, mode=mode, difficulty=difficulty, frames=stats["frames"], error=err)
        if err is not None:
            maybe_xfail(game)
        assert err is None, f"mode {mode} difficulty {difficulty}: {err}"
    not_listed_if_exact(game)


@pytest.mark.parametrize("game", GAMES)
def test_parity_sound(game):
    # Sound observations (ALE sound_obs): the 512 samples after each act equal ALE's
    # getAudio too, over resets (episodes cut at 600 frames).
    err, stats = run_lockstep(game, SOUND_FRAMES, seeds=(11, 12), p=0.25, max_frames=600, action_seed=9,
                              frameskip=2, sound=True)
    record(test="sound", game=game, frames=stats["frames"], episodes=stats["episodes"], error=err)
    if err is not None:
        maybe_xfail(game)
    assert err is None, err
    not_listed_if_exact(game)
    assert stats["episodes"] >= 2


@pytest.mark.parametrize("game", ["pong", "seaquest", "tic_tac_toe_3d", "video_chess", "breakout"])
def test_parity_frameskip_and_grayscale(game):
    # frameskip 4: rewards are summed over the frames; grayscale as ALE's table.  Only
    # the last two frames of each act are drawn (cule.Atari's default): tic_tac_toe_3d
    # and video_chess have frames that run over several ALE frames while the computer
    # thinks, and short episodes (max 600 frames) end inside a frameskip, so acts whose
    # screens need the undrawn frames (and are redone drawing all) are covered.
    err, _ = run_lockstep(game, 2400, seeds=(11, 12), p=0.25, frameskip=4, gray=True, action_seed=9,
                          max_frames=600)
    assert err is None, err


@pytest.mark.parametrize("frameskip", [3, 5])
def test_parity_odd_frameskip(frameskip):
    # With an odd frameskip the last frame alternates between the two frame buffers.
    err, _ = run_lockstep("tic_tac_toe_3d", 3000, seeds=(5,), p=0.25, frameskip=frameskip, action_seed=4,
                          max_frames=900)
    assert err is None, err


def test_parity_no_sticky_actions():
    err, _ = run_lockstep("breakout", 1500, seeds=(0,), p=0.0, action_seed=2)
    assert err is None, err


def test_parity_mode_and_difficulty_together():
    err, _ = run_lockstep("pong", 1200, seeds=(3,), p=0.25, mode=1, difficulty=3, action_seed=5)
    assert err is None, err


def test_parity_truncate_on_loss_of_life():
    # A batch with ALE's truncate_on_loss_of_life: every episode ends (truncated) at its
    # first life lost, env by env, as in ALE.
    err, stats = run_lockstep("breakout", 6000, seeds=(1, 2, 3), p=0.25, frameskip=4, action_seed=6,
                              truncate_on_loss_of_life=True)
    assert err is None, err
    assert stats["episodes"] >= 6, stats
