"""scripts/deep_parity.py, the long-horizon parity survey, on short runs: it reports a
game that matches ALE as exact and finds a difference where there is one (cule run
with other sticky actions than ALE), in both its modes; a mode (--modes) and vector-env
keywords (--env-kw) reach both sides; the clone / restore survey (--clone-restore) and the
exploring one (--explore) find a restore that is not ALE's; bad arguments are usage
errors."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import cule

pytest.importorskip("ale_py")
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "deep_parity.py"


@pytest.fixture(scope="module")
def deep():
    spec = importlib.util.spec_from_file_location("deep_parity", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_exact_runs_are_reported_exact(deep):
    row = deep.survey("breakout", 2000, 2, 4, 0, 108000)
    assert row["error"] is None
    assert row["frames"] == 2 * 2000
    assert row["longest_episode"] > 0
    row = deep.survey_vector("breakout", 800, 2, 4, 1, 108000)
    assert row["error"] is None
    assert row["frames"] == 2 * 800


@pytest.mark.parametrize("vector", [False, True])
def test_a_difference_is_found(deep, monkeypatch, vector):
    # cule with repeat_action_probability 1.0 against ALE's 0.25: the sticky draws differ.
    import cule.vector_env as ve

    cls = ve.AtariVectorEnv if vector else cule.Atari
    orig = cls.__init__

    def init(self, *a, **kw):
        kw["repeat_action_probability"] = 1.0
        orig(self, *a, **kw)

    monkeypatch.setattr(cls, "__init__", init)
    survey = deep.survey_vector if vector else deep.survey
    row = survey("breakout", 800, 2, 4, 1, 108000)
    assert row["error"] is not None and "differ" in row["error"]


def test_command_line(tmp_path):
    out = tmp_path / "rows.jsonl"
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--frames", "200", "--consoles", "2", "--jobs", "1",
                        "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "1 of 1 games exact, 400 frames compared" in p.stdout
    assert '"game": "pong"' in out.read_text()
    for bad in (["no_such_game"], ["--frames", "0"], ["--jobs", "0"], ["--consoles", "-1"]):
        p = subprocess.run([sys.executable, str(SCRIPT), *bad], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (bad, p.stdout, p.stderr)


def test_mode_and_env_kw_reach_cule(deep, monkeypatch):
    # The mode and the vector-env keywords are surveyed on both sides: cule made without
    # them (pong mode 1, breakout's episodic_life) differs from ALE made with them.
    import cule.vector_env as ve

    assert deep.survey("pong", 400, 1, 4, 1, 108000, mode=1)["error"] is None
    row = deep.survey_vector("breakout", 1600, 2, 4, 0, 108000, env_kw={"episodic_life": True})
    assert row["error"] is None and row["env_kw"] == {"episodic_life": True}
    for cls, key in ((cule.Atari, "mode"), (ve.AtariVectorEnv, "episodic_life")):
        orig = cls.__init__

        def init(self, *a, _orig=orig, _key=key, **kw):
            kw.pop(_key, None)
            _orig(self, *a, **kw)

        monkeypatch.setattr(cls, "__init__", init)
    row = deep.survey("pong", 400, 1, 4, 1, 108000, mode=1)
    assert row["error"] is not None and row["mode"] == 1
    row = deep.survey_vector("breakout", 1600, 2, 4, 0, 108000, env_kw={"episodic_life": True})
    assert row["error"] is not None


def test_command_line_modes_and_env_kw(tmp_path):
    out = tmp_path / "rows.jsonl"
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--modes", "--frames", "100", "--consoles", "1",
                        "--jobs", "1", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    # pong: modes 0 and 1, difficulties 1, 2 and 3 besides 0 (ALE 0.12.1's getAvailableModes
    # and getAvailableDifficulties).
    assert "5 of 5 surveys exact, 500 frames compared" in p.stdout
    assert "pong (mode 1)" in p.stdout and "pong (difficulty 3)" in p.stdout
    assert out.read_text().count('"game": "pong"') == 5
    for bad in (["pong", "--modes", "--vector"], ["pong", "--env-kw", "{}"],
                ["pong", "--vector", "--env-kw", "[1]"], ["pong", "--vector", "--env-kw", "{bad"],
                ["pong", "--vector", "--env-kw", '{"no_such_keyword": 1}'],
                ["pong", "--vector", "--env-kw", '{"frameskip": 2}']):
        p = subprocess.run([sys.executable, str(SCRIPT), *bad], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (bad, p.stdout, p.stderr)
        assert "error:" in p.stderr


def test_clone_restore_survey(deep, monkeypatch):
    row = deep.survey_clone_restore("breakout", 1200, 1, 4, 3, 108000, include_rng=False)
    assert row["error"] is None and row["restores"] >= 5
    import cule.gym_env as ge

    # The default (full) restore brings back what ALE's restoreState leaves alone (from
    # states that keep the frame buffers, which only such a restore needs).
    monkeypatch.setattr(ge.AtariEnv, "restore_state", lambda self, state: self.atari.restore_state(state))
    monkeypatch.setattr(ge.AtariEnv, "clone_state", lambda self, include_rng=False: cule.ALEState(
        self.atari.clone_state(include_rng=include_rng)))
    row = deep.survey_clone_restore("breakout", 1200, 1, 4, 3, 108000, include_rng=False)
    assert row["error"] is not None
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--clone-restore", "--frames", "400", "--jobs", "1"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "2 of 2 surveys exact, 800 frames compared" in p.stdout
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--clone-restore", "--vector"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "error:" in p.stderr


def test_clone_restore_survey_env_kw(deep, monkeypatch):
    # --env-kw with --clone-restore: NoFrameskip-v4's keywords and a drawn frameskip reach
    # both Gymnasium envs; cule made without them differs.
    kw = {"frameskip": 1, "repeat_action_probability": 0.0}
    row = deep.survey_clone_restore("breakout", 600, 1, 4, 3, 108000, env_kw=kw)
    assert row["error"] is None and row["env_kw"] == kw and row["frames"] == 600
    row = deep.survey_clone_restore("pong", 600, 1, 4, 3, 108000, env_kw={"frameskip": [2, 5]})
    assert row["error"] is None and row["frames"] == 600
    import cule.gym_env as ge

    orig = ge.AtariEnv.__init__

    def init(self, *a, **k):
        k.pop("repeat_action_probability", None)
        orig(self, *a, **k)

    monkeypatch.setattr(ge.AtariEnv, "__init__", init)
    row = deep.survey_clone_restore("breakout", 600, 1, 4, 3, 108000, env_kw=kw)
    assert row["error"] is not None
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--clone-restore", "--frames", "300", "--jobs", "1",
                        "--env-kw", '{"frameskip": 1, "repeat_action_probability": 0}'],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "2 of 2 surveys exact, 600 frames compared" in p.stdout and "frameskip=1" in p.stdout
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--clone-restore", "--env-kw", '{"episodic_life": 1}'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "not a keyword of ale_py's AtariEnv" in p.stderr


def test_sound_survey(deep, monkeypatch):
    # --sound: both sides make audio and it is compared; a cule whose audio differs (its
    # samples after one act replaced) is caught.
    row = deep.survey("space_invaders", 800, 2, 4, 2, 108000, sound=True)
    assert row["error"] is None and row["sound"] and row["frames"] == 2 * 800
    orig = cule.Atari.audio.fget
    monkeypatch.setattr(cule.Atari, "audio", property(lambda self: orig(self) ^ 1))
    row = deep.survey("space_invaders", 800, 2, 4, 2, 108000, sound=True)
    assert row["error"] is not None and "audio differs" in row["error"]
    p = subprocess.run([sys.executable, str(SCRIPT), "--sound", "--vector"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "--sound" in p.stderr


def test_explore_survey(deep, monkeypatch):
    # --explore: rounds restore archived states on both sides and play on; every restore
    # and act is compared, so a restore that does nothing on the cule side is caught.
    row = deep.survey_explore("space_invaders", 12000, 1, 4, 7, 108000)
    assert row["error"] is None and row["frames"] >= 12000
    assert row["rounds"] >= 10 and row["cells"] >= 10 and row["best_score"] > 0
    monkeypatch.setattr(cule.ALEInterface, "restoreState", lambda self, state: None)
    row = deep.survey_explore("space_invaders", 12000, 1, 4, 7, 108000)
    assert row["error"] is not None and "after the restore" in row["error"]
    p = subprocess.run([sys.executable, str(SCRIPT), "pong", "--explore", "--frames", "2000", "--jobs", "1"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "1 of 1 games exact, 2,000 frames compared" in p.stdout and "best score" in p.stdout
    for bad in (["pong", "--explore", "--vector"], ["pong", "--explore", "--sound"],
                ["pong", "--explore", "--consoles", "2"], ["pong", "--clone-restore", "--consoles", "2"]):
        p = subprocess.run([sys.executable, str(SCRIPT), *bad], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "--explore" in p.stderr, (bad, p.stderr)
