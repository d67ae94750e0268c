"""cule.Atari save / restore (clone_state, restore_state) and reload(seeds)."""
import io

import numpy as np
import pytest
import torch

import cule


def _snapshot(emu):
    return (emu.ram.clone(), emu.screen_rgb().clone(), emu.lives.clone(), emu.terminated.clone(),
            emu.truncated.clone(), emu.episode_frame_number.clone(), emu.frame_number.clone())


def _run(emu, actions):
    out = []
    for a in actions:
        r = emu.act(a)
        done = (emu.terminated | emu.truncated).nonzero().flatten()
        if len(done):
            emu.reset(done)
        out.append((r.clone(),) + _snapshot(emu))
    return out


@pytest.mark.parametrize("game", cule.list_games())
def test_clone_step_restore_step_is_bit_identical(game):
    # Sticky actions (0.25) make the environment RNG part of the state.
    emu = cule.Atari(game, 2, seed=11, frameskip=4, repeat_action_probability=0.25, num_threads=1)
    n = len(emu.action_set)
    rng = np.random.default_rng(0)
    ok = 0
    for trial in range(10):
        _run(emu, [emu.action_set[torch.from_numpy(rng.integers(0, n, 2))] for _ in range(int(rng.integers(1, 10)))])
        state = emu.clone_state()
        actions = [emu.action_set[torch.from_numpy(rng.integers(0, n, 2))] for _ in range(15)]
        first = _run(emu, actions)
        after_first = emu.clone_state()
        emu.restore_state(state)
        second = _run(emu, actions)
        for x, y in zip(first, second):
            for u, v in zip(x, y):
                assert torch.equal(u, v)
        assert torch.equal(after_first["consoles"], emu.clone_state()["consoles"])
        ok += 1
    assert ok == 10


def test_state_saves_to_disk_and_restores_in_a_new_emulator(tmp_path):
    emu = cule.Atari("breakout", 2, seed=3, frameskip=4, repeat_action_probability=0.25, num_threads=1)
    for t in range(30):
        emu.act(torch.tensor([1, 3]))
    state = emu.clone_state()
    path = tmp_path / "state.pt"
    torch.save(state, path)
    loaded = torch.load(path, weights_only=True)
    buf = io.BytesIO()
    np.save(buf, state["consoles"].numpy())
    buf.seek(0)
    assert np.array_equal(np.load(buf), state["consoles"].numpy())

    other = cule.Atari("breakout", 2, seed=99, frameskip=4, repeat_action_probability=0.25, num_threads=1)
    other.restore_state(loaded)
    actions = [torch.tensor([t % 4, (t * 3) % 4]) for t in range(40)]
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[2], b[2]) for a, b in zip(_run(emu, actions),
                                                                                 _run(other, actions)))


def test_restore_subset_of_envs():
    emu = cule.Atari("pong", 4, seed=0, num_threads=1)
    for _ in range(50):
        emu.act(torch.tensor([2, 3, 4, 5]))
    part = emu.clone_state([1, 3])
    ram = emu.ram.clone()
    for _ in range(20):
        emu.act(torch.tensor([2, 3, 4, 5]))
    emu.restore_state(part)                       # back into envs 1 and 3
    assert torch.equal(emu.ram[[1, 3]], ram[[1, 3]])
    emu.restore_state(part, env_ids=[0, 2])       # copies of envs 1 and 3 into 0 and 2
    assert torch.equal(emu.ram[[0, 2]], ram[[1, 3]])


