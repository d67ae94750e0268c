"""The GPU kit (scripts/), checked where no GPU is: scripts/cuda_sources_sha.sh, the
checksum that ties a prebuilt CUDA object to its sources, changes with every file the
object is compiled from (cuda_backend.cu and what it includes, setup.py, the target) and
with nothing else; the shell scripts parse; cuda_timing.py reads its SPEC items;
gpu_quick_parity.py runs on the host emulation; pick_variant.py chooses as the pick
phase needs."""
import importlib.util
import shutil
import subprocess
import sys
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


def test_shell_scripts_parse():
    scripts = sorted((ROOT / "scripts").glob("*.sh"))
    assert any(p.name == "gpu_check.sh" for p in scripts)
    for path in scripts:
        p = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, (path.name, p.stderr)


def test_gpu_check_without_a_gpu_stops_at_once(tmp_path):
    # It built for minutes, skipped every test and exited 0 on a machine without a GPU.
    import os
    import torch
    if torch.cuda.is_available() or shutil.which("nvidia-smi"):
        pytest.skip("a machine with a GPU (or nvidia-smi) runs the real checks")
    env = dict(os.environ, PYTHON=sys.executable)
    p = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_check.sh"), str(tmp_path / "out"), "pick"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "no CUDA GPU here" in p.stdout
    assert sorted(q.name for q in (tmp_path / "out").iterdir()) == ["gpu_check.log"]


def test_env_requirements_are_pyprojects_dependencies_and_test_extra():
    # env/Dockerfile installs env/requirements.txt before cule; .ci/run installs the
    # pinned torch and pyproject's dependencies + test extra: the same packages, so the
    # image tests what CI tests (torch pinned as .ci/run pins it).
    import re
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    lines = [ln.strip() for ln in (ROOT / "env" / "requirements.txt").read_text().splitlines()]
    listed = [ln for ln in lines if ln and not ln.startswith("#")]

    def name(req):
        return re.split(r"[<>=!~ ;\[]", req, maxsplit=1)[0].lower().replace("_", "-")
    assert sorted({name(r) for r in listed}) == sorted({name(r) for r in wanted})
    assert "torch==2.13.0" in listed
    for req in wanted:   # the same bounds, torch's pin aside
        if name(req) != "torch":
            assert req in listed, req
    assert "torch==2.13.0" in (ROOT / ".ci" / "run").read_text()


def test_cuda_timing_spec_items():
    spec = importlib.util.spec_from_file_location("cuda_timing", ROOT / "scripts" / "cuda_timing.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.parse_item("atari,65536,0,1") == ("atari", 65536, False, 1, "pong", {})
    assert mod.parse_item("vec,2048,1,4,breakout") == ("vec", 2048, True, 4, "breakout", {})
    assert mod.parse_item("vec,64,1,4,pong,2000") == ("vec", 64, True, 4, "pong",
                                                       {"max_num_frames_per_episode": 2000})
    assert mod.parse_item("vec,65536,1,4,pong,,noop_max=1") == ("vec", 65536, True, 4, "pong", {"noop_max": 1})
    with pytest.raises(ValueError):
        mod.parse_item("vec,many,1,4")
    # Every item the bench phase of gpu_check.sh times parses.
    text = (ROOT / "scripts" / "gpu_check.sh").read_text()
    items = [it for line in text.splitlines() if line.strip().startswith('"atari,')
             for it in line.strip().split('"')[1].split(";")]
    assert len(items) >= 9
    for it in items:
        assert mod.parse_item(it)[0] in ("atari", "vec")


def test_timing_summary(tmp_path):
    import json
    rows = [dict(label="main", kind="atari", game="pong", n=65536, render=False, frameskip=1, warmup=2, steps=77,
                 ms_per_step=15.6, gpu_ms_per_step=15.5, frames_per_s=4203099.0, setup_s=3.2),
            dict(label="opsw48", kind="vec", game="pong", n=65536, render=True, frameskip=4, warmup=2, steps=5,
                 ms_per_step=295.0, gpu_ms_per_step=294.0, frames_per_s=888106.0, setup_s=9.0, construct_s=6.0,
                 first_reset_s=3.0, env_kwargs={"noop_max": 1},
                 kernel_ms={"k_vec_pool(cule::DeviceBatch, cule::VecDev)": 7.5,
                            "void cule::(anonymous namespace)::k_vec_step(cule::DeviceBatch)": 270.25,
                            "k_vec_obs": 2.0, "k_vec_process": 5.0})]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "timing_summary.py"), str(path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    first, second = p.stdout.splitlines()
    assert "4,203,099 frames/s" in first and "atari" in first and "none" in first
    assert "vec,noop_max=1" in second and "888,106 frames/s" in second and "(first reset 3.0 s)" in second
    assert "kernels: k_vec_step 270.2 ms, k_vec_pool 7.5 ms, k_vec_process 5.0 ms" in second
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "timing_summary.py"), str(tmp_path / "none.jsonl")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "no timings" in p.stdout


