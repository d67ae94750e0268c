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


def make_ale(game, seed, p, max_frames=0, mode=None, difficulty=None, frameskip=1, sound=False,
             interface=None, truncate_on_loss_of_life=False):
    """An ALEInterface with these settings and the game loaded: ale-py's, or `interface`
    (cule.ALEInterface) for the same calls on cule."""
    ale = (interface or ALEInterface)()
    ale.setInt("random_seed", seed)
    ale.setFloat("repeat_action_probability", p)
    ale.setInt("max_num_frames_per_episode", max_frames)
    ale.setInt("frame_skip", frameskip)
    ale.setBool("sound_obs", sound)
    ale.setBool("truncate_on_loss_of_life", truncate_on_loss_of_life)
    ale.loadROM(roms.get_rom_path(game))
    if mode is not None or difficulty is not None:
        if mode is not None:
            ale.setMode(mode)
        if difficulty is not None:
            ale.setDifficulty(difficulty)
        ale.reset_game()
    return ale


def _first_difference(tag, ram, rgb, checks):
    """The first difference among (ale, cule) pairs: the RAM, the RGB screen, then the
    named values `checks` ((name, ale, cule) triples), described; None if all equal."""
    r1, r2 = ram
    if not np.array_equal(r1, r2):
        idx = np.nonzero(r1 != r2)[0][:8]
        return f"{tag}: RAM differs at {[hex(0x80 + j) for j in idx]}: ale={r1[idx].tolist()} cule={r2[idx].tolist()}"
    s1, s2 = rgb
    if s1.shape != s2.shape:
        return f"{tag}: screen shape {s1.shape} vs {s2.shape}"
    if not np.array_equal(s1, s2):
        rows = sorted(set(np.nonzero((s1 != s2).any(-1))[0].tolist()))
        return f"{tag}: RGB screen differs on rows {rows[:10]}"
    for name, a, b in checks:
        if a != b:
            return f"{tag}: {name} ale={a} cule={b}"
    return None


def compare_state(ale, emu, i, tag):
    """None if env i of `emu` equals `ale`, else a description of the first difference."""
    err = _first_difference(tag, (ale.getRAM(), emu.ram[i].numpy()), (ale.getScreenRGB(), emu.screen_rgb()[i].numpy()), [
        ("lives", ale.lives(), int(emu.lives[i])),
        ("terminal", ale.game_over(with_truncation=False), bool(emu.terminated[i])),
        ("truncated", ale.game_truncated(), bool(emu.truncated[i])),
        ("episode_frame_number", ale.getEpisodeFrameNumber(), int(emu.episode_frame_number[i])),
        ("frame_number", ale.getFrameNumber(), int(emu.frame_number[i])),
    ])
    if err is None and getattr(emu, "sound", False):
        a1, a2 = ale.getAudio(), emu.audio[i].numpy()
        if not np.array_equal(a1, a2):
            idx = np.nonzero(a1 != a2)[0]
            return f"{tag}: audio differs at {len(idx)} samples from {int(idx[0])}: ale={a1[idx[:6]].tolist()} " \
                   f"cule={a2[idx[:6]].tolist()}"
    return err


def uniform_policy(rng, actions, n):
    """One action per console, uniformly from `actions`."""
    return rng.choice(actions, size=n)


def run_lockstep(game, frames, seeds=(7, 1234), p=0.25, max_frames=0, mode=None, difficulty=None,
                 action_seed=0, frameskip=1, gray=False, policy=uniform_policy, sound=False,
                 truncate_on_loss_of_life=False):
    """Step len(seeds) ALE instances and one cule batch in lock step.  policy(rng, actions,
    n) gives each step's n action ids (a NumPy array) from the minimal set `actions`.
    With `sound`, both make sound observations (ALE sound_obs) and the audio is compared
    too.  Episodes end at ALE's game_over() (truncation included).

    Returns (mismatch or None, stats dict with frames compared, episodes finished and
    the longest episode seen, in frames).
    """
    n = len(seeds)
    ales = [make_ale(game, s, p, max_frames, mode, difficulty, frameskip, sound,
                     truncate_on_loss_of_life=truncate_on_loss_of_life) for s in seeds]
    emu = cule.Atari(game, n, seed=list(seeds), repeat_action_probability=p, frameskip=frameskip,
                     max_num_frames_per_episode=max_frames, mode=mode, difficulty=difficulty, num_threads=1,
                     sound=sound, truncate_on_loss_of_life=truncate_on_loss_of_life)
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


