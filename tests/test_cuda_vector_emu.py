"""The GPU AtariVectorEnv (device="cuda") run through the CUDA backend's host emulation.

``cule.AtariVectorEnv(..., _emulate_cuda=True)`` drives csrc/cuda_vector_env.cuh's
kernels compiled for the host (``cule._cuda_emu``, threads run one by one over host
memory) through the device="cuda" Python path with CPU tensors.  Every step must equal
the CPU AtariVectorEnv's (itself bit-exact with ale-py, tests/test_vector_env.py):
observations, rewards, terminations, truncations and info, including ``final_obs``.
"""
import numpy as np
import pytest
import torch

from cule import AtariVectorEnv
from cule.vector_env import InvalidArgument


def pair(game, n, **kw):
    cpu = AtariVectorEnv(game, n, num_threads=2, **kw)
    emu = AtariVectorEnv(game, n, _emulate_cuda=True, **kw)
    return cpu, emu


def assert_same(a, b, where):
    assert len(a) == len(b), where
    for k, (x, y) in enumerate(zip(a[:-1], b[:-1])):
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: result {k} {x.dtype} {y.dtype}"
        assert torch.equal(x, y), f"{where}: result {k} differs in {int((x != y).sum())} elements"
    ia, ib = a[-1], b[-1]
    assert set(ia) == set(ib), f"{where}: info keys {sorted(ia)} vs {sorted(ib)}"
    for key in ia:
        assert ia[key].dtype == ib[key].dtype, f"{where}: info {key} dtype"
        assert torch.equal(ia[key], ib[key]), f"{where}: info {key}"


def lockstep(cpu, emu, steps, seed=5, action_seed=0):
    assert_same(cpu.reset(seed=seed), emu.reset(seed=seed), "reset")
    rng = np.random.default_rng(action_seed)
    ends = 0
    for t in range(steps):
        actions = rng.integers(0, cpu.single_action_space.n, cpu.num_envs)
        a, b = cpu.step(actions), emu.step(actions)
        assert_same(a, b, f"step {t}")
        ends += int((a[2] | a[3]).sum())
    return ends


CASES = {
    "pong-defaults": ("pong", 5, 60, {}),
    "breakout-defaults": ("breakout", 5, 150, {}),
    "breakout-samestep-episodic": ("breakout", 5, 150, {"autoreset_mode": "SameStep", "episodic_life": True}),
    "pong-80x70": ("pong", 4, 50, {"img_height": 80, "img_width": 70}),
    "pong-rgb": ("pong", 3, 40, {"grayscale": False}),
    "breakout-rgb-100x90": ("breakout", 3, 40, {"grayscale": False, "img_height": 100, "img_width": 90}),
    "breakout-frameskip1-nopool": ("breakout", 4, 100, {"frameskip": 1, "maxpool": False}),
    "breakout-sticky": ("breakout", 4, 100, {"repeat_action_probability": 0.25}),
    "breakout-33-envs": ("breakout", 33, 25, {}),
    "breakout-truncation-samestep": ("breakout", 4, 120,
                                     {"max_num_frames_per_episode": 200, "autoreset_mode": "SameStep"}),
    "breakout-fresh-frames": ("breakout", 4, 120, {"stale_frame_on_early_stop": False, "episodic_life": True}),
    "breakout-lifeloss-info": ("breakout", 4, 80, {"life_loss_info": True, "autoreset_mode": "SameStep",
                                                   "frameskip": 3, "stack_num": 2}),
    "pong-full-size": ("pong", 2, 15, {"img_height": 210, "img_width": 160}),
    "pong-half-size": ("pong", 2, 15, {"img_height": 105, "img_width": 80}),
    # An observation of 85 x 85 = 7,225 bytes (not a multiple of 4): k_vec_obs copies
    # bytes, not words.
    "breakout-85x85-odd-size": ("breakout", 3, 40, {"img_height": 85, "img_width": 85}),
    # The computer's turn runs frames past the 25,000-instruction limit: a screen
    # captured in such a frame is converted by the env's thread (the next frame goes on
    # drawing into its buffer), the others by k_vec_pool.
    "tic-tac-toe-3d-long-frames": ("tic_tac_toe_3d", 3, 150, {}),
    # The same with stale_frame_on_early_stop=False: the screen of such a frame is
    # copied into a history slot (kPendHist), the others stay in their frame buffers.
    "tic-tac-toe-3d-long-frames-fresh": ("tic_tac_toe_3d", 3, 150, {"stale_frame_on_early_stop": False}),
}


