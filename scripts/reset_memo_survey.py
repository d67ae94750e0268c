"""Which games the reset_game memo serves: per game, 4 envs of random play (frameskip 4,
sticky actions) with 600-frame episodes for 400 steps, each finished env reset; prints
the resets and the memo's slots as (state, hits): the running games' two, then the two of
the resets that follow a power-on (loading's; a reset takes any slot that matches); state
2 recorded (in use), 3 not usable (the rest of reset_game draws from an RNG).  CPU
backend, one thread.

    python scripts/reset_memo_survey.py [GAME ...]
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cule  # noqa: E402
from cule.roms import load_rom  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("games", nargs="*", help="ALE ids (default: every supported game)")
args = ap.parse_args()
for game in args.games:
    try:
        load_rom(game)
    except ValueError as e:
        ap.error(str(e))
os.environ["CULE_RESET_MEMO"] = "1"
for game in args.games or cule.list_games():
    t0 = time.time()
    e = cule.Atari(game, 4, seed=2, frameskip=4, repeat_action_probability=0.25, num_threads=1,
                   max_num_frames_per_episode=600)
    g = torch.Generator().manual_seed(0)
    resets = 0
    for t in range(400):
        e.act(e.action_set[torch.randint(len(e.action_set), (4,), generator=g)])
        done = (e.terminated | e.truncated).nonzero().flatten()
        if len(done):
            resets += len(done)
            e.reset(done)
    print(f"{game:24s} resets {resets:3d} slots {e._batch.reset_memo_stats()} "
          f"power-on {e._batch.power_on_memo_stats()}  {time.time() - t0:.1f}s", flush=True)