def uniform_indices(rng, n_actions, n):
    """One action index per env, uniformly from 0..n_actions-1."""
    return rng.integers(0, n_actions, n)


def run_vector_lockstep(game, steps, num_envs=3, seed=123, action_seed=0, policy=uniform_indices, **kw):
    """Step cule.AtariVectorEnv and ale-py's AtariVectorEnv (made with the same keyword
    arguments, num_threads 1 unless given) in lock step from reset(seed=seed), with
    policy(rng, n_actions, num_envs) giving each step's action indices.  After the reset
    and every step the observations, rewards, terminated, truncated (values and dtypes)
    and info must be equal; in info["final_obs"] only the rows of envs whose episode
    ended (ale-py leaves the others uninitialised).

    Returns (mismatch or None, stats dict with agent steps compared, episodes ended and
    the longest episode seen, in frames; with SAME_STEP an ended episode's length is
    taken as its frame number a step before plus the frameskip).
    """
    from ale_py.vector_env import AtariVectorEnv as AleVec
    from gymnasium.vector import AutoresetMode

    from cule.vector_env import AtariVectorEnv

    def host(x):
        return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)

    kw.setdefault("num_threads", 1)
    same_step = AutoresetMode(kw.get("autoreset_mode", AutoresetMode.NEXT_STEP)) == AutoresetMode.SAME_STEP
    frameskip = kw.get("frameskip", 4)   # AtariVectorEnv's default
    ref = AleVec(game, num_envs, **kw)
    env = AtariVectorEnv(game, num_envs, **kw)
    stats = {"steps": 0, "episodes": 0, "longest_episode": 0}
    try:
        oa, ia = ref.reset(seed=seed)
        oc, ic = env.reset(seed=seed)
        np.testing.assert_array_equal(host(oc), oa, err_msg="reset obs")
        assert set(ic) == set(ia), ("reset info keys", set(ic), set(ia))
        for k in ia:
            np.testing.assert_array_equal(host(ic[k]), ia[k], err_msg=f"reset info {k}")
        rng = np.random.default_rng(action_seed)
        n = ref.single_action_space.n
        prev_efn = ia["episode_frame_number"].copy()
        for t in range(steps):
            act = policy(rng, n, num_envs)
            ra = ref.step(act)
            rc = env.step(act)
            for name, a, c in zip(("obs", "reward", "terminated", "truncated"), ra[:4], rc[:4]):
                c = host(c)
                assert c.dtype == np.asarray(a).dtype, (t, name, c.dtype, np.asarray(a).dtype)
                np.testing.assert_array_equal(c, a, err_msg=f"step {t}: {name}")
            assert set(rc[4]) == set(ra[4]), (t, set(rc[4]), set(ra[4]))
            for k in ra[4]:
                if k == "final_obs":
                    rows = (ra[2] | ra[3]) & (ra[4]["episode_frame_number"] < prev_efn)
                    np.testing.assert_array_equal(host(rc[4][k])[rows], ra[4][k][rows], err_msg=f"step {t}: final_obs")
                else:
                    np.testing.assert_array_equal(host(rc[4][k]), ra[4][k], err_msg=f"step {t}: info {k}")
            assert not (host(rc[2]) & host(rc[3])).any(), f"step {t}: an env is both terminated and truncated"
            done = ra[2] | ra[3]
            efn = ra[4]["episode_frame_number"]
            longest = int(efn.max())
            if same_step and done.any():   # info is the new episode's
                longest = max(longest, int(prev_efn[done].max()) + frameskip)
            stats["longest_episode"] = max(stats["longest_episode"], longest)
            stats["episodes"] += int(done.sum())
            stats["steps"] = t + 1
            prev_efn = efn.copy()
        return None, stats
    except AssertionError as e:
        return str(e).strip() or repr(e), stats
    finally:
        ref.close()
        env.close()


