"""Write the README's parity table from a parity test run.

    CULE_PARITY_RESULTS=/tmp/parity.jsonl python -m pytest tests/test_parity.py
    python tools/parity_table.py /tmp/parity.jsonl          # rewrites README.md's table

Every ROM ale-py 0.12.1 ships gets a row: game, cartridge type, display format,
frames compared (random play + every mode/difficulty + sound), modes and difficulties
checked, and the result.  Games cule does not support yet, and the multiplayer-only
ROMs, are listed as such.
"""
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from cule._rom_table import ROMS  # noqa: E402

BEGIN = "<!-- parity-table:begin -->"
END = "<!-- parity-table:end -->"


def build(rows):
    frames = defaultdict(int)
    modes = defaultdict(set)
    diffs = defaultdict(set)
    errors = defaultdict(list)
    seen = set()
    for r in rows:
        g = r["game"]
        seen.add(g)
        frames[g] += r.get("frames") or 0
        if r["test"] == "mode":
            if r.get("mode") is not None:
                modes[g].add(r["mode"])
            if r.get("difficulty") is not None:
                diffs[g].add(r["difficulty"])
        if r.get("error"):
            errors[g].append(r["error"])
    lines = ["| game | cartridge | format | frames compared | modes checked | difficulties checked | exact |",
             "|---|---|---|---:|---|---|---|"]
    exact = 0
    single = 0
    for g in sorted(ROMS):
        info = ROMS[g]
        if not info["single_player"]:
            lines.append(f"| {g} | {info['cart']} | {info['display']} | - | - | - | multiplayer-only ROM (not in ALE's single-player set) |")
            continue
        single += 1
        if g not in seen:
            lines.append(f"| {g} | {info['cart']} | {info['display']} | 0 | - | - | not supported yet |")
            continue
        ok = not errors[g]
        exact += ok
        m = ",".join(str(v) for v in sorted(modes[g])) or "-"
        d = ",".join(str(v) for v in sorted(set(diffs[g]) | ({0} if modes[g] else set()))) or "-"
        result = "yes" if ok else "no: " + errors[g][0].replace("|", "/")[:120]
        lines.append(f"| {g} | {info['cart']} | {info['display']} | {frames[g]:,} | {m} | {d} | {result} |")
    summary = f"**{exact} of {single} single-player games exact** (every frame: RAM, RGB screen, reward, terminal, truncation, lives, frame numbers)."
    return summary + "\n\n" + "\n".join(lines)


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    table = build(rows)
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    if BEGIN not in text or END not in text:
        raise SystemExit("README.md has no parity-table markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(readme, "w").write(head + BEGIN + "\n" + table + "\n" + END + tail)
    print(table.splitlines()[0])


if __name__ == "__main__":
    main(sys.argv[1])
