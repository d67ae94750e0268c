"""One line per item of a cuda_timing.jsonl (scripts/cuda_timing.py): label, kind, envs,
frames/s, ms per step, set-up, and for vector-env items the three kernels that took
the most GPU time per step.  gpu_check.sh prints it last, so the figures are in the
output's tail even when its files do not come back.

    python scripts/timing_summary.py OUT/cuda_timing.jsonl
"""
import json
import re
import sys


def kernel_name(name):
    """The kernel's own name in a profiler key (a demangled signature)."""
    m = re.search(r"\b(k_\w+)", name)
    return m.group(1) if m else name[:40]


def line(r):
    setup = f"set-up {r['setup_s']:.1f} s"
    if "first_reset_s" in r:
        setup += f" (first reset {r['first_reset_s']:.1f} s)"
    kw = "".join(f",{k}={v}" for k, v in r.get("env_kwargs", {}).items() if k != "max_num_frames_per_episode")
    out = (f"{r['label']:>8s} {r['kind'] + kw:5s} {r['n']:7d} envs fs{r['frameskip']} {'draw' if r['render'] else 'none'}"
           f" {r['frames_per_s']:12,.0f} frames/s {r['ms_per_step']:8.1f} ms/step  {setup}")
    kernels = r.get("kernel_ms") or {}
    if "error" in kernels:
        out += f"  kernels: {kernels['error']}"
    elif kernels:
        top = sorted(kernels.items(), key=lambda kv: -kv[1])[:3]
        out += "  kernels: " + ", ".join(f"{kernel_name(k)} {v:.1f} ms" for k, v in top)
    return out


def main(path):
    try:
        lines = [json.loads(x) for x in open(path) if x.strip()]
    except (OSError, ValueError) as e:
        print(f"no timings to summarise ({e})")
        return
    for r in lines:
        print(line(r))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