def run_clone_restore_lockstep(env_id, include_rng, steps, seed=3, env_kw=None):
    """ale-py's AtariEnv and cule's side by side (both made with the keyword arguments
    `env_kw`; with continuous=True, actions uniform over the Box): random clones (clone_state(include_rng)) and restores of earlier clones
    among random steps, episodes restarted with reset().
    After every restore the RAM, screen, lives and frame numbers, after every step the
    observation, reward, flags and info must be equal.  Returns (the first difference or
    None, stats: steps, episodes ended, clones, restores)."""
    import ale_py
    import gymnasium as gym

    gym.register_envs(ale_py)
    ref = gym.make(f"ALE/{env_id}", **(env_kw or {})).unwrapped
    env = gym.make(f"cule/{env_id}", **(env_kw or {})).unwrapped
    rng = np.random.default_rng(seed)
    ref.reset(seed=seed)
    env.reset(seed=seed)
    saved = []
    stats = {"steps": steps, "episodes": 0, "clones": 0, "restores": 0}
    # The states' own methods (cule.ALEState against ale_py.ALEState) on a second stream,
    # so that the steps, clones and restores are those of the first.
    aux = np.random.default_rng(seed + 1)
    getters = ("getFrameNumber", "getEpisodeFrameNumber", "getCurrentMode", "getDifficulty")
    for t in range(steps):
        u = rng.random()
        if u < 0.05:
            saved.append((ref.clone_state(include_rng=include_rng), env.clone_state(include_rng=include_rng)))
            stats["clones"] += 1
            a, c = saved[-1]
            if [getattr(a, g)() for g in getters] != [getattr(c, g)() for g in getters]:
                return f"the state's getters at step {t}", dict(stats, steps=t)
        elif u < 0.10 and saved:
            a, c = saved[rng.integers(len(saved))]
            ref.restore_state(a)
            # Half of the restores from the state's bytes (ALEState.serialize).
            env.restore_state(type(c)(c.serialize()) if aux.random() < 0.5 else c)
            stats["restores"] += 1
            for name in ("getRAM", "getScreenRGB", "lives", "getEpisodeFrameNumber", "getFrameNumber"):
                x, y = getattr(ref.ale, name)(), getattr(env.ale, name)()
                if not np.array_equal(x, y):
                    return f"{name} after the restore at step {t}", dict(stats, steps=t)
            # ALEState.equals: the state now against the one restored and an earlier one.
            k = aux.integers(len(saved))
            now = ref.clone_state(include_rng=include_rng), env.clone_state(include_rng=include_rng)
            for i, other in enumerate(((a, c), saved[k])):
                if now[0].equals(other[0]) != now[1].equals(other[1]):
                    return (f"equals() at step {t} (against the {('restored', 'earlier')[i]} state): "
                            f"ale={now[0].equals(other[0])}"), dict(stats, steps=t)
        if isinstance(ref.action_space, gym.spaces.Discrete):
            act = int(rng.integers(ref.action_space.n))
        else:   # continuous=True: (radius, theta, fire), uniform over the Box, as float32
            low, high = ref.action_space.low, ref.action_space.high
            act = rng.uniform(low, high).astype(np.float32)
        ra, rc = ref.step(act), env.step(act.copy() if isinstance(act, np.ndarray) else act)
        if not (np.array_equal(ra[0], rc[0]) and ra[1:] == rc[1:]):
            return f"step {t}: {ra[1:]} != {rc[1:]}", dict(stats, steps=t)
        if ra[2] or ra[3]:
            stats["episodes"] += 1
            ref.reset()
            env.reset()
    return None, stats


def compare_interfaces(ale, emu, tag):
    """None if cule.ALEInterface `emu` shows what ale-py's ALEInterface `ale` does (RAM,
    RGB screen, lives, terminal, truncation, frame numbers), else the first difference."""
    return _first_difference(tag, (ale.getRAM(), emu.getRAM()), (ale.getScreenRGB(), emu.getScreenRGB()), [
        ("lives", ale.lives(), emu.lives()),
        ("terminal", ale.game_over(with_truncation=False), emu.game_over(with_truncation=False)),
        ("truncated", ale.game_truncated(), emu.game_truncated()),
        ("episode_frame_number", ale.getEpisodeFrameNumber(), emu.getEpisodeFrameNumber()),
        ("frame_number", ale.getFrameNumber(), emu.getFrameNumber()),
    ])


