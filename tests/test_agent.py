"""Tests of agents/a2c_vtrace.py: building blocks, a learning sanity check on a
synthetic image bandit, and short CPU smoke runs (single process with
--resume, and 2-process DDP over gloo) through the command line."""

import csv
import importlib.util
import math
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

torch.set_num_threads(1)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
SCRIPT = os.path.join(ROOT, "agents", "a2c_vtrace.py")

_spec = importlib.util.spec_from_file_location("a2c_vtrace", SCRIPT)
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)

try:
    import ale_py  # noqa: F401
    HAVE_ALE = True
except ImportError:
    HAVE_ALE = False
needs_ale = pytest.mark.skipif(not HAVE_ALE, reason="ale_py is not installed")

# Tiny settings: 4 envs, 5-step windows, 2 minibatches -> 16 frames per env step.
TINY = ["--num-envs", "4", "--num-steps", "5", "--num-minibatches", "2",
        "--log-interval", "400", "--eval-interval", "1000", "--eval-episodes", "2",
        "--eval-max-frames", "400", "--save-interval", "1000",
        "--torch-threads", "1", "--env-threads", "1", "--device", "cpu"]


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("RANK", None), env.pop("WORLD_SIZE", None), env.pop("LOCAL_RANK", None)
    return env


def _run(cmd, cwd, timeout=180):
    """Run ``cmd`` in its own process group; kill the whole group on timeout
    (torchrun's workers included).  Returns ``(stdout, seconds)``."""
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{cmd} timed out after {timeout}s:\n{out}\n{err[-4000:]}")
    assert proc.returncode == 0, f"{cmd} failed:\n{out}\n{err[-4000:]}"
    return out, time.time() - t0


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rows(log_dir):
    with open(os.path.join(log_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------

def test_model_shapes_and_amp():
    model = agent.NatureCNN(6)
    obs = torch.randint(0, 256, (3, 4, 84, 84), dtype=torch.uint8)
    logits, value = model(obs)
    assert logits.shape == (3, 6) and value.shape == (3,)
    actions, logp = agent.act(model, obs, amp_dtype=torch.bfloat16)
    assert actions.dtype == torch.int64 and logp.dtype == torch.float32
    assert ((actions >= 0) & (actions < 6)).all() and (logp <= 0).all()


def test_model_inits():
    """--model-init: CleanRL's orthogonal recipe (the default; input x / 255, policy
    head gain 0.01, so the first policy is nearly uniform) and the CuLE paper's agent
    (Kaiming-normal fan-in weights, torso times sqrt(2), input (x - 127.5) / 128)."""
    torch.manual_seed(0)
    obs = torch.randint(0, 256, (64, 4, 84, 84), dtype=torch.uint8)
    ortho = agent.NatureCNN(6)
    assert ortho.init_name == "orthogonal"
    # orthogonal rows: each row of the policy head has norm 0.01 (512 > 6 outputs)
    assert torch.allclose(ortho.policy.weight.norm(dim=1), torch.full((6,), 0.01), rtol=1e-4)
    torch.manual_seed(0)
    cule_init = agent.NatureCNN(6, init="cule")
    # Kaiming-normal (fan-in, ReLU): std sqrt(2 / fan_in); the torso's times sqrt(2)
    conv1 = cule_init.torso[0].weight
    assert abs(conv1.std().item() - math.sqrt(2.0 / (4 * 8 * 8)) * math.sqrt(2.0)) < 0.01
    assert abs(cule_init.policy.weight.std().item() - math.sqrt(2.0 / 512)) < 0.01
    assert all(float(b.detach().abs().max()) == 0.0 for n, b in cule_init.named_parameters() if n.endswith("bias"))
    # the first policies: nearly uniform (entropy close to log 6) against a spread one
    with torch.no_grad():
        h_ortho = torch.distributions.Categorical(logits=ortho(obs)[0]).entropy().mean().item()
        h_cule = torch.distributions.Categorical(logits=cule_init(obs)[0]).entropy().mean().item()
    assert h_ortho > math.log(6) - 1e-3 and h_cule < math.log(6) - 0.01
    # the input scaling: a model whose first layer sums its input sees x / 255 or (x - 127.5) / 128
    for m, want in ((ortho, 255 / 255.0), (cule_init, (255 - 127.5) / 128.0)):
        seen = []
        hook = m.torso[0].register_forward_hook(lambda mod, inp, out: seen.append(inp[0]))
        m(torch.full((1, 4, 84, 84), 255, dtype=torch.uint8))
        hook.remove()
        assert torch.all(seen[0] == want)
    with pytest.raises(ValueError, match="init must be one of"):
        agent.NatureCNN(6, init="xavier")


def test_running_obs_norm_matches_population_statistics():
    """--normalize-obs: after batches of different sizes the statistics are the mean and
    (population) variance of every element over all observations so far, merged with the
    prior (mean 0, variance 1, count 1e-4) as in baselines' RunningMeanStd; the network's
    input is (x - mean) / sqrt(var + float32 eps) (the CuLE paper agent's --normalize),
    clipped to [-10, 10] (baselines' and SB3's VecNormalize clip_obs)."""
    gen = torch.Generator().manual_seed(3)
    batches = [torch.randint(0, 256, (n, 4, 84, 84), generator=gen, dtype=torch.uint8) for n in (1, 7, 40)]
    batches[2][:, 0, 10, 10] = 87   # a constant pixel: variance 0 within that batch
    for b in batches:
        b[:, 1, 20, 20] = 50        # a pixel constant throughout: variance ~0.005 (the prior's)
    norm = agent.RunningObsNorm((4, 84, 84))
    for b in batches:
        norm.update(b)
    data = np.concatenate([b.numpy().astype(np.float64) for b in batches])
    n, prior = len(data), 1e-4
    mean = data.sum(0) / (n + prior)
    m2 = ((data - data.mean(0)) ** 2).sum(0) + prior * 1.0 + data.mean(0) ** 2 * prior * n / (n + prior)
    assert float(norm.count) == pytest.approx(n + prior, rel=1e-12)
    np.testing.assert_allclose(norm.mean.numpy(), mean, rtol=1e-6)
    np.testing.assert_allclose(norm.var.numpy(), m2 / (n + prior), rtol=1e-5)
    # the network sees the normalised input, not x / 255
    torch.manual_seed(0)
    model = agent.NatureCNN(6, init="cule", normalize_obs=True)
    model.obs_norm.load_state_dict(norm.state_dict())
    assert {"obs_norm.mean", "obs_norm.var", "obs_norm.count"} <= set(model.state_dict())
    seen = []
    hook = model.torso[0].register_forward_hook(lambda mod, inp, out: seen.append(inp[0]))
    x = batches[1][:2]
    model(x)
    hook.remove()
    want = (x.numpy() - mean) / np.sqrt(m2 / (n + prior) + np.finfo(np.float32).eps)
    np.testing.assert_allclose(seen[0].numpy(), np.clip(want, -10, 10), rtol=1e-4, atol=1e-4)
    # clipped to [-10, 10] (VecNormalize's clip_obs): the pixel that was always 50, seen
    # at 200 and at 0 (unclipped, about +2100 and -700)
    odd = x.clone()
    odd[0, 1, 20, 20], odd[1, 1, 20, 20] = 200, 0
    seen.clear()
    hook = model.torso[0].register_forward_hook(lambda mod, inp, out: seen.append(inp[0]))
    model(odd)
    hook.remove()
    z = (np.array([200.0, 0.0]) - mean[1, 20, 20]) / np.sqrt(m2[1, 20, 20] / (n + prior))
    assert z[0] > 1000 and z[1] < -100
    assert seen[0][:, 1, 20, 20].tolist() == [10.0, -10.0]
    assert agent.NatureCNN(6).obs_norm is None


def test_model_defaults_follow_the_device(tmp_path):
    """CUDA: the CuLE agent's init with --normalize-obs; CPU: CleanRL's orthogonal init
    and x / 255.  A checkpoint written before these flags existed resumes with what its
    run used (orthogonal, no normalisation), not with the device's defaults."""
    assert agent.model_defaults(True) == {"model_init": "cule", "normalize_obs": True}
    assert agent.model_defaults(False) == {"model_init": "orthogonal", "normalize_obs": False}
    args = vars(agent.build_parser().parse_args([]))
    assert args["model_init"] is None and args["normalize_obs"] is None
    old_args = {k: v for k, v in args.items() if k not in ("model_init", "normalize_obs")}
    old_args.update(num_envs=4, num_minibatches=2, steps_per_update=2, log_dir=str(tmp_path))
    path = tmp_path / "checkpoint.pt"
    torch.save({"args": old_args, "frames": 0, "updates": 0}, path)
    resumed, _ = agent.parse_args(["--resume", str(path)])
    assert resumed.model_init == "orthogonal" and resumed.normalize_obs is False
    resumed, _ = agent.parse_args(["--resume", str(path), "--model-init", "orthogonal"])
    assert resumed.model_init == "orthogonal"
    with pytest.raises(SystemExit, match="--normalize-obs differs from the checkpoint"):
        agent.parse_args(["--resume", str(path), "--normalize-obs"])


def test_eval_sticky_actions_set_the_evaluation_envs(tmp_path, monkeypatch):
    """--sticky-actions sets the training envs' repeat_action_probability and
    --eval-sticky-actions the evaluation envs' (0.25, ALE v5's, unless given); a
    checkpoint written before the flag existed resumes with 0.25."""
    made = []

    def recording_make_env(*a, **kw):
        env = make_env(*a, **kw)
        made.append(env)
        return env

    make_env = agent.make_env
    monkeypatch.setattr(agent, "make_env", recording_make_env)
    args, _ = agent.parse_args([*TINY, "--env-backend", "cule", "--total-frames", "200", "--eval-interval", "100",
                                "--eval-max-frames", "40", "--sticky-actions", "0.5", "--eval-sticky-actions", "0",
                                "--log-dir", str(tmp_path / "run")])
    agent.train(args)
    assert len(made) == 2   # the training envs, then the evaluation envs (made once)
    assert made[0].env.repeat_action_probability == 0.5
    assert made[1].env.repeat_action_probability == 0.0
    assert agent.build_parser().parse_args([]).eval_sticky_actions == 0.25
    ckpt = torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=False)
    assert ckpt["args"]["eval_sticky_actions"] == 0.0
    ckpt["args"].pop("eval_sticky_actions")
    torch.save(ckpt, tmp_path / "old.pt")
    resumed, _ = agent.parse_args(["--resume", str(tmp_path / "old.pt"), "--log-dir", str(tmp_path / "r")])
    assert resumed.eval_sticky_actions == 0.25 and resumed.sticky_actions == 0.5
    # A resumed run keeps its evaluations' protocol; --eval-only evaluates the checkpoint
    # under another, printing the returns and writing nothing.
    run = str(tmp_path / "run")
    with pytest.raises(SystemExit, match="--eval-sticky-actions 0.25 differs from the checkpoint's 0, which"):
        agent.parse_args(["--resume", run, "--eval-sticky-actions", "0.25"])
    with pytest.raises(SystemExit, match="--eval-only evaluates a checkpoint"):
        agent.parse_args(["--eval-only", "--device", "cpu"])
    before = {name: (tmp_path / "run" / name).read_bytes() for name in ("checkpoint.pt", "progress.csv")}
    returns, lengths = agent.main(["--resume", run, "--eval-only", "--eval-sticky-actions", "0.25",
                                   "--eval-episodes", "3", "--eval-max-frames", "60"])
    assert len(made) == 3 and made[2].env.repeat_action_probability == 0.25 and made[2].num_envs == 3
    assert len(returns) == 3 and all(0 < n <= 60 for n in lengths)
    assert {name: (tmp_path / "run" / name).read_bytes() for name in before} == before
    assert not (tmp_path / "run" / "videos").exists()


def test_rollout_window_is_time_ordered():
    """The ring buffer returns the last T transitions, oldest first, after wrap-around."""
    T, N = 3, 4
    ro = agent.Rollout(T, N, (1,), "cpu")
    ro.obs[0] = 0
    for step in range(1, 8):  # step k: action k-1 taken at obs k-1, next obs k
        full = torch.full((N,), step - 1)
        ro.add(full, full.float(), full.float(), full.bool(), torch.full((N, 1), step, dtype=torch.uint8))
    obs, actions, logp, rewards, dones = ro.window(slice(2, 4))
    assert obs.shape == (T + 1, 2, 1) and actions.shape == (T, 2)
    assert obs[:, 0, 0].tolist() == [4, 5, 6, 7]
    assert actions[:, 0].tolist() == [4, 5, 6] and rewards[:, 1].tolist() == [4.0, 5.0, 6.0]


@needs_ale
def test_make_env_torch_outputs():
    env = agent.make_env("pong", 2, "cpu", seed=3, backend="auto", num_threads=1)
    assert env.backend in ("ale", "cule")
    obs = env.reset()
    assert obs.dtype == torch.uint8 and obs.shape == (2, 4, 84, 84)
    obs, reward, done = env.step(torch.zeros(2, dtype=torch.long))
    assert reward.dtype == torch.float32 and done.dtype == torch.bool and reward.shape == (2,)
    env.close()


@needs_ale
def test_evaluate_captures_env0_episode():
    # --capture-video's frames: env 0's RGB screen at the reset (ALE's pong screen after
    # loadROM, whatever the seed) and after each agent step of its episode but the last.
    import ale_py

    env = agent.make_env("pong", 2, "cpu", seed=0, backend="cule", repeat_action_probability=0.25, noop_max=0,
                         use_fire_reset=False, max_num_frames_per_episode=360)
    model = agent.NatureCNN(env.num_actions)
    video = []
    returns, lengths = agent.evaluate(model, env, seed=11, video=video)
    env.close()
    assert lengths[0] == 360 and len(video) == 360 // agent.FRAMESKIP
    ale = ale_py.ALEInterface()
    ale.loadROM(str(ale_py.roms.get_rom_path("pong")))
    assert all(f.shape == (210, 160, 3) and f.dtype == np.uint8 for f in video)
    np.testing.assert_array_equal(video[0], ale.getScreenRGB())
    assert not np.array_equal(video[0], video[-1])
    # The ale backend has no screens: the CLI refuses the flag before training.
    assert agent.make_env("pong", 1, "cpu", seed=0, backend="ale", num_threads=1).screen(0) is None


@needs_ale
def test_capture_video_cli(tmp_path):
    import imageio.v3 as iio
    import ale_py

    log_dir = tmp_path / "run"
    _run([sys.executable, SCRIPT, *TINY, "--total-frames", "1000", "--log-dir", str(log_dir), "--capture-video"],
         cwd=str(tmp_path))
    evals = [r for r in _rows(str(log_dir)) if r["kind"] == "eval"]
    videos = sorted(os.listdir(log_dir / "videos"))
    assert videos == [f"eval-{int(r['frames']):012d}" + os.path.splitext(videos[0])[1] for r in evals]
    first = iio.imread(log_dir / "videos" / videos[0], index=0)[..., :3]
    ale = ale_py.ALEInterface()
    ale.loadROM(str(ale_py.roms.get_rom_path("pong")))
    if videos[0].endswith(".gif"):
        np.testing.assert_array_equal(first, ale.getScreenRGB())
    else:   # H.264 in yuv420p (imageio-ffmpeg installed): lossy colours
        assert first.shape == (210, 160, 3)
        assert np.abs(first.astype(int) - ale.getScreenRGB()).mean() < 4
    proc = subprocess.run([sys.executable, SCRIPT, "--env-backend", "ale", "--capture-video", "--device", "cpu",
                           "--log-dir", str(tmp_path / "ale")], env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and "--capture-video needs the cule backend" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "ale").exists()
    proc = subprocess.run([sys.executable, SCRIPT, "--eval-interval", "0", "--capture-video", "--device", "cpu",
                           "--log-dir", str(tmp_path / "noeval")], env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and "--eval-interval 0 turns evaluations off" in proc.stderr
    assert not (tmp_path / "noeval").exists()


def test_gif_frame_times_keep_15_fps(tmp_path):
    # GIF stores frame times in 10 ms steps; 15 frames/s is 66.7 ms a frame.
    from PIL import Image

    frames = [np.full((4, 4, 3), i * 8, np.uint8) for i in range(30)]
    path = agent.write_video(str(tmp_path / "v.gif"), frames, fps=15)
    with Image.open(path) as im:
        times = []
        for i in range(im.n_frames):
            im.seek(i)
            times.append(im.info["duration"])
    assert len(times) == 30 and sum(times) == 2000 and set(times) <= {60, 70}


# ---------------------------------------------------------------------------
# learning sanity check
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("init,normalize_obs", [("orthogonal", False), ("cule", False), ("cule", True)])
def test_learns_image_bandit(init, normalize_obs):
    """Contextual bandit: a vertical bar is drawn at one of K=6 columns of a noisy
    84x84 image; the correct action is the bar's column (reward 1, else 0).
    Trained with the agent's own NatureCNN, a2c_vtrace_loss (T=1, episode ends
    every step), RMSprop defaults and gradient clipping (and, with normalize_obs,
    the running input normalisation fed each batch as it comes); every batch is used
    for two updates, the second one off-policy (V-trace corrected).
    Requirement: greedy accuracy >= 0.9 on fresh images and mean sampled
    reward >= 0.8 over the last 10 batches, within 150 batches (~25 s on 1 core).
    """
    K, B = 6, 32
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)

    def batch(n):
        labels = torch.randint(0, K, (n,), generator=gen)
        img = torch.randint(0, 60, (n, 4, 84, 84), generator=gen, dtype=torch.uint8)
        top = torch.randint(0, 40, (n,), generator=gen)
        for i in range(n):
            x = 4 + 13 * labels[i].item()
            img[i, :, top[i]:top[i] + 40, x:x + 6] = 255
        return img, labels

    model = agent.NatureCNN(K, init=init, normalize_obs=normalize_obs)
    opt = agent.make_optimizer(model.parameters())  # RMSprop, lr 6.5e-4
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    dones = torch.ones(1, B, dtype=torch.bool)
    recent = []
    t0 = time.time()
    for _ in range(150):
        img, labels = batch(B)
        obs = torch.stack([img, torch.zeros_like(img)])  # [T+1=2, B, 4, 84, 84]
        if normalize_obs:
            model.obs_norm.update(img)
        actions, logp = agent.act(model, img)
        rewards = (actions == labels).float()
        recent = (recent + [rewards.mean().item()])[-10:]
        for _ in range(2):
            loss, _ = agent.a2c_vtrace_loss(model, obs, actions[None], logp[None],
                                            rewards[None], dones)
            agent.optimizer_step(loss, model, opt, scaler, max_grad_norm=0.5)
    with torch.no_grad():
        img, labels = batch(300)
        accuracy = (model(img)[0].argmax(-1) == labels).float().mean().item()
    print(f"bandit: accuracy {accuracy:.3f}, recent reward {sum(recent) / 10:.3f}, "
          f"{time.time() - t0:.1f}s")
    assert accuracy >= 0.9
    assert sum(recent) / len(recent) >= 0.8


# ---------------------------------------------------------------------------
# command-line smoke runs
# ---------------------------------------------------------------------------

@needs_ale
def test_smoke_run_and_resume(tmp_path):
    log_dir = str(tmp_path / "run")
    _, t1 = _run([sys.executable, SCRIPT, *TINY, "--total-frames", "2000", "--log-dir", log_dir],
                 cwd=str(tmp_path))
    files = os.listdir(log_dir)
    for name in ("progress.csv", "checkpoint.pt", "learning_curve.png"):
        assert name in files
    assert any(f.startswith("events.out.tfevents") for f in files)
    rows = _rows(log_dir)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"train", "eval"}
    ckpt1 = torch.load(os.path.join(log_dir, "checkpoint.pt"), weights_only=False)
    assert ckpt1["frames"] >= 2000 and ckpt1["updates"] > 0
    assert {"model", "optimizer", "rng_states", "args"} <= set(ckpt1)
    for r in rows:
        if r["kind"] == "eval":
            assert float(r["length_mean"]) <= 400  # --eval-max-frames cap

    # a new run pointed at this directory is refused and changes nothing
    before = open(os.path.join(log_dir, "checkpoint.pt"), "rb").read()
    proc = subprocess.run([sys.executable, SCRIPT, *TINY, "--total-frames", "500", "--log-dir", log_dir],
                          env=_env(), capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode != 0 and "already holds a run: continue it with --resume" in proc.stderr, proc.stderr
    assert open(os.path.join(log_dir, "checkpoint.pt"), "rb").read() == before and _rows(log_dir) == rows
    # a directory with a progress.csv but no checkpoint (a run killed before its first)
    # is refused without the --resume hint, which could not work there
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "progress.csv").write_text("kind,frames\n")
    proc = subprocess.run([sys.executable, SCRIPT, *TINY, "--log-dir", str(stub)], env=_env(), capture_output=True,
                          text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode != 0 and "no checkpoint to resume from" in proc.stderr, proc.stderr
    assert sorted(os.listdir(stub)) == ["progress.csv"]

    # continue the same run from its log dir to 4000 frames
    _, t2 = _run([sys.executable, SCRIPT, "--resume", log_dir, "--total-frames", "4000"],
                 cwd=str(tmp_path))
    ckpt2 = torch.load(os.path.join(log_dir, "checkpoint.pt"), weights_only=False)
    assert ckpt2["frames"] >= 4000 > ckpt1["frames"]
    assert ckpt2["updates"] > ckpt1["updates"]
    assert ckpt2["args"]["num_envs"] == 4  # settings come from the checkpoint
    rows2 = _rows(log_dir)
    assert rows2[:len(rows)] == rows  # appended, not rewritten
    frames = [float(r["frames"]) for r in rows2 if r["kind"] == "train"]
    assert frames == sorted(frames) and frames[-1] > ckpt1["frames"]
    # every run ends with a train row at its last frames (the updates since the last row)
    assert frames[-1] == ckpt2["frames"]

    # resumed with evaluations off (the checkpoint's schedule had the next one at 5000):
    # none runs, and nothing divides by the zero interval
    _, t3 = _run([sys.executable, SCRIPT, "--resume", log_dir, "--total-frames", "5200", "--eval-interval", "0"],
                 cwd=str(tmp_path))
    ckpt3 = torch.load(os.path.join(log_dir, "checkpoint.pt"), weights_only=False)
    rows3 = _rows(log_dir)
    assert ckpt3["frames"] >= 5200 and ckpt3["args"]["eval_interval"] == 0
    assert [r for r in rows3 if r["kind"] == "eval"] == [r for r in rows2 if r["kind"] == "eval"]
    # resumed with a new interval: evaluations at its multiples from here on
    _run([sys.executable, SCRIPT, "--resume", log_dir, "--total-frames", "6500", "--eval-interval", "600"],
         cwd=str(tmp_path))
    evals = [float(r["frames"]) for r in _rows(log_dir)[len(rows3):] if r["kind"] == "eval"]
    assert len(evals) >= 2 and int(evals[0]) // 600 > ckpt3["frames"] // 600
    # a resumed run keeps the checkpoint's model (weights and input scaling)
    proc = subprocess.run([sys.executable, SCRIPT, "--resume", log_dir, "--model-init", "cule"],
                          env=_env(), capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode != 0 and "--model-init cule differs from the checkpoint's orthogonal" in proc.stderr
    proc = subprocess.run([sys.executable, SCRIPT, "--resume", log_dir, "--normalize-obs"],
                          env=_env(), capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode != 0 and ("--normalize-obs differs from the checkpoint, which was trained with "
                                     "--no-normalize-obs") in proc.stderr, proc.stderr
    # resuming a run that reached its total emulates nothing and writes nothing
    rows4 = _rows(log_dir)
    _run([sys.executable, SCRIPT, "--resume", log_dir], cwd=str(tmp_path))
    assert _rows(log_dir) == rows4
    assert torch.load(os.path.join(log_dir, "checkpoint.pt"), weights_only=False)["frames"] == int(
        float(rows4[-1]["frames"]))
    # a run too short for an update still ends with a train row (its losses NaN)
    short = str(tmp_path / "short")
    _run([sys.executable, SCRIPT, *TINY, "--total-frames", "16", "--eval-interval", "0", "--log-dir", short],
         cwd=str(tmp_path))
    last = _rows(short)[-1]
    assert last["kind"] == "train" and last["updates"] == "0" and last["policy_loss"] == "nan"
    print(f"first run {t1:.1f}s, resumed runs {t2:.1f}s, {t3:.1f}s")


@needs_ale
def test_torchrun_two_processes(tmp_path):
    log_dir = str(tmp_path / "ddp")
    out, t = _run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
                   "--master_addr=127.0.0.1", f"--master_port={_free_port()}", SCRIPT, *TINY, "--total-frames", "2000",
                   "--normalize-obs", "--log-dir", log_dir], cwd=str(tmp_path))
    ckpt = torch.load(os.path.join(log_dir, "checkpoint.pt"), weights_only=False)
    assert len(ckpt["rng_states"]) == 2  # one per rank
    # 2 ranks x 4 envs x 4 frames per step
    assert ckpt["frames"] % (2 * 4 * 4) == 0 and ckpt["frames"] >= 2000
    # --normalize-obs: each observation acted on, of both ranks, counted once (frames / 4),
    # after the prior's 1e-4
    assert float(ckpt["model"]["obs_norm.count"]) == pytest.approx(1e-4 + ckpt["frames"] / 4, abs=1e-9)
    assert ckpt["args"]["normalize_obs"] is True
    assert out.count("done:") == 1  # only rank 0 reports
    assert os.path.exists(os.path.join(log_dir, "learning_curve.png"))
    print(f"torchrun run {t:.1f}s")


@pytest.mark.parametrize("flag,value,low", [("--total-frames", "-5", 1), ("--total-frames", "0", 1),
                                            ("--log-interval", "0", 1), ("--save-interval", "-1", 1),
                                            ("--eval-interval", "-1", 0), ("--max-minutes", "-2", 0)])
def test_bad_intervals_fail_before_anything_is_written(flag, value, low, tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT, flag, value, "--device", "cpu", "--log-dir", str(tmp_path / "run")],
                          env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert f"{flag} must be >= {low}" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert not os.path.exists(tmp_path / "run")


@pytest.mark.parametrize("flag", ["--eval-episodes", "--num-envs", "--num-steps"])
def test_bad_sizes_fail_before_training(flag, tmp_path):
    # A clear one-line error, not a traceback half-way through (--eval-episodes 0 used
    # to fail only at the final evaluation, after all the training).
    proc = subprocess.run([sys.executable, SCRIPT, flag, "0", "--device", "cpu", "--log-dir", str(tmp_path / "run")],
                          env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert f"{flag} must be >= 1" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("flags, message", [
    (["--lr", "-1"], "--lr must be finite and > 0.0"),
    (["--lr", "0"], "--lr must be finite and > 0.0"),
    (["--sticky-actions", "1.5"], "--sticky-actions must be finite and in [0.0, 1.0]"),
    (["--eval-sticky-actions", "-0.1"], "--eval-sticky-actions must be finite and in [0.0, 1.0]"),
    (["--entropy-coef", "nan"], "--entropy-coef must be finite"),
    (["--gamma", "2"], "--gamma must be finite and in [0.0, 1.0]"),
    (["--rho-bar", "-1"], "--rho-bar must be finite and > 0.0"),
    (["--c-bar", "inf"], "--c-bar must be finite"),
    (["--max-grad-norm", "0"], "--max-grad-norm must be finite and > 0.0"),
    (["--max-minutes", "nan"], "--max-minutes must be >= 0 and finite"),
    (["--max-minutes", "inf"], "--max-minutes must be >= 0 and finite"),
    # a device torch knows but cule's envs do not run on (was refused by the env, after the
    # log dir was written), and one torch does not know (was torch's list of device types)
    (["--device", "mps"], "--device mps: cule's envs run on cpu or cuda"),
    (["--device", "gpu"], "--device gpu: not a PyTorch device; use cpu, cuda or cuda:N"),
])
def test_bad_hyperparameters_are_refused_before_anything_runs(flags, message, tmp_path):
    with pytest.raises(SystemExit) as e:
        agent.parse_args(["--device", "cpu", "--log-dir", str(tmp_path / "run"), *flags])
    assert message in str(e.value)
    assert not (tmp_path / "run").exists()
    # The defaults themselves pass, and --help shows them (not "None" where the help
    # says what the default is).
    agent.parse_args(["--device", "cpu", "--log-dir", str(tmp_path / "ok")])
    text = agent.build_parser().format_help()
    assert "(default: 0.99)" in text and "(default: None)" not in text and "(default on)" not in text


def test_sigterm_saves_a_checkpoint_to_resume_from(tmp_path):
    # `timeout`, `kill` or a batch scheduler's notice: as Ctrl-C, a checkpoint is written
    # (not only the last save-interval's) and the run exits 143 (128 + SIGTERM).
    import signal
    import time

    log_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, SCRIPT, *TINY, "--total-frames", "100000000", "--eval-interval", "0",
                             "--save-interval", "100000000", "--log-dir", str(log_dir)],
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
    deadline = time.time() + 180
    while time.time() < deadline and not (log_dir.joinpath("progress.csv").exists() and len(_rows(str(log_dir))) >= 2):
        time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    logged = max(int(r["frames"]) for r in _rows(str(log_dir)))
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, (out, err[-2000:])
    assert "terminated at" in out and f"resume with --resume {log_dir}" in out, out
    ckpt = torch.load(log_dir / "checkpoint.pt", weights_only=False)
    assert ckpt["frames"] >= logged > 0 and ckpt["updates"] > 0


def test_an_unusable_log_dir_is_refused_before_anything_runs(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    cases = [(blocker / "run", "is a file, not a directory"), (blocker, "is a file, not a directory")]
    if os.path.isdir("/proc/self"):   # Linux: a folder where no file can be made (a read-only one alike)
        cases.append(("/proc/cule_test_run", "cannot write in /proc"))
    for log_dir, message in cases:
        with pytest.raises(SystemExit) as e:
            agent.parse_args(["--device", "cpu", "--log-dir", str(log_dir)])
        assert message in str(e.value), (log_dir, e.value)
    assert blocker.read_text() == "mine\n" and [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