@pytest.mark.parametrize("backend", ["cpu", "cuda_emulated"])
def test_restore_rejects_foreign_or_malformed_states(backend):
    # Both backends (the CUDA one through its host emulation): a clear ValueError, and
    # the consoles and frame buffers stay as they were.
    if backend == "cpu":
        kw = {"num_threads": 1}
    else:
        pytest.importorskip("cule._cuda_emu")
        kw = {"_emulate_cuda": True}
    pong = cule.Atari("pong", 2, seed=0, **kw)
    breakout = cule.Atari("breakout", 2, seed=0, **kw)
    pong.act(torch.tensor([3, 4]))
    before = pong.clone_state()
    with pytest.raises(ValueError):
        pong.restore_state(breakout.clone_state())
    with pytest.raises(ValueError):
        pong.restore_state({"format": "x"})
    with pytest.raises(ValueError):
        pong.restore_state(pong.clone_state([0]), env_ids=[0, 1])
    with pytest.raises(ValueError):
        pong.restore_state(pong.clone_state(), env_ids=[1, 1])
    bad = pong.clone_state()
    bad["consoles"] = bad["consoles"][:, :-1]
    with pytest.raises(ValueError):
        pong.restore_state(bad)
    # Bytes that are not a console (random garbage could make the emulator loop or write
    # past its buffers), one changed byte, or rows swapped with another snapshot's: the
    # digest does not match.
    g = torch.Generator().manual_seed(0)
    junk = dict(pong.clone_state(), consoles=torch.randint(0, 256, before["consoles"].shape, dtype=torch.uint8,
                                                           generator=g))
    with pytest.raises(ValueError, match=r"2 row\(s\) \(0, 1\) do not match their digest"):
        pong.restore_state(junk)
    flipped = pong.clone_state()
    flipped["consoles"] = flipped["consoles"].clone()
    flipped["consoles"][1, 200] ^= 1
    with pytest.raises(ValueError, match=r"1 row\(s\) \(1\) do not match their digest"):
        pong.restore_state(flipped)
    other = cule.Atari("pong", 2, seed=9, **kw).clone_state()
    with pytest.raises(ValueError, match="digest"):
        pong.restore_state(dict(other, digest=before["digest"]))
    with pytest.raises(ValueError, match="missing digest"):
        pong.restore_state({k: v for k, v in before.items() if k != "digest"})
    with pytest.raises(ValueError, match="ROM of MD5 '0+'"):
        pong.restore_state(dict(before, md5="0" * 32))
    # Edited frame buffers (pixels the next observation may pool, and what screen_rgb
    # shows until the next frame) fail their own digest.
    painted = pong.clone_state()
    painted["frame_buffers"] = painted["frame_buffers"].clone()
    painted["frame_buffers"][0, :1000] = 0x55
    with pytest.raises(ValueError, match=r"state frame buffers: 1 row\(s\) \(0\) do not match"):
        pong.restore_state(painted)
    # Frame buffers of another snapshot, with their own digest: refused (the digest is
    # tied to the console); a digest that is not an array is a ValueError too.
    later = cule.Atari("pong", 2, seed=0, **kw)
    later.act(torch.tensor([3, 4]))
    later.act(torch.tensor([1, 1]))
    other_state = later.clone_state()
    mixed = dict(pong.clone_state(), frame_buffers=other_state["frame_buffers"],
                 frame_buffer_digest=other_state["frame_buffer_digest"])
    with pytest.raises(ValueError, match="state frame buffers"):
        pong.restore_state(mixed)
    for bad in (None, "x"):
        with pytest.raises(ValueError, match="digest must be int64"):
            pong.restore_state(dict(before, digest=bad))
    with pytest.raises(ValueError):
        pong.clone_state([5])
    with pytest.raises(ValueError, match="duplicates"):
        pong.clone_state([0, 0])    # a snapshot restore_state could not put back
    after = pong.clone_state()
    assert torch.equal(before["consoles"], after["consoles"])
    assert torch.equal(before["frame_buffers"], after["frame_buffers"])
    empty = pong.clone_state(np.zeros(0, dtype=np.int64))
    assert empty["consoles"].shape == (0, before["console_state_bytes"])


