"""The throughput benchmark script: well-formed CSV, JSON and PNG, clear errors.
(It measures; it asserts no speed.)"""
import csv
import json
import subprocess
import sys

import pytest

from cule import benchmark


def test_quick_run_writes_csv_json_png(tmp_path):
    rows = benchmark.main(["--quick", "--backends", "cule-cpu", "ale-single", "cule-cuda", "--modes", "emulation",
                           "--num-envs", "1", "4", "--window", "0.1", "--windows", "2", "--warmup", "0",
                           "--out-dir", str(tmp_path)])
    measured = [r for r in rows if r.get("fps")]
    # cule-cuda is measured where a GPU is, and skipped (with its reason) elsewhere.
    gpu = __import__("cule").cuda_atari.cuda_available()
    assert {r["backend"] for r in measured} == {"cule-cpu", "ale-single"} | ({"cule-cuda"} if gpu else set())
    if not gpu:
        assert any(r["backend"] == "cule-cuda" and r.get("skipped") for r in rows)
    assert all(r["fps"] > 0 and r["fps_min"] <= r["fps"] <= r["fps_max"] for r in measured)
    with open(tmp_path / "benchmark.csv") as f:
        table = list(csv.DictReader(f))
    assert {r["backend"] for r in table} >= {"cule-cpu", "ale-single"}
    assert all(float(r["fps"]) > 0 for r in table if r["fps"])
    data = json.loads((tmp_path / "benchmark.json").read_text())
    assert data["machine"]["cpu_count"] >= 1 and "versions" in data["machine"]
    assert any(s["reference"] == "ale-single" for s in data["speedups"])
    png = (tmp_path / "benchmark.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args,message", [
    (["--backends", "nes"], "unknown backend"),
    (["--games", "not_a_game"], "not_a_game"),
    (["--modes", "warp"], "unknown mode"),
    (["--num-envs", "0"], "num-envs"),
])
def test_bad_arguments_fail_clearly(args, message):
    p = subprocess.run([sys.executable, "-m", "cule.benchmark", *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert message in p.stderr


def test_arguments_as_given_and_checked_before_the_sweep(tmp_path):
    # --quick fills in only what was not given, in any spelling argparse takes.
    a = benchmark.parse_args(["--quick", "--game", "breakout", "--num-envs=2", "--window", "5"])
    assert (a.games, a.num_envs, a.window, a.warmup, a.windows) == (["breakout"], [2], 5.0, 0.2, 3)
    a = benchmark.parse_args([])
    assert (a.games, a.num_envs, a.window, a.warmup) == (benchmark.DEFAULT_GAMES, benchmark.DEFAULT_ENVS, 1.0, 1.0)
    # A game is named by its ALE id, which every backend (ale-py's included) takes.
    assert benchmark.parse_args(["--games", "Pong", "SpaceInvaders"]).games == ["pong", "space_invaders"]
    # Refused at once, with nothing made: a seed outside int32 (env i gets seed + i), an
    # --out-dir that is a file or cannot be made.
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    for argv in (["--seed", "-1"], ["--seed", str(2**31 - 4), "--num-envs", "1", "8"],
                 ["--out-dir", str(blocker)], ["--out-dir", str(blocker / "sub")]):
        with pytest.raises(SystemExit) as e:
            benchmark.parse_args(argv)
        assert e.value.code == 2, argv
    assert blocker.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert benchmark.parse_args(["--seed", str(2**31 - 8), "--num-envs", "1", "8"]).seed == 2**31 - 8
    assert benchmark.parse_args(["--out-dir", str(tmp_path / "a" / "b")]) and not (tmp_path / "a").exists()


def test_a_stop_is_not_replaced_by_an_env_that_fails_to_close(monkeypatch):
    # SIGTERM / Ctrl-C to the process group kills an AsyncVectorEnv's workers too: its
    # close() then raises (EOFError); the stop must still end the sweep as a stop (so the
    # cells measured are written), and the workers are terminated instead.
    closes = []

    class DeadWorkers:
        def close(self, terminate=False):
            closes.append(terminate)
            if not terminate:
                raise EOFError

    def step(n):
        raise benchmark._Stopped()

    monkeypatch.setattr(benchmark, "make_runner", lambda *a: (step, 4, DeadWorkers()))
    args = benchmark.parse_args(["--backends", "gym-async", "--games", "pong", "--num-envs", "1", "--warmup", "0"])
    rows = []
    with pytest.raises(benchmark._Stopped):
        benchmark._sweep(args, rows)
    assert closes == [False, True]


@pytest.mark.parametrize("sig, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_stop_ends_the_sweep_keeps_what_was_measured_and_exits_as_the_signal(tmp_path, sig, status):
    # `timeout` sends SIGTERM, Ctrl-C SIGINT: the cells measured so far are still
    # written, and the exit status is a shell's for a process the signal killed
    # (128 + the signal's number), so `... && next` does not go on.
    import signal
    proc = subprocess.Popen([sys.executable, "-u", "-m", "cule.benchmark", "--backends", "cule-cpu", "--games", "pong",
                             "--modes", "emulation", "--num-envs", "1", "2", "4", "8", "16", "--warmup", "0",
                             "--window", "1", "--windows", "5", "--out-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:   # the header, then the first measured cell
        if "cule-cpu" in line:
            break
    proc.send_signal(getattr(signal, sig))
    out = proc.stdout.read()
    assert proc.wait(timeout=60) == status
    assert "stopped early" in out
    data = json.loads((tmp_path / "benchmark.json").read_text())
    assert data["stopped_early"] is True
    assert 1 <= len([r for r in data["results"] if r.get("fps")]) < 5


def test_emulation_runner_resets_finished_episodes_and_counts_only_emulated_frames(monkeypatch):
    # ALE's act emulates nothing once the game is over: finished episodes are reset
    # within DONE_CHECK_EVERY calls, and the calls on a finished console are not counted
    # as frames.  Short episodes (a 50-frame limit) make several end.
    import cule

    runs_on_done = []
    calls_on_done = [0]

    class Counting(cule.Atari):
        def __init__(self, *args, **kwargs):
            kwargs["max_num_frames_per_episode"] = 50
            super().__init__(*args, **kwargs)
            self.run = 0

        def act(self, actions):
            if bool((self.terminated | self.truncated).any()):
                self.run += 1
                calls_on_done[0] += 1
            elif self.run:
                runs_on_done.append(self.run)
                self.run = 0
            return super().act(actions)

    monkeypatch.setattr(cule, "Atari", Counting)
    step, frames_per_step, _ = benchmark.make_runner("cule-cpu", "pong", 1, "emulation", 1, 0)
    frames = step(1000)
    assert len(runs_on_done) >= 10                                 # about 1000 / (50 + 14) episodes
    assert max(runs_on_done) < benchmark.DONE_CHECK_EVERY
    assert calls_on_done[0] > 0 and frames == 1000 - calls_on_done[0]


@pytest.mark.skipif(__import__("cule").cuda_atari.cuda_available(), reason="needs a machine without a usable GPU")
def test_nothing_measured_fails_and_leaves_earlier_results(tmp_path):
    # cule-cuda alone without a GPU: every cell is skipped, the run fails (rc 1) and the
    # files of an earlier run in --out-dir are not overwritten with an empty table.
    (tmp_path / "benchmark.csv").write_text("earlier\n")
    p = subprocess.run([sys.executable, "-m", "cule.benchmark", "--backends", "cule-cuda", "--games", "pong",
                        "--modes", "emulation", "--num-envs", "1", "--out-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "nothing was measured" in p.stderr, (p.stdout, p.stderr)
    assert (tmp_path / "benchmark.csv").read_text() == "earlier\n"
    assert not (tmp_path / "benchmark.json").exists()


@pytest.mark.skipif(__import__("cule").cuda_atari.cuda_available(), reason="needs a machine without a usable GPU")
def test_nothing_measured_removes_the_folders_it_made(tmp_path):
    # An --out-dir that did not exist is made before the sweep (so a bad path fails at
    # once) and removed again, with its new parents, when nothing was measured.
    out = tmp_path / "new" / "deeper"
    p = subprocess.run([sys.executable, "-m", "cule.benchmark", "--backends", "cule-cuda", "--games", "pong",
                        "--modes", "emulation", "--num-envs", "1", "--out-dir", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "nothing was measured" in p.stderr, (p.stdout, p.stderr)
    assert not (tmp_path / "new").exists()
    assert tmp_path.exists()


def test_example_script_names_itself():
    import os
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + [os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, str(root / "examples" / "benchmark.py"), "--help"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0 and p.stdout.startswith("usage: python examples/benchmark.py"), p.stdout