# Cases whose run ends episodes (so resets inside steps are compared too).
ENDING = {"breakout-defaults", "breakout-samestep-episodic", "breakout-truncation-samestep", "breakout-fresh-frames"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_emulated_cuda_vector_env_matches_cpu(case):
    game, n, steps, kw = CASES[case]
    cpu, emu = pair(game, n, **kw)
    ends = lockstep(cpu, emu, steps)
    if case in ENDING:
        assert ends > 0, "the run should end some episode (autoreset path)"


def test_partial_reset_and_unseeded_reset():
    cpu, emu = pair("breakout", 5)
    lockstep(cpu, emu, 20)
    mask = np.array([True, False, True, False, False])
    assert_same(cpu.reset(seed=[7, 8], options={"reset_mask": mask}),
                emu.reset(seed=[7, 8], options={"reset_mask": mask}), "masked reset")
    assert_same(cpu.reset(options={"reset_mask": ~mask}), emu.reset(options={"reset_mask": ~mask}),
                "unseeded masked reset")
    rng = np.random.default_rng(3)
    for t in range(20):
        actions = rng.integers(0, cpu.single_action_space.n, 5)
        assert_same(cpu.step(actions), emu.step(actions), f"after reset {t}")


@pytest.mark.parametrize("mode,kw", [("NextStep", {"episodic_life": True}), ("SameStep", {"episodic_life": True}),
                                     ("NextStep", {"continuous": True, "max_num_frames_per_episode": 240}),
                                     ("SameStep", {"stale_frame_on_early_stop": False,
                                                   "max_num_frames_per_episode": 240})])
def test_async_batches_match_cpu(mode, kw):
    """batch_size < num_envs: the kernels step only the envs handed out last, into rows
    of a stored result that recv() hands out first-in first-out, as the CPU env does
    (itself checked against ale-py, tests/test_vector_env.py)."""
    n, b = 5, 2
    cpu, emu = pair("breakout", n, batch_size=b, autoreset_mode=mode, **kw)
    assert emu.observation_space.shape == (b, 4, 84, 84) and emu.action_space.shape[0] == b
    assert_same(cpu.reset(seed=4), emu.reset(seed=4), "reset")
    rng = np.random.default_rng(3)
    ends = finals = twice = 0
    for t in range(200):
        if cpu.continuous:
            act = np.stack([rng.random(b), rng.uniform(-np.pi, np.pi, b), rng.random(b)], 1).astype(np.float32)
        else:
            act = rng.integers(0, 4, b)
        if t in (170, 171):
            # A reset while results wait (once after a send): those results are handed
            # out first, and spill rows hold an env's second waiting result.
            if t == 171:
                cpu.send(act)
                emu.send(act)
            assert_same(cpu.reset(), emu.reset(), f"reset at {t}")
            continue
        # A tensor on the env's device (checked there) every other step.
        ra, rc = cpu.step(act), emu.step(torch.from_numpy(act) if t % 2 and not cpu.continuous else act)
        assert_same(ra, rc, f"step {t}")
        if t < 170:
            assert rc[4]["env_id"].tolist() == [(b * (t + 1) + k) % n for k in range(b)]
        twice += len(set(rc[4]["env_id"].tolist())) < b
        ends += int((ra[2] | ra[3]).sum())
        finals += "final_obs" in ra[4]
    assert ends > 0 and twice > 0    # (an env handed out twice in a batch: its steps in turn)
    assert (finals > 0) == (mode == "SameStep")
    with pytest.raises(ValueError):
        emu.step(np.zeros(n, np.int64))
    with pytest.raises(ValueError, match="asynchronous"):
        emu.reset(options={"reset_mask": np.array([True, False, False, False, False])})


def test_async_bad_tensor_actions_change_nothing():
    """Out-of-range indices in a device tensor: that step changes nothing (the envs
    handed out next are those the FIFO holds), the ValueError comes from the next call,
    and the envs of the bad step hand out their previous results again."""
    n, b = 4, 2
    cpu, emu = pair("pong", n, batch_size=b)
    assert_same(cpu.reset(seed=1), emu.reset(seed=1), "reset")
    act = np.array([1, 2])
    assert_same(cpu.step(act), emu.step(act), "step 0")        # envs 0, 1 stepped; 2, 3 out
    before = cpu.step(act)                                      # envs 2, 3 stepped; 0, 1 out
    emu.step(act)
    bad = emu.step(torch.tensor([0, 9]))                        # envs 0, 1: nothing changes
    assert bad[4]["env_id"].tolist() == [2, 3]
    with pytest.raises(ValueError, match="action space"):
        emu.step(act)
    # The FIFO went on: envs 0, 1 are handed out next, with their results of step 1.
    again = emu.step(act)                                        # envs 2, 3 stepped
    assert again[4]["env_id"].tolist() == [0, 1]
    assert_same(before, again, "previous results again")


@pytest.mark.parametrize("emulate_cuda", [False, True])
def test_async_step_after_a_restore_into_a_fresh_env_asks_for_a_reset(emulate_cuda):
    """The FIFO of waiting results is not in a snapshot: an asynchronous env that has
    handed out no batch yet refuses a step (it used to take the actions for every env on
    the CPU, and read past the actions on the CUDA path) until it is reset."""
    src = AtariVectorEnv("breakout", 5, batch_size=2, _emulate_cuda=emulate_cuda)
    src.reset(seed=1)
    src.step(np.array([1, 1]))
    fresh = AtariVectorEnv("breakout", 5, batch_size=2, _emulate_cuda=emulate_cuda)
    fresh.restore_state(src.clone_state())
    with pytest.raises(RuntimeError, match="call reset"):
        fresh.step(np.array([1, 1]))
    fresh.reset(seed=1)
    assert fresh.step(np.array([1, 1]))[4]["env_id"].tolist() == [2, 3]


def test_results_are_tensors_on_the_env_device():
    emu = AtariVectorEnv("pong", 3, _emulate_cuda=True)
    obs, info = emu.reset(seed=0)
    assert obs.shape == (3, 4, 84, 84) and obs.dtype == torch.uint8
    obs, rew, term, trunc, info = emu.step(torch.zeros(3, dtype=torch.int64))
    assert rew.dtype == torch.int32 and term.dtype == torch.bool and trunc.dtype == torch.bool
    assert sorted(info) == ["env_id", "episode_frame_number", "frame_number", "lives"]
    assert all(t.device == emu.device for t in (obs, rew, term, trunc, *info.values()))


def test_bad_host_actions_raise_at_once_and_change_nothing():
    cpu, emu = pair("pong", 3)
    assert_same(cpu.reset(seed=0), emu.reset(seed=0), "reset")
    with pytest.raises(InvalidArgument, match="action 99 is outside the action space"):
        emu.step(np.array([0, 1, 99]))
    with pytest.raises(InvalidArgument, match=r"shape \(3,\)"):
        emu.step(np.array([0, 1]))
    with pytest.raises(TypeError, match="got NoneType"):
        emu.step(None)
    actions = np.array([1, 2, 3])
    assert_same(cpu.step(actions), emu.step(actions), "after the bad steps")


def test_tensor_actions_are_checked_on_the_device():
    """A tensor on the env's device is checked by a kernel: a bad index makes the step
    change nothing and raises on the next call (no host synchronisation)."""
    cpu, emu = pair("pong", 3)
    assert_same(cpu.reset(seed=2), emu.reset(seed=2), "reset")
    actions = torch.tensor([1, 2, 3])
    assert_same(cpu.step(actions), emu.step(actions), "tensor actions")
    emu.step(torch.tensor([0, 1, 99]))          # queued; nothing changes
    with pytest.raises(InvalidArgument, match="action space"):
        emu.step(actions)
    assert_same(cpu.step(actions), emu.step(actions), "after the bad step")


def test_clone_restore_moves_between_cpu_and_emulated_cuda():
    kw = {"stale_frame_on_early_stop": False, "autoreset_mode": "SameStep", "episodic_life": True}
    cpu, emu = pair("breakout", 4, **kw)
    lockstep(cpu, emu, 30)
    cs, es = cpu.clone_state(), emu.clone_state()
    assert set(cs["vector"]) == set(es["vector"]) == {"slots", "raw", "stack", "hist"}
    for k in cs["vector"]:
        assert torch.equal(cs["vector"][k], es["vector"][k]), k
    rng = np.random.default_rng(9)
    actions = [rng.integers(0, cpu.single_action_space.n, 4) for _ in range(40)]
    ref = [cpu.step(a) for a in actions]
    for source in (cs, es):
        for env in (cpu, emu):
            env.restore_state(source)
            for t, a in enumerate(actions):
                assert_same(ref[t], env.step(a), f"after restore, step {t}")