def apply_call(ale, call, kept):
    """One call of a call list (see replay_calls) on an ALEInterface (ale-py's or cule's);
    `kept` is its list of clones.  Returns the reward of an act, else None."""
    from ale_py import Action

    op = call[0]
    if op == "act":
        return ale.act(Action(call[1]), *call[2:])
    if op == "poke":
        ale.setRAM(call[1], call[2])
    elif op == "clone":
        kept.append(ale.cloneState(include_rng=call[1]))
    elif op == "restore":
        ale.restoreState(kept[call[1]])
    elif op == "reset":
        ale.reset_game()
    elif op == "mode":
        ale.setMode(call[1])
        ale.setDifficulty(call[2])
    else:
        raise ValueError(f"unknown call {call!r}")
    return None


def replay_calls(game, seed, calls, p=0.0, max_frames=0, frameskip=1, truncate_on_loss_of_life=False):
    """ale-py's ALEInterface and cule.ALEInterface given the same call list, compared
    (reward, then compare_interfaces) after every call; a game over after an act resets
    both (reset_game).  Calls: ("act", action id[, paddle strength]), ("poke", index,
    value) = setRAM, ("clone", include_rng), ("restore", k) = the k-th clone, ("reset",)
    and ("mode", mode, difficulty).  Returns (the first difference or None, the number
    of game overs, how many of them were truncations)."""
    pair = [make_ale(game, seed, p, max_frames, frameskip=frameskip, interface=i,
                     truncate_on_loss_of_life=truncate_on_loss_of_life) for i in (None, cule.ALEInterface)]
    snaps = ([], [])
    game_overs = truncations = 0
    for t, call in enumerate(calls):
        op = call[0]
        rewards = [r for r in (apply_call(a, call, kept) for a, kept in zip(pair, snaps)) if r is not None]
        tag = f"call {t} {call}"
        if rewards and rewards[0] != rewards[1]:
            return f"{tag}: reward ale={rewards[0]} cule={rewards[1]}", game_overs, truncations
        err = compare_interfaces(*pair, tag)
        if err:
            return err, game_overs, truncations
        if op == "act" and pair[0].game_over():
            game_overs += 1
            truncations += pair[0].game_truncated()
            for a in pair:
                a.reset_game()
            err = compare_interfaces(*pair, f"{tag}: reset_game after the game over")
            if err:
                return err, game_overs, truncations
    return None, game_overs, truncations