def test_reload_equals_a_fresh_emulator():
    emu = cule.Atari("space_invaders", 2, seed=0, repeat_action_probability=0.25, num_threads=1)
    for _ in range(30):
        emu.act(torch.tensor([1, 3]))
    emu.reload([123, 2**32 - 5])
    fresh_a = cule.Atari("space_invaders", 1, seed=123, repeat_action_probability=0.25, num_threads=1)
    fresh_a_state = cule.Atari("space_invaders", 1, seed=123, num_threads=1).clone_state()["consoles"][0]
    assert torch.equal(emu.clone_state([0])["consoles"], fresh_a.clone_state()["consoles"])
    for _ in range(20):
        emu.act(torch.tensor([1, 1]))
        fresh_a.act(torch.tensor([1]))
    assert torch.equal(emu.ram[0], fresh_a.ram[0])
    # A subset reload leaves the other consoles as they were.
    before = emu.clone_state([1])
    emu.reload(7, env_ids=[0])
    assert torch.equal(emu.clone_state([1])["consoles"], before["consoles"])
    with pytest.raises(ValueError):
        emu.reload([-1, 0])
    with pytest.raises(ValueError, match="duplicates"):
        emu.reload([3, 4], env_ids=[0, 0])
    # Seeds pair with env_ids in the order given; an int seed goes to the ids in order.
    three = cule.Atari("space_invaders", 3, seed=0, num_threads=1)
    three.reload([123, 5], env_ids=[2, 0])
    assert three.seeds.tolist() == [5, 1, 123]
    assert torch.equal(three.clone_state([2])["consoles"][0], fresh_a_state)
    three.reload(40, env_ids=[2, 1])
    assert three.seeds.tolist() == [5, 40, 41]
    three.reload(torch.tensor(8), env_ids=[0])       # a 0-d integer tensor / array is an int
    three.reload(np.array(9), env_ids=[1])
    three.reload([], env_ids=[])
    assert three.seeds.tolist() == [8, 9, 41]


def test_snapshots_saved_before_the_frame_buffer_digest_still_restore():
    # Snapshots saved by earlier builds have no frame_buffer_digest: restored as before.
    emu = cule.Atari("pong", 2, seed=0, num_threads=1)
    emu.act(torch.tensor([3, 4]))
    old = emu.clone_state()
    del old["frame_buffer_digest"]
    emu.act(torch.tensor([1, 1]))
    emu.restore_state(old)
    assert torch.equal(emu.clone_state()["consoles"], old["consoles"])


def test_digest_is_the_documented_checksum():
    # cule.atari._row_digests, recomputed here from its documented formula in plain
    # Python: bytes as little-endian 32-bit words (zero-padded), weight i = the top 16 bits
    # of SplitMix64(i + 1), made odd, summed.  A snapshot saved today must still restore
    # with a later build, so the formula may not drift; a row starting inside a word
    # (a view at an odd offset) is handled too.
    from cule.atari import _row_digests

    def splitmix(x):
        m = (1 << 64) - 1
        z = (x * 0x9E3779B97F4A7C15) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return z ^ (z >> 31)

    def expected(row):
        data = bytes(row) + b"\0" * (-len(row) % 4)
        words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]
        return sum(w * ((splitmix(i + 1) >> 48) | 1) for i, w in enumerate(words))

    rng = np.random.default_rng(5)
    buf = torch.from_numpy(rng.integers(0, 256, 3 * 4099 + 1, dtype=np.uint8))
    rows = buf[1:].view(3, 4099)            # odd storage offset, a row length not a multiple of 4
    got = _row_digests(rows)
    assert got.dtype == torch.int64 and got.tolist() == [expected(r.tolist()) for r in rows]
    full = torch.full((1, 131072), 255, dtype=torch.uint8)   # the largest sum stays below 2**63
    assert _row_digests(full).item() == expected([255] * 131072) < 2**63


# ---- ALE's restoreState semantics (restore_state(..., ale_semantics=True)) ----

ale_harness = pytest.importorskip("ale_harness")
run_clone_restore_lockstep = ale_harness.run_clone_restore_lockstep

