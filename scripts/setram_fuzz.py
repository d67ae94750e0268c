"""Poke random RAM bytes between random actions and compare cule with ale-py after every act.

Pokes (``setRAM``) drive games into states normal play never reaches: stacks pushed into
the TIA's registers, code fetched from TIA addresses, illegal opcodes.  Per game, a
``cule.Atari`` batch of ``--consoles`` consoles runs beside one ``ale_py.ALEInterface``
per console (same seeds, frame_skip, sticky actions 0.25, a 3,000-frame episode limit):
every ``--poke-every`` acts one RAM index gets a random value per console, and after
every act the RAM, RGB screen, reward, game over, lives and frame number must be equal.
A game over resets the consoles that ended.  With ``--restore P``, before each act every
console is also, with probability P each: cloned (``cloneState``, include_rng drawn at
random; cule: ``clone_state``), restored to a random earlier clone (``restoreState``;
cule: ``restore_state(..., ale_semantics=True)``) or reset (``reset_game``).  With ``--cpu
high`` both run ALE's M6502High core (``setString("cpu", "high")``).  Prints one
line per game (OK, or the first difference with its act index) and exits 1 if any game
differed.  Not part of the test suite: ``tests/test_crash_states.py`` and
``tests/test_state.py`` keep the sequences it and a helper's fuzz found.

    python scripts/setram_fuzz.py [--games pong breakout] [--acts 400] [--seed-offset 0] [--restore 0.03]
        [--cpu high]
"""
import argparse
import os
import sys
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import cule  # noqa: E402

try:
    import ale_py
    from ale_py import roms
except ImportError:  # pragma: no cover
    raise SystemExit("setram_fuzz.py compares with ale-py: pip install ale-py==0.12.1")


def fuzz(game, acts, frame_skip, consoles, poke_every, seed_offset, restore=0.0, cpu="low"):
    """None if every act matched, else a description of the first difference."""
    seed = (zlib.crc32(game.encode()) + seed_offset) % 10000
    emu = cule.Atari(game, consoles, seed=seed, frameskip=frame_skip, repeat_action_probability=0.25,
                     full_action_space=True, max_num_frames_per_episode=3000, cpu="low" if cpu == "low" else "high")
    ales = []
    for i in range(consoles):
        a = ale_py.ALEInterface()
        a.setLoggerMode(ale_py.LoggerMode.Error)
        a.setString("cpu", cpu)
        a.setInt("random_seed", seed + i)
        a.setInt("frame_skip", frame_skip)
        a.setInt("max_num_frames_per_episode", 3000)
        a.loadROM(roms.get_rom_path(game))
        ales.append(a)
    rng = np.random.default_rng(seed)
    snaps = []   # (cule's snapshot, ALE's snapshot per console)
    for t in range(acts):
        if restore > 0:
            draw = rng.random(3)
            if draw[0] < restore:
                include_rng = bool(rng.integers(2))
                snaps.append((emu.clone_state(include_rng=include_rng),
                              [a.cloneState(include_rng=include_rng) for a in ales]))
            if snaps and draw[1] < restore:
                ours, theirs = snaps[int(rng.integers(len(snaps)))]
                emu.restore_state(ours, ale_semantics=True)
                for a, s in zip(ales, theirs):
                    a.restoreState(s)
            if draw[2] < restore:
                emu.reset()
                for a in ales:
                    a.reset_game()
        if t % poke_every == 0:
            index, values = int(rng.integers(128)), rng.integers(256, size=consoles)
            emu.set_ram(index, torch.from_numpy(values))
            for a, v in zip(ales, values):
                a.setRAM(index, int(v))
        actions = rng.integers(18, size=consoles)
        rewards = emu.act(torch.from_numpy(actions))
        rgb = emu.screen_rgb().numpy()
        for i, a in enumerate(ales):
            reward = a.act(ale_py.Action(int(actions[i])))
            checks = [("reward", reward, int(rewards[i])), ("ram", a.getRAM().tobytes(), emu.ram[i].numpy().tobytes()),
                      ("game over", a.game_over(with_truncation=False), bool(emu.terminated[i])),
                      ("lives", a.lives(), int(emu.lives[i])), ("frame", a.getFrameNumber(), int(emu.frame_number[i])),
                      ("screen", a.getScreenRGB().tobytes(), rgb[i].tobytes())]
            bad = [name for name, x, y in checks if x != y]
            if bad:
                return f"seed {seed + i} (console {i}), act {t}: {', '.join(bad)} differ"
        done = [i for i, a in enumerate(ales) if a.game_over()]
        if done:
            emu.reset(torch.tensor(done))
            for i in done:
                ales[i].reset_game()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=None, help="ALE ids (default: every supported game)")
    ap.add_argument("--acts", type=int, default=400)
    ap.add_argument("--frame-skip", type=int, default=3)
    ap.add_argument("--consoles", type=int, default=2)
    ap.add_argument("--poke-every", type=int, default=5)
    ap.add_argument("--seed-offset", type=int, default=0, help="shifts every game's seed")
    ap.add_argument("--restore", type=float, default=0.0,
                    help="probability, before each act, of a clone, of a restore and of a reset_game (default 0)")
    ap.add_argument("--cpu", default="low", help="ALE's cpu setting: low (default) or high")
    args = ap.parse_args()
    if not 0.0 <= args.restore <= 1.0:
        ap.error("--restore must be in [0, 1]")
    failed = 0
    for game in args.games or cule.list_games():
        diff = fuzz(game, args.acts, args.frame_skip, args.consoles, args.poke_every, args.seed_offset,
                    args.restore, args.cpu)
        print(f"{game}: {'OK' if diff is None else 'MISMATCH ' + diff}", flush=True)
        failed += diff is not None
    print(f"{failed} game(s) differed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
