"""scripts/cuda_sources_sha.sh: the checksum that ties a prebuilt CUDA object to its
sources changes with every file the object is compiled from (cuda_backend.cu and what it
includes, setup.py, the target) and with nothing else."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checksum(root, arch="90"):
    p = subprocess.run(["bash", str(root / "scripts" / "cuda_sources_sha.sh"), arch], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout.strip(), p.stderr


@pytest.fixture
def tree(tmp_path):
    shutil.copytree(ROOT / "csrc", tmp_path / "csrc")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "cuda_sources_sha.sh", tmp_path / "scripts")
    shutil.copy(ROOT / "setup.py", tmp_path)
    return tmp_path


def _append(path, text="\n// edited\n"):
    with open(path, "a") as f:
        f.write(text)


def test_checksum_follows_the_cuda_sources_only(tree):
    rc, base, err = _checksum(tree)
    assert rc == 0, err
    assert len(base) == 64 and int(base, 16) >= 0
    assert _checksum(tree, "80")[1] != base
    # Headers only the CPU modules include: the object cannot change.
    for cpu_only in ("vector_env.hpp", "cpu_backend.hpp", "thread_pool.hpp"):
        _append(tree / "csrc" / cpu_only)
        assert _checksum(tree)[1] == base, cpu_only
    # What the object is compiled from, directly or through includes (games/ included).
    for path in ("csrc/cuda_backend.cu", "csrc/tia.hpp", "csrc/area_resize.hpp", "csrc/cuda_vector_env.cuh",
                 "setup.py"):
        before = _checksum(tree)[1]
        _append(tree / path)
        assert _checksum(tree)[1] != before, path
    game = sorted((tree / "csrc" / "games").iterdir())[0]
    before = _checksum(tree)[1]
    _append(game)
    assert _checksum(tree)[1] != before, game.name


def test_checksum_fails_on_a_missing_include(tree):
    _append(tree / "csrc" / "cuda_backend.cu", '\n#include "no_such_header.hpp"\n')
    rc, out, err = _checksum(tree)
    assert rc != 0 and out == ""
    assert "no_such_header.hpp" in err