@pytest.mark.parametrize("env_id", ["Breakout-v5", "MsPacman-v5", "Pitfall2-v5", "TicTacToe3D-v5", "Berzerk-v5"])
@pytest.mark.parametrize("include_rng", [False, True])
def test_gym_clone_restore_matches_ale_py(env_id, include_rng):
    # ALE's restoreState keeps the sticky action, the screen until the next frame, the
    # TIA's partial-frame flag (tic_tac_toe_3d's long frames) and, without include_rng,
    # the sticky-action RNG; cule.AtariEnv restores the same way.
    err, stats = run_clone_restore_lockstep(env_id, include_rng, 400)
    assert err is None, err
    assert stats["restores"] >= 10


def test_gym_clone_restore_with_continuous_actions_matches_ale_py():
    # Continuous actions (paddle strength = radius; ALE keeps the last strength while an
    # action sticks) under clones and restores: kaboom's paddle, breakout's joystick.
    for env_id in ("Kaboom-v5", "Breakout-v5"):
        err, stats = run_clone_restore_lockstep(env_id, False, 300, env_kw={"continuous": True})
        assert err is None, (env_id, err)
        assert stats["restores"] >= 5


def test_default_restore_differs_from_ales():
    # The default restore brings everything back (the snapshot's future), which is not
    # what ALE's restoreState does: the same run with it differs from ale-py.
    import cule.gym_env as ge

    # (The env's states leave the frame buffers out, which only ALE's restore takes:
    # the states of this run keep them.)
    orig = ge.AtariEnv.restore_state, ge.AtariEnv.clone_state
    try:
        ge.AtariEnv.restore_state = lambda self, state: self.atari.restore_state(state)
        ge.AtariEnv.clone_state = lambda self, include_rng=False: cule.ALEState(
            self.atari.clone_state(include_rng=include_rng))
        assert run_clone_restore_lockstep("Breakout-v5", True, 200)[0] is not None
    finally:
        ge.AtariEnv.restore_state, ge.AtariEnv.clone_state = orig


def _restored_like_ale(game, before, after, include_rng=False):
    """Clone after `before` acts, act `after` more, restore with ale_semantics: the debug
    view of (the clone, the console just before the restore, the restored console)."""
    emu = cule.Atari(game, 1, seed=5, frameskip=4, num_threads=1)
    rng = np.random.default_rng(0)
    n = len(emu.action_set)
    for _ in range(before):
        emu.act(emu.action_set[rng.integers(n, size=1)])
    st = emu.clone_state(include_rng=include_rng)
    snap = emu._batch.debug_state(0)
    for _ in range(after):
        emu.act(emu.action_set[rng.integers(n, size=1)])
    was = emu._batch.debug_state(0)
    emu.restore_state(st, ale_semantics=True)
    return snap, was, emu._batch.debug_state(0)


def test_ale_semantics_fields_ale_saves_lossily_or_not_at_all():
    # Facts from ALE 0.12.1's save/load methods (see ale_restore_state in csrc/ale_env.hpp).
    true_pattern, false_pattern = 0xFAB1FAB2 - 2**32, 0xBAD1BAD2 - 2**32   # Serializer's bool markers
    snap, was, now = _restored_like_ale("miniature_golf", 300, 10)
    assert snap["aux"] != (0, 0, 0, 0)
    assert now["aux"] == tuple(true_pattern if x else false_pattern for x in snap["aux"])
    assert now["score"] == (true_pattern if snap["score"] else false_pattern)
    snap, was, now = _restored_like_ale("pitfall2", 100, 10)
    assert 0 < snap["dpc_frac_clocks"] < 1
    assert now["dpc_frac_clocks"] == int(snap["dpc_frac_clocks"] * 1e8) / 1e8   # (uint32) (x * 1e8)
    snap, was, now = _restored_like_ale("atlantis2", 5, 600)   # lost its lives in between
    assert snap["lives"] != was["lives"] and now["lives"] == was["lives"]
    # What ALE saves comes back; the sticky action and frame buffers do not.
    snap, was, now = _restored_like_ale("breakout", 40, 7)
    for k in ("pc", "a", "x", "y", "sp", "p", "cycles", "timer", "posp0", "posbl", "collision", "lives"):
        assert now[k] == snap[k], k
    assert now["action_a"] == was["action_a"] and now["cur_buf"] == was["cur_buf"]


