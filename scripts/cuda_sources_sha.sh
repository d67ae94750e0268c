#!/usr/bin/env bash
# Prints the checksum that ties a prebuilt CUDA object (.whl/cuda_backend.o, made by
# scripts/prepare_gpu_wheels.sh through setup.py) to the sources, the nvcc command
# (setup.py) and the target it was built from;
# scripts/gpu_check.sh links the object only when the checksum still matches.
# Usage: scripts/cuda_sources_sha.sh ARCH     (e.g. 90)
# The sources are csrc/cuda_backend.cu and every file it reaches through #include "..."
# (each include followed whatever #if surrounds it, so the set can only be too large):
# a header only the CPU modules include (vector_env.hpp, cpu_backend.hpp, ...) cannot
# change the object.  Files are listed in C-locale order, so every machine lists them
# alike.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH="${1:?usage: cuda_sources_sha.sh ARCH}"
PY="${PYTHON:-python3}"
# The file list first, so that a failure stops here rather than hashing part of it.
FILES=$("$PY" - <<'PYEOF'
import os, re
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
seen, todo = set(), ["csrc/cuda_backend.cu"]
while todo:
    path = todo.pop()
    if path in seen:
        continue
    seen.add(path)
    with open(path) as f:
        text = f.read()
    for name in include.findall(text):
        for base in (os.path.dirname(path), "csrc"):
            cand = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(cand):
                todo.append(cand)
                break
        else:
            raise SystemExit(f"cuda_sources_sha.sh: {path} includes {name!r}, not found under csrc")
print("\n".join(sorted(seen)))
PYEOF
)
{
  printf '%s\n' "$FILES" | LC_ALL=C sort | xargs cat
  cat setup.py
  echo "sm_$ARCH"
} | sha256sum | cut -d' ' -f1