def explore_cell(gray):
    """Go-Explore's cell of a 210-row grayscale screen (Ecoffet et al., 2021): the screen
    averaged over 8 x 10 blocks (26 rows x 16 columns each, the last 2 rows dropped) and
    cut to 8 intensity levels, as bytes."""
    h = gray.shape[0] // 8 * 8
    blocks = gray[:h].reshape(8, h // 8, 10, 16).mean(axis=(1, 3))
    return (blocks // 32).astype(np.uint8).tobytes()


def run_explore_lockstep(game, frames, seed=0, p=0.25, frameskip=4, max_frames=108000, explore_steps=100,
                         max_cells=3000, repeat=0.95, top=0.5):
    """ale-py's ALEInterface and cule.ALEInterface (the same seed, sticky actions `p`, ALE
    frame_skip `frameskip`, `max_frames`) explored in lock step the way Go-Explore's
    first phase explores (Ecoffet et al., 2021), to carry the comparison into parts of a
    game that random play from the start does not reach.

    An archive keeps, for each cell (explore_cell of ALE's screen, and the score) seen,
    the states of both sides (cloneState, include_rng drawn at random) with the most
    lives left, then the latest episode frame (so a game whose screen does not change
    still moves on).  Each round picks a cell, with probability `top` among those of the
    best score (then the most lives), else among all; within them by weight 1/sqrt(1 +
    times picked) + 1/sqrt(times seen), so rarely seen cells go first.  It restores the
    cell's states on both sides and plays up to `explore_steps` acts (each action repeats
    the previous one with probability `repeat`, else is uniform over the minimal set),
    until game over or truncation.  After every restore and act the reward, RAM, RGB
    screen, lives, flags and frame numbers must be equal.  The archive holds at most
    `max_cells` cells: a new cell then replaces the lowest-scoring one (then the most
    picked) if it scores more.  Stops after the round in which `frames` frames have
    been played (a round may run on for up to `explore_steps` acts).

    Returns (the first difference or None, stats: frames, acts, rounds (restores),
    cells, the best score (0 or more), the deepest episode frame number, and the
    episodes ended (`game_overs`: ALE's game_over(), truncation included))."""
    import cule

    ale = make_ale(game, seed, p, max_frames, frameskip=frameskip)
    emu = make_ale(game, seed, p, max_frames, frameskip=frameskip, interface=cule.ALEInterface)
    rng = np.random.default_rng(seed)
    actions = list(ale.getMinimalActionSet())
    stats = {"frames": 0, "acts": 0, "rounds": 0, "cells": 0, "best_score": 0, "deepest_frame": 0, "game_overs": 0}
    err = compare_interfaces(ale, emu, "after loadROM")
    if err:
        return err, stats
    # cell -> [ale state, cule state, score, (lives, episode frame), times picked, times seen]
    archive = {}

    def note(score):
        cell = (explore_cell(ale.getScreenGrayscale()), score)
        rank = (ale.lives(), ale.getEpisodeFrameNumber())
        old = archive.get(cell)
        if old is None and len(archive) >= max_cells:
            # Full: the new cell replaces the lowest-scoring one (then the most picked).
            low = min(archive, key=lambda c: (archive[c][2], -archive[c][4]))
            if archive[low][2] >= score:
                return
            del archive[low]
        if old is None or rank > old[3]:
            inc = bool(rng.integers(2))
            archive[cell] = [ale.cloneState(include_rng=inc), emu.cloneState(include_rng=inc), score, rank,
                             old[4] if old else 0, old[5] + 1 if old else 1]
        else:
            old[5] += 1

    note(0)
    while stats["frames"] < frames:
        cells = list(archive)
        if rng.random() < top:   # among the best-scoring cells, with the most lives left
            best = max((archive[c][2], archive[c][3][0]) for c in cells)
            cells = [c for c in cells if (archive[c][2], archive[c][3][0]) == best]
        w = np.array([1.0 / np.sqrt(1.0 + archive[c][4]) + 1.0 / np.sqrt(archive[c][5]) for c in cells])
        cell = cells[rng.choice(len(cells), p=w / w.sum())]
        entry = archive[cell]
        entry[4] += 1
        ale.restoreState(entry[0])
        emu.restoreState(entry[1])
        stats["rounds"] += 1
        score = entry[2]
        tag = f"round {stats['rounds']}"
        err = compare_interfaces(ale, emu, f"{tag}, after the restore (episode frame {entry[3][1]})")
        if err:
            return err, stats
        a = actions[rng.integers(len(actions))]
        for k in range(explore_steps):
            if rng.random() >= repeat:
                a = actions[rng.integers(len(actions))]
            before = ale.getEpisodeFrameNumber()
            r1, r2 = ale.act(a), emu.act(a)
            stats["acts"] += 1
            stats["frames"] += ale.getEpisodeFrameNumber() - before
            t = f"{tag}, act {k} (episode frame {ale.getEpisodeFrameNumber()})"
            if r1 != r2:
                return f"{t}: reward ale={r1} cule={r2}", stats
            err = compare_interfaces(ale, emu, t)
            if err:
                return err, stats
            score += r1
            stats["best_score"] = max(stats["best_score"], score)
            stats["deepest_frame"] = max(stats["deepest_frame"], ale.getEpisodeFrameNumber())
            if ale.game_over():
                stats["game_overs"] += 1
                break
            note(score)
        stats["cells"] = len(archive)
    return None, stats