def test_restore_state_rejects_bad_flags():
    emu = cule.Atari("pong", 1)
    with pytest.raises(ValueError, match="include_rng"):
        emu.clone_state(include_rng="yes")
    st = emu.clone_state()
    with pytest.raises(ValueError, match="ale_semantics"):
        emu.restore_state(st, ale_semantics=1)
    # Arrays that are not numbers: ValueError too, nothing restored.
    with pytest.raises(ValueError, match="malformed"):
        emu.restore_state(dict(st, consoles=["a"]))
    # The Gymnasium env: a TypeError as ale-py's binding raises (ALETypeError is also a
    # ValueError and a gymnasium.error.Error).
    import gymnasium as gym
    env = gym.make("cule/Pong-v5").unwrapped
    for bad in (1, None, "x"):
        with pytest.raises(TypeError, match="include_rng"):
            env.clone_state(include_rng=bad)


def test_ale_semantics_restore_is_the_same_through_the_cuda_backend_code():
    # The CUDA backend's export / import (here its host emulation) with the host merge
    # gives the CPU backend's consoles.
    out = []
    for kw in ({}, {"_emulate_cuda": True}):
        emu = cule.Atari("tic_tac_toe_3d", 2, seed=3, frameskip=4, num_threads=1, **kw)
        rng = np.random.default_rng(1)
        acts = emu.action_set[torch.from_numpy(rng.integers(len(emu.action_set), size=(120, 2)))]
        for a in acts[:40]:
            emu.act(a)
        st = emu.clone_state(include_rng=False)
        for a in acts[40:80]:
            emu.act(a)
        emu.restore_state(st, ale_semantics=True)
        for a in acts[80:]:
            emu.act(a)
        s = emu.clone_state()
        out.append((s["consoles"].cpu(), s["frame_buffers"].cpu()))
    assert torch.equal(out[0][0], out[1][0]) and torch.equal(out[0][1], out[1][1])


def test_gym_restore_judges_truncation_by_the_restoring_env():
    # ALE derives truncation from the restored episode frame number and its own
    # max_num_frames_per_episode: a state moved between envs with other limits.
    import gymnasium as gym

    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    seen = {}
    for ns in ("ALE", "cule"):
        src = gym.make(f"{ns}/Breakout-v5").unwrapped
        src.reset(seed=1)
        for _ in range(60):
            src.step(1)
        dst = gym.make(f"{ns}/Breakout-v5", max_num_frames_per_episode=100).unwrapped
        dst.reset(seed=1)
        dst.restore_state(src.clone_state())
        lim = gym.make(f"{ns}/Breakout-v5", max_num_frames_per_episode=100).unwrapped
        lim.reset(seed=1)
        for _ in range(30):
            lim.step(1)
        free = gym.make(f"{ns}/Breakout-v5").unwrapped
        free.reset(seed=1)
        free.restore_state(lim.clone_state())
        seen[ns] = (dst.ale.game_truncated(), dst.ale.game_over(), free.ale.game_truncated(), free.ale.game_over())
    assert seen["cule"] == seen["ALE"] == (True, True, False, False)


def test_gym_restore_takes_a_one_console_snapshot_of_any_batch():
    import gymnasium as gym

    env = gym.make("cule/Breakout-v5").unwrapped
    env.reset(seed=0)
    batch = cule.Atari("breakout", 4, seed=9)
    for _ in range(30):
        batch.act(torch.full((4,), 3))
    env.restore_state(batch.clone_state([3]))
    assert np.array_equal(env.ale.getRAM(), batch.ram[3].numpy())
    with pytest.raises(ValueError, match="state holds 2 consoles; this env has one"):
        env.restore_state(batch.clone_state([1, 2]))
    assert np.array_equal(env.ale.getRAM(), batch.ram[3].numpy())
    s = env.clone_state()
    s["include_rng"] = "no"
    with pytest.raises(ValueError, match="include_rng"):
        env.restore_state(s)


