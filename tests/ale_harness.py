"""Lock-step comparison of cule.Atari against ale-py's ALEInterface (the golden).

Both get the same ROM, seed, settings and random action sequence; after every frame
the RAM, RGB screen, reward, terminal, truncation, lives and frame numbers must be
identical.  Returns the first mismatch instead of asserting, so tests can report it.
"""
from __future__ import annotations

import numpy as np
import torch

import cule

try:
    from ale_py import ALEInterface, LoggerMode, roms

    ALEInterface.setLoggerMode(LoggerMode.Error)
    HAVE_ALE = True
except ImportError:  # pragma: no cover
    HAVE_ALE = False


def make_ale(game, seed, p, max_frames=0, mode=None, difficulty=None, frameskip=1):
    ale = ALEInterface()
    ale.setInt("random_seed", seed)
    ale.setFloat("repeat_action_probability", p)
    ale.setInt("max_num_frames_per_episode", max_frames)
    ale.setInt("frame_skip", frameskip)
    ale.loadROM(roms.get_rom_path(game))
    if mode is not None or difficulty is not None:
        if mode is not None:
            ale.setMode(mode)
        if difficulty is not None:
            ale.setDifficulty(difficulty)
        ale.reset_game()
    return ale


def compare_state(ale, emu, i, tag):
    """None if env i of `emu` equals `ale`, else a description of the first difference."""
    r1 = ale.getRAM()
    r2 = emu.ram[i].numpy()
    if not np.array_equal(r1, r2):
        idx = np.nonzero(r1 != r2)[0][:8]
        return f"{tag}: RAM differs at {[hex(0x80 + j) for j in idx]}: ale={r1[idx].tolist()} cule={r2[idx].tolist()}"
    s1 = ale.getScreenRGB()
    s2 = emu.screen_rgb()[i].numpy()
    if s1.shape != s2.shape:
        return f"{tag}: screen shape {s1.shape} vs {s2.shape}"
    if not np.array_equal(s1, s2):
        rows = sorted(set(np.nonzero((s1 != s2).any(-1))[0].tolist()))
        return f"{tag}: RGB screen differs on rows {rows[:10]}"
    checks = [
        ("lives", ale.lives(), int(emu.lives[i])),
        ("terminal", ale.game_over(with_truncation=False), bool(emu.terminated[i])),
        ("truncated", ale.game_truncated(), bool(emu.truncated[i])),
        ("episode_frame_number", ale.getEpisodeFrameNumber(), int(emu.episode_frame_number[i])),
        ("frame_number", ale.getFrameNumber(), int(emu.frame_number[i])),
    ]
    for name, a, b in checks:
        if a != b:
            return f"{tag}: {name} ale={a} cule={b}"
    return None


def uniform_policy(rng, actions, n):
    """One action per console, uniformly from `actions`."""
    return rng.choice(actions, size=n)


def run_lockstep(game, frames, seeds=(7, 1234), p=0.25, max_frames=0, mode=None, difficulty=None,
                 action_seed=0, frameskip=1, gray=False, policy=uniform_policy):
    """Step len(seeds) ALE instances and one cule batch in lock step.  policy(rng, actions,
    n) gives each step's n action ids (a NumPy array) from the minimal set `actions`.

    Returns (mismatch or None, stats dict with frames compared, episodes finished and
    the longest episode seen, in frames).
    """
    n = len(seeds)
    ales = [make_ale(game, s, p, max_frames, mode, difficulty, frameskip) for s in seeds]
    emu = cule.Atari(game, n, seed=list(seeds), repeat_action_probability=p, frameskip=frameskip,
                     max_num_frames_per_episode=max_frames, mode=mode, difficulty=difficulty, num_threads=1)
    rng = np.random.default_rng(action_seed)
    actions = emu.action_set.numpy()
    episodes = longest = 0

    def stats(frames_done):
        return {"frames": frames_done, "episodes": episodes,
                "longest_episode": max([longest] + [ale.getEpisodeFrameNumber() for ale in ales])}

    for i, ale in enumerate(ales):
        err = compare_state(ale, emu, i, "after loadROM + reset_game")
        if err:
            return err, stats(0)
    steps = frames // frameskip
    for t in range(steps):
        acts = policy(rng, actions, n)
        rewards = emu.act(torch.from_numpy(acts))
        for i, ale in enumerate(ales):
            r = ale.act(int(acts[i]))
            tag = f"env {i} step {t} (episode frame {ale.getEpisodeFrameNumber()})"
            if r != int(rewards[i]):
                return f"{tag}: reward ale={r} cule={int(rewards[i])}", stats(t * frameskip)
            err = compare_state(ale, emu, i, tag)
            if err:
                return err, stats(t * frameskip)
            if gray and not np.array_equal(ale.getScreenGrayscale(), emu.screen_grayscale()[i].numpy()):
                return f"{tag}: grayscale screen differs", stats(t * frameskip)
        done = [i for i, ale in enumerate(ales) if ale.game_over()]
        if done:
            for i in done:
                longest = max(longest, ales[i].getEpisodeFrameNumber())
                ales[i].reset_game()
            emu.reset(done)
            episodes += len(done)
            for i in done:
                err = compare_state(ales[i], emu, i, f"env {i} reset after step {t}")
                if err:
                    return err, stats(t * frameskip)
    return None, stats(steps * frameskip * n)
