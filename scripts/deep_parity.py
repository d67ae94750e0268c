"""Long-horizon parity survey: cule.Atari against ale-py's ALEInterface over long episodes.

tests/test_parity.py compares every frame of 12,000 per game, with episodes cut at
2,500 frames, so it sees the first minute or so of each game.  This survey plays much
longer: episodes run to game over or ALE v5's 108,000-frame truncation, and half of the
consoles hold each random action for a random 1-32 steps, which carries many games
further (a held direction crosses the screen) than uniform random play does.  After
every agent step (frameskip 4 by default) the RAM, the RGB screen, reward, lives,
terminal, truncation and frame numbers must equal ALE's (tests/ale_harness.py's
comparison).  Golden values: ale-py 0.12.1.

    python scripts/deep_parity.py [GAME ...] [--frames 40000] [--consoles 4] [--jobs 2]
        [[--modes] [--sound] | --vector [--env-kw JSON] | --clone-restore | --explore] [--out deep_parity.jsonl]

`--modes` surveys every game mode and every difficulty other than 0 a game offers, one
at a time (as tests/test_parity.py's every-mode test does, over 1,000 frames there),
each for --frames frames per console, instead of the default mode and difficulty.

`--sound` turns on sound observations (ALE's sound_obs) on both sides of the
ALEInterface survey and compares the 512 audio samples after every step too.

`--clone-restore` compares cule's Gymnasium env with ale-py's (`<Game>-v5`) while
clones and restores of earlier clones (AtariEnv.clone_state / restore_state, ALE's
semantics) happen at random among the steps, with include_rng False and True (one env
a game: --consoles does not apply).  The states' own methods are compared too: the
getters at every clone, ``equals`` after every restore (against the state restored and
an earlier one), and half of cule's restores take the state from its ``serialize()``
bytes.

`--explore` compares ale-py's ALEInterface with cule.ALEInterface while exploring the
way Go-Explore's first phase does (Ecoffet et al., 2021): rounds restore a state kept
in an archive of cells (the screen downscaled to 8 x 10 blocks of 8 levels, with the
score), preferring rarely seen cells and, half of the time, the best-scoring ones, and
play on from it with random, mostly repeated actions.  That carries the comparison to
higher scores and later stages than random play from the start reaches (one pair a
game: --consoles does not apply; --frames is per game, and the last round plays on to
its end).  At --frames 300000 it takes about 50 minutes for every game on 2 cores.

`--vector` compares cule.AtariVectorEnv with ale-py's AtariVectorEnv the same way
(observations, rewards, flags and info after every step; see survey_vector), which
also exercises the reset_game and noop-start memos over many resets.  `--env-kw` adds
keyword arguments to both vector envs, e.g. '{"episodic_life": true, "life_loss_info":
true}' or '{"grayscale": false, "full_action_space": true}'.

Prints a line per game (frames compared, episodes finished, the longest episode in
frames, the first difference if any) and exits with 1 if any game differed.  Not part
of the test suite: with the defaults it takes about 45 minutes for every game on 2
cores (--vector: about 20 minutes at --frames 12000).
"""
import argparse
import json
import multiprocessing as mp
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))


class HeldPolicy:
    """Uniform random actions for consoles 0, 2, 4 ...; consoles 1, 3, 5 ... hold a random
    action for a random 1-32 steps.  Call as policy(rng, n_actions) -> action indices."""

    def __init__(self, n):
        import numpy as np

        self.held = np.zeros(n, dtype=np.int64)
        self.left = np.zeros(n, dtype=np.int64)

    def __call__(self, rng, n_actions):
        idx = rng.integers(0, n_actions, len(self.held))
        for i in range(1, len(self.held), 2):
            if self.left[i] == 0:
                self.held[i] = rng.integers(0, n_actions)
                self.left[i] = rng.integers(1, 33)
            self.left[i] -= 1
            idx[i] = self.held[i]
        return idx