# Facts of ALE 0.12.1's save/load that play differently after a restore, each as a call
# list run on cule.ALEInterface and on ale-py's (the golden): ("clone", include_rng),
# ("poke", index, value) = setRAM, ("act", action id), ("restore", k) = the k-th clone.
RESTORE_CASES = {
    # HangmanSettings / VideoCubeSettings do not save m_timerArray, the last timer byte
    # read: a timer that wrapped from 255 before the restore and reads 0 after it ends
    # the game in ALE (RAM 0xF1 / 0xDB; setRAM's index is the offset from 0x80).
    "hangman": (0, [("clone", False), ("poke", 0x71, 255), ("act", 0), ("restore", 0),
                    ("poke", 0x71, 0), ("act", 0), ("act", 0)]),
    "video_cube": (0, [("clone", False), ("poke", 0x5B, 255), ("act", 0), ("restore", 0),
                       ("poke", 0x5B, 0), ("act", 0), ("act", 0)]),
    # CartridgeE0::load reads the slice numbers but leaves the pages mapped as they were:
    # after the restore the CPU runs the slices selected before it (here a poke sends the
    # program through other slices first) until it next touches a hotspot.
    "tutankham": (0, [("clone", True), ("poke", 7, 220), ("act", 0), ("restore", 0)] + [("act", 0)] * 20),
}


@pytest.mark.parametrize("game", sorted(RESTORE_CASES))
def test_restore_keeps_what_ales_load_does_not_restore(game):
    seed, script = RESTORE_CASES[game]
    err, game_overs, _ = ale_harness.replay_calls(game, seed, script)
    assert err is None, err
    # The cases reach what they are about: the timed-out game ends; the E0 program runs.
    assert game_overs == (0 if game == "tutankham" else 1)


def test_a_restore_that_runs_the_frame_pointer_past_the_buffer_writes_nothing_outside():
    # ALE's restoreState keeps the TIA's frame pointer from before the restore while the
    # clocks come from the snapshot.  tetris cloned two frames in, reset and restored
    # draws its next frame from the middle of the buffer on, past the end: ale-py 0.12.1
    # writes out of bounds there (heap corruption; tetris seed 1, frame_skip 1: the
    # process aborts).  cule keeps the pointer too but writes no pixel past the end, so
    # the other console of the batch, whose frame buffers follow, is untouched.
    def run(restore):
        emu = cule.Atari("tetris", 2, seed=1, frameskip=1, repeat_action_probability=0.0, num_threads=1)
        noop = torch.zeros(2, dtype=torch.long)
        emu.act(noop)
        emu.act(noop)
        st = emu.clone_state(env_ids=[0])
        if restore:
            emu.reset(env_ids=[0])
            emu.restore_state(st, env_ids=[0], ale_semantics=True)
        furthest, other = 0, []
        for _ in range(5):
            emu.act(noop)
            furthest = max(furthest, emu._batch.debug_state(0)["fb_pos"])
            consoles, frame_buffers = emu._batch.state_views()
            other.append((consoles[1].copy(), frame_buffers[1].copy()))   # both its buffers
        return furthest, other

    plain, restored = run(False), run(True)
    buffer_bytes = cule.build_info()["frame_buffer_bytes"] // 2
    assert plain[0] <= buffer_bytes < restored[0]        # the pointer did run past the end
    for t, ((c0, f0), (c1, f1)) in enumerate(zip(plain[1], restored[1])):
        assert np.array_equal(c0, c1) and np.array_equal(f0, f1), f"act {t}"
