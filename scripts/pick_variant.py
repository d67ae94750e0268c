"""Which build to go on with after `gpu_check.sh OUT pick` has timed them: the label
whose vector env (pong, 65,536 envs, the env's defaults) ran the most frames/s, among
the labels whose `cule.Atari` emulation (65,536 envs, frameskip 1, nothing drawn)
reached MIN_EMULATION frames/s (all timed labels when none did); `main` when nothing
was timed.

    python scripts/pick_variant.py TIMINGS.jsonl LABEL [LABEL ...]

TIMINGS.jsonl: scripts/cuda_timing.py's lines; only those of the LABELs count.  Prints
the chosen label.
"""
import json
import sys

MIN_EMULATION = 2_000_000   # the emulation target, frames/s


def pick(lines, labels):
    """The chosen label from cuda_timing.py's JSON lines (strings)."""
    emu, vec = {}, {}
    for line in lines:
        r = json.loads(line)
        if r.get("label") not in labels or r.get("n") != 65536 or r.get("game") != "pong" or r.get("env_kwargs"):
            continue
        if r.get("kind") == "vec":
            vec[r["label"]] = r["frames_per_s"]
        elif r.get("kind") == "atari" and not r.get("render") and r.get("frameskip") == 1:
            emu[r["label"]] = r["frames_per_s"]
    fit = [name for name in vec if emu.get(name, 0) >= MIN_EMULATION] or list(vec)
    return max(fit, key=vec.get) if fit else "main"


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    try:
        with open(argv[0]) as f:
            lines = f.readlines()
    except OSError:
        lines = []
    print(pick(lines, argv[1:]))


if __name__ == "__main__":
    main(sys.argv[1:])