def survey(game, frames, consoles, frameskip, seed, max_frames, mode=None, difficulty=None, sound=False):
    import torch

    from ale_harness import run_lockstep

    torch.set_num_threads(1)
    t0 = time.time()
    policy = HeldPolicy(consoles)
    err, stats = run_lockstep(game, frames, seeds=[seed + 101 * i for i in range(consoles)], p=0.25,
                              max_frames=max_frames, action_seed=seed, frameskip=frameskip, mode=mode,
                              difficulty=difficulty, policy=lambda rng, actions, n: actions[policy(rng, len(actions))],
                              sound=sound)
    return dict(game=game, mode=mode, difficulty=difficulty, sound=sound, error=err,
                seconds=round(time.time() - t0, 1), **stats)


def survey_vector(game, frames, consoles, frameskip, seed, max_frames, env_kw=None):
    """The same for cule.AtariVectorEnv against ale_py.vector_env.AtariVectorEnv
    (tests/ale_harness.py's run_vector_lockstep: their defaults, noop and FIRE starts,
    max-pooled 84x84 grayscale stacks; sticky actions 0.25; NEXT_STEP autoreset for even
    seeds, SAME_STEP for odd ones): observations, rewards, flags and info after every step."""
    import torch

    from ale_harness import run_vector_lockstep

    torch.set_num_threads(1)
    kw = dict(frameskip=frameskip, repeat_action_probability=0.25, num_threads=1,
              autoreset_mode="SameStep" if seed % 2 else "NextStep")
    if max_frames:
        kw["max_num_frames_per_episode"] = max_frames
    kw.update(env_kw or {})
    t0 = time.time()
    policy = HeldPolicy(consoles)
    err, stats = run_vector_lockstep(game, frames // frameskip, consoles, seed, seed,
                                     policy=lambda rng, n_actions, n: policy(rng, n_actions), **kw)
    return dict(game=game, env_kw=env_kw or {}, frames=stats["steps"] * frameskip * consoles, episodes=stats["episodes"],
                longest_episode=stats["longest_episode"], error=err and " ".join(err.split())[:400],
                seconds=round(time.time() - t0, 1))