def test_pick_variant(tmp_path):
    # gpu_check.sh's pick phase goes on with the fastest vector env among the builds
    # whose emulation reaches the 2M frames/s target; lines of other labels, sizes,
    # games, env settings or kinds do not count; nothing timed: the main object.
    import json
    spec = importlib.util.spec_from_file_location("pick_variant", ROOT / "scripts" / "pick_variant.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def row(label, kind, fps, **kw):
        r = dict(label=label, kind=kind, game="pong", n=65536, render=kind == "vec",
                 frameskip=4 if kind == "vec" else 1, frames_per_s=fps)
        r.update(kw)
        return json.dumps(r)

    lines = [row("main", "atari", 3.0e6), row("main", "vec", 1.0e6),
             row("fsync", "atari", 3.5e6), row("fsync", "vec", 2.1e6),
             row("fsync48", "atari", 1.9e6), row("fsync48", "vec", 2.5e6),        # emulation below 2M
             row("team", "atari", 3.1e6), row("team", "vec", 9.0e6, env_kwargs={"noop_max": 1}),
             row("team", "vec", 1.2e6),
             row("fteam", "atari", 3.2e6), row("fteam", "vec", 9.9e6, n=16384),   # another size
             row("fteam", "atari", 9.9e6, render=True, frameskip=4),
             row("other", "atari", 9.9e6), row("other", "vec", 9.9e6)]           # not asked for
    assert mod.pick(lines, ["main", "fsync", "fsync48", "team", "fteam"]) == "fsync"
    assert mod.pick(lines, ["main", "fsync48"]) == "main"
    assert mod.pick([row("a", "atari", 1e6), row("a", "vec", 1e6), row("b", "atari", 1e6), row("b", "vec", 2e6)],
                    ["a", "b"]) == "b"   # none reaches 2M: the fastest vector env of all
    assert mod.pick([], ["main", "fsync"]) == "main"
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for argv, want in ([str(path), "main", "team"], "team"), ([str(tmp_path / "none.jsonl"), "main"], "main"):
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / "pick_variant.py"), *argv], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0 and p.stdout.strip() == want, p.stderr


def test_quick_parity_script_on_the_host_emulation(monkeypatch):
    # What gpu_check.sh runs on the GPU (scripts/gpu_quick_parity.py), through the host
    # emulation of the CUDA backend: every check passes there, and one whose reference
    # differs (another seed) is reported as different, not as passed.
    pytest.importorskip("cule._cuda_emu")
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import gpu_quick_parity as q
    lines = []
    configs = {k: q.VECTOR_CONFIGS[k] for k in ("vector_env_breakout_85x85_rgb", "vector_env_breakout_same_step",
                                                 "vector_env_breakout_async")}
    results = q.quick_parity(True, games=("pitfall2",), vector_configs=configs, log=lines.append)
    assert results == {"pitfall2": True, "pitfall2_cpu_high": True, "vector_env_breakout_85x85_rgb": True,
                       "vector_env_breakout_same_step": True, "vector_env_breakout_async": True}, lines
    original = q._pair

    def other_seed(cls, emulate, *args, **kw):
        gpu, _ = original(cls, emulate, *args, **kw)
        return gpu, cls(*args, device="cpu", **{**kw, "seed": 8})

    monkeypatch.setattr(q, "_pair", other_seed)
    assert q.quick_parity(True, games=("pong",), vector_configs={}, log=lines.append, atari_configs={}) == \
        {"pong": False}
    assert lines[-1] == "pong: DIFFERENT"