def survey_clone_restore(game, frames, consoles, frameskip, seed, max_frames, include_rng=False, env_kw=None):
    """cule's Gymnasium env against ale-py's (tests/ale_harness.py's
    run_clone_restore_lockstep: `<Game>-v5`, frameskip 4 unless `env_kw` says otherwise)
    with random clone_state / restore_state calls among the steps: every restore and step
    must agree.  `frames` counts agent steps times the frameskip (its mean when drawn)."""
    import torch

    from ale_harness import run_clone_restore_lockstep
    from cule.registration import rom_id_to_name

    torch.set_num_threads(1)
    t0 = time.time()
    kw = dict(env_kw or {})
    if isinstance(kw.get("frameskip"), list):   # JSON has no tuples: (low, high) draws
        kw["frameskip"] = tuple(kw["frameskip"])
    fs = kw.get("frameskip", 4)
    per_step = fs if isinstance(fs, int) else (fs[0] + fs[1] - 1) / 2
    err, stats = run_clone_restore_lockstep(f"{rom_id_to_name(game)}-v5", include_rng, int(frames // per_step),
                                            seed=seed, env_kw=kw)
    return dict(game=game, include_rng=include_rng, env_kw=env_kw, frames=int(stats["steps"] * per_step),
                episodes=stats["episodes"], longest_episode=0, clones=stats["clones"], restores=stats["restores"],
                error=err, seconds=round(time.time() - t0, 1))


def survey_explore(game, frames, consoles, frameskip, seed, max_frames):
    """ale-py's ALEInterface and cule.ALEInterface explored in lock step from archived
    states, Go-Explore style (tests/ale_harness.py's run_explore_lockstep: cells of the
    downscaled screen and the score, half of the rounds from the best-scoring cells), to
    reach later stages of a game than random play from the start does; after every
    restore and act the reward, RAM, RGB screen, lives, flags and frame numbers must be
    equal.  One pair a game (--consoles does not apply)."""
    import torch

    from ale_harness import run_explore_lockstep

    torch.set_num_threads(1)
    t0 = time.time()
    err, stats = run_explore_lockstep(game, frames, seed=seed, frameskip=frameskip, max_frames=max_frames)
    return dict(game=game, error=err, seconds=round(time.time() - t0, 1), episodes=stats["game_overs"],
                longest_episode=stats["deepest_frame"], **stats)


def _run(args):
    fn, pos, kw = args
    try:
        return fn(*pos, **kw)
    except Exception as e:  # report and go on with the other games
        return {"game": pos[0], **kw, "frames": 0, "episodes": 0, "longest_episode": 0,
                "error": f"{type(e).__name__}: {e}"}


def work_items(a, games):
    """(function, positional args, keyword args) for each survey the command asks for."""
    import cule

    def pos(g):
        return g, a.frames, a.consoles, a.frameskip, a.seed, a.max_frames

    if a.explore:
        from cule.registration import _MULTIPLAYER_ONLY

        return [(survey_explore, pos(g), {}) for g in games if g not in _MULTIPLAYER_ONLY]
    if a.vector:
        return [(survey_vector, pos(g), {"env_kw": a.env_kw}) for g in games]
    if a.clone_restore:
        from cule.registration import _MULTIPLAYER_ONLY

        return [(survey_clone_restore, pos(g), {"include_rng": inc, "env_kw": a.env_kw}) for g in games
                if g not in _MULTIPLAYER_ONLY for inc in (False, True)]
    if not a.modes:
        return [(survey, pos(g), {"sound": a.sound}) for g in games]
    items = []
    for g in games:
        info = cule.load_rom(g).info
        items += [(survey, pos(g), {"mode": m, "sound": a.sound}) for m in info["modes"]]
        items += [(survey, pos(g), {"difficulty": d, "sound": a.sound}) for d in info["difficulties"] if d != 0]
    return items


def label(row):
    """The game, with the mode, difficulty or vector-env keywords surveyed if any."""
    extra = []
    if row.get("mode") is not None:
        extra.append(f"mode {row['mode']}")
    if row.get("difficulty") is not None:
        extra.append(f"difficulty {row['difficulty']}")
    if row.get("sound"):
        extra.append("sound")
    if row.get("include_rng") is not None:
        extra.append(f"include_rng={row['include_rng']}, {row.get('restores', 0)} restores")
    extra += [f"{k}={v}" for k, v in (row.get("env_kw") or {}).items()]
    return row["game"] + (f" ({', '.join(extra)})" if extra else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="ALE ids (default: every supported game)")
    ap.add_argument("--frames", type=int, default=40000,
                    help="frames per console (default 40,000); with --clone-restore or --explore, per game "
                         "(at least; --explore finishes its last round of up to 100 acts)")
    ap.add_argument("--consoles", type=int, default=None,
                    help="consoles per game (default 4); not with --clone-restore or --explore, which run one a game")
    ap.add_argument("--frameskip", type=int, default=4, help="frames per agent step (default 4)")
    ap.add_argument("--max-frames", type=int, default=108000,
                    help="max_num_frames_per_episode (default 108,000, ALE v5's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="games surveyed at once")
    ap.add_argument("--vector", action="store_true",
                    help="compare cule.AtariVectorEnv with ale-py's AtariVectorEnv instead of cule.Atari with ALEInterface")
    ap.add_argument("--modes", action="store_true",
                    help="survey every mode and every non-zero difficulty of each game, one at a time")
    ap.add_argument("--clone-restore", action="store_true",
                    help="compare cule's Gymnasium env with ale-py's (<Game>-v5) under random clone_state / "
                         "restore_state calls, with include_rng False and True")
    ap.add_argument("--explore", action="store_true",
                    help="compare cule.ALEInterface with ale-py's while exploring from archived states "
                         "(Go-Explore's first phase), which reaches later stages of a game than random play")
    ap.add_argument("--sound", action="store_true",
                    help="with the ALEInterface survey (also --modes): sound observations on both sides, "
                         "the audio compared after every step too")
    ap.add_argument("--env-kw", default=None, metavar="JSON",
                    help="with --vector: keyword arguments for both vector envs; with --clone-restore: for "
                         "both Gymnasium envs (e.g. '{\"frameskip\": 1, \"repeat_action_probability\": 0}', "
                         "NoFrameskip-v4's; a list is a (low, high) frameskip); as a JSON object")
    ap.add_argument("--out", default=None, help="append a JSON line per game to this file")
    a = ap.parse_args()
    if a.modes and a.vector:
        ap.error("--modes applies to the ALEInterface survey (ale-py's vector env has no mode or difficulty)")
    if a.clone_restore and (a.modes or a.vector):
        ap.error("--clone-restore is a survey of its own: not with --modes or --vector")
    if a.explore and (a.modes or a.vector or a.clone_restore or a.sound or a.env_kw is not None):
        ap.error("--explore is a survey of its own: not with --modes, --vector, --clone-restore, --sound or --env-kw")
    if a.consoles is not None and (a.explore or a.clone_restore):
        ap.error("--consoles does not apply to --explore or --clone-restore: they run one env (or pair) a game")
    if a.consoles is None:
        a.consoles = 4
    if a.sound and (a.vector or a.clone_restore):
        ap.error("--sound applies to the ALEInterface survey (ale-py's vector env has no sound observations)")
    if a.env_kw is not None:
        if not (a.vector or a.clone_restore):
            ap.error("--env-kw needs --vector or --clone-restore")
        try:
            a.env_kw = json.loads(a.env_kw)
        except ValueError as e:
            ap.error(f"--env-kw is not valid JSON: {e}")
        if not isinstance(a.env_kw, dict):
            ap.error("--env-kw must be a JSON object, e.g. '{\"episodic_life\": true}'")
    for name, v, lo in (("--frames", a.frames, 1), ("--consoles", a.consoles, 1), ("--frameskip", a.frameskip, 1),
                        ("--max-frames", a.max_frames, 0), ("--jobs", a.jobs, 1), ("--seed", a.seed, 0)):
        if v < lo:
            ap.error(f"{name} must be >= {lo}")
    if a.frames < a.frameskip:
        ap.error("--frames must be at least --frameskip")
    try:
        import ale_py  # noqa: F401
    except ImportError:
        ap.error("ale-py is not installed (pip install -e '.[test]')")
    if a.env_kw and a.clone_restore:
        import inspect

        from ale_py.env import AtariEnv

        known = set(inspect.signature(AtariEnv.__init__).parameters) - {"self", "game"}
        for k in a.env_kw:
            if k not in known:
                ap.error(f"--env-kw: {k!r} is not a keyword of ale_py's AtariEnv")
    elif a.env_kw:
        import inspect

        from ale_py.vector_env import AtariVectorEnv

        known = set(inspect.signature(AtariVectorEnv.__init__).parameters) - {"self", "game", "num_envs"}
        own = {"frameskip": "--frameskip", "max_num_frames_per_episode": "--max-frames"}
        for k in a.env_kw:
            if k in own:
                ap.error(f"--env-kw: give {k} with {own[k]}")
            if k not in known:
                ap.error(f"--env-kw: {k!r} is not a keyword of ale_py's AtariVectorEnv")
    import cule
    from cule.roms import load_rom

    for game in a.games:
        try:
            load_rom(game)
        except ValueError as e:
            ap.error(str(e))
    games = a.games or cule.list_games()
    work = work_items(a, games)
    bad = 0
    total = 0
    t0 = time.time()
    with mp.get_context("spawn").Pool(a.jobs) as pool:
        for row in pool.imap(_run, work):
            total += row["frames"]
            bad += row["error"] is not None
            if a.explore:
                what = (f"rounds {row.get('rounds', 0):>5,}  cells {row.get('cells', 0):>5,}  best score "
                        f"{row.get('best_score', 0):>7,}  deepest episode frame {row['longest_episode']:>7,}")
            else:
                what = f"episodes {row['episodes']:>3}  longest episode {row['longest_episode']:>7,}"
            print(f"{label(row):22s} frames {row['frames']:>8,}  {what}  "
                  f"{'exact' if row['error'] is None else 'DIFFERS: ' + row['error']}", flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    f.write(json.dumps(row) + "\n")
    what = "surveys" if len(work) != len(games) else "games"
    print(f"{len(work) - bad} of {len(work)} {what} exact, {total:,} frames compared, "
          f"{time.time() - t0:.0f} s", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
