"""The reset_game memo (csrc/ale_env.hpp).

A reset whose console, a couple of frames after the system reset, equals the one a
recorded reset had there takes that reset's end state instead of emulating the rest.
The resets that follow a power-on (loading, reseeding) record into slots of their own,
and the backends run one console's first, so that the batch's others take it.
The golden values are the same runs with the memo off (``CULE_RESET_MEMO=0``), whose
resets emulate every frame as ALE does (tests/test_parity.py holds that path, and with
the memo on, to ALE itself): consoles, frame buffers, counters and rewards must be
identical after every reset, and the memo must actually have been used.
"""
import numpy as np
import pytest
import torch

import cule


def memo_stats(batch):
    """All four memo slots as (state, hits): the running games' two, then the two of the
    resets that follow a power-on ([] with the memo off)."""
    return batch.reset_memo_stats() + batch.power_on_memo_stats()


def run(game, memo, monkeypatch, steps=400, n=6, set_difficulty_at=None, **kw):
    """Random play with resets of the envs whose episode ended; a snapshot after every
    reset.  Returns (snapshots, rewards, memo stats (memo_stats), envs reset)."""
    monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
    kw.setdefault("max_num_frames_per_episode", 1200)
    kw.setdefault("frameskip", 4)
    # One thread: the first reset records before the next one looks (with more threads,
    # resets running beside the recording one run in full).
    e = cule.Atari(game, n, seed=5, repeat_action_probability=0.25, num_threads=1, **kw)
    gen = torch.Generator().manual_seed(1)
    snaps, rewards, resets = [], [], 0
    for t in range(steps):
        if t == set_difficulty_at:
            e.set_difficulty(1)
        rewards.append(e.act(e.action_set[torch.randint(len(e.action_set), (n,), generator=gen)]).clone())
        done = (e.terminated | e.truncated).nonzero().flatten()
        if len(done):
            resets += len(done)
            e.reset(done)
            s = e.clone_state()
            snaps.append((t, s["consoles"].clone(), s["frame_buffers"].clone()))
    return snaps, torch.stack(rewards), memo_stats(e._batch), resets


def assert_same_runs(a, b):
    snaps_a, rewards_a = a[0], a[1]
    snaps_b, rewards_b = b[0], b[1]
    assert torch.equal(rewards_a, rewards_b)
    assert len(snaps_a) == len(snaps_b) and len(snaps_a) > 0
    for (t, ca, fa), (_, cb, fb) in zip(snaps_a, snaps_b):
        assert torch.equal(ca, cb), f"step {t}: consoles after the reset differ"
        assert torch.equal(fa, fb), f"step {t}: frame buffers after the reset differ"


def vector_run(game, memo, monkeypatch, p, emulate=False, n=8, steps=250, max_frames=400, reseed_at=None, **kw):
    """AtariVectorEnv with random actions (NEXT_STEP autoresets unless kw says otherwise).
    Returns (every step's outputs and the final consoles and frame buffers, (reset_game
    memo stats, noop-start memo stats))."""
    monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
    env = cule.AtariVectorEnv(game, n, max_num_frames_per_episode=max_frames, repeat_action_probability=p,
                              _emulate_cuda=emulate, **kw)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    out = [np.asarray(obs).copy()]
    for t in range(steps):
        if t == reseed_at:
            obs, info = env.reset(seed=11)
            out += [np.asarray(obs).copy(), np.asarray(info["frame_number"]).copy()]
        obs, r, term, trunc, info = env.step(rng.integers(env.single_action_space.n, size=n))
        out += [np.asarray(x).copy() for x in (obs, r, term, trunc, info["lives"], info["frame_number"],
                                                info["episode_frame_number"])]
    state = env.atari.clone_state()
    out += [state["consoles"].numpy().copy(), state["frame_buffers"].numpy().copy()]
    b = env.atari._batch
    stats = (memo_stats(b), b.start_memo_stats())
    env.close()
    return out, stats


def assert_same_vector_runs(on, off):
    assert len(on) == len(off)
    for i, (a, b) in enumerate(zip(on, off)):
        assert np.array_equal(a, b), f"item {i} of {len(on)}"


@pytest.mark.parametrize("game", ["pong", "breakout", "seaquest", "ms_pacman"])
def test_memo_resets_equal_full_resets(game, monkeypatch):
    on = run(game, True, monkeypatch)
    off = run(game, False, monkeypatch)
    assert off[2] == []   # off: no memo at all
    resets = on[3]
    hits = sum(h for _, h in on[2])
    # Loading runs console 0's power-on and reset first: it records the first power-on
    # slot, and the other 5 consoles' resets take it.  The later resets take it too
    # where their console at the checkpoint is the power-on's (pong, ms_pacman clear
    # their RAM); elsewhere the first of them records a slot of its own (it runs in
    # full) and the others take that.
    assert on[2][2][0] == 2 and on[2][2][1] >= 5, on[2]
    assert hits >= 5 + resets - 1 and resets > 0, (resets, on[2])
    assert_same_runs(on, off)


def test_a_different_console_misses_and_records_its_own_slot(monkeypatch):
    # Difficulty B -> A half-way: the switches differ at the checkpoint, so the first
    # reset after the change must not take the recorded end state (the power-on slot's,
    # which pong's resets take before the change: it would be the wrong game), and it
    # records a slot of the running games' class.
    on = run("pong", True, monkeypatch, steps=500, set_difficulty_at=250, max_num_frames_per_episode=800)
    off = run("pong", False, monkeypatch, steps=500, set_difficulty_at=250, max_num_frames_per_episode=800)
    assert [s for s, _ in on[2]] == [2, 0, 2, 0], on[2]
    assert on[2][0][1] > 0 and on[2][2][1] > 5, on[2]
    assert_same_runs(on, off)


def test_render_off_and_other_frameskip_record_their_own_runs(monkeypatch):
    for kw in ({"render": False}, {"frameskip": 3}):
        on = run("breakout", True, monkeypatch, steps=300, **kw)
        off = run("breakout", False, monkeypatch, steps=300, **kw)
        assert sum(h for _, h in on[2]) > 0, on[2]
        assert_same_runs(on, off)


def test_emulated_cuda_backend_uses_the_memo_and_matches(monkeypatch):
    # The kernels' memo path (csrc/cuda_backend.cu: the batch's memo in device memory,
    # claimed with atomics), through the host emulation of CUDA.
    emu = run("breakout", True, monkeypatch, steps=300, n=5, _emulate_cuda=True)
    off = run("breakout", False, monkeypatch, steps=300, n=5)
    assert sum(h for _, h in emu[2]) > 0, emu[2]
    assert_same_runs(emu, off)


@pytest.mark.parametrize("emulate", [False, True])
def test_vector_env_autoresets_match(emulate, monkeypatch):
    # AtariVectorEnv's autoresets (NEXT_STEP) run reset_game with the memo, then the
    # noop starts; observations, rewards and flags must be those of full resets.
    kw = dict(emulate=emulate, n=4, steps=300, max_frames=2000)
    on, (stats, _) = vector_run("breakout", True, monkeypatch, 0.25, **kw)
    off, (stats_off, _) = vector_run("breakout", False, monkeypatch, 0.25, **kw)
    steps = on[1:-2]   # per step: obs, reward, terminated, truncated, lives, frame numbers
    ends = int(sum(np.asarray(x).sum() for x in steps[2::7]) + sum(np.asarray(x).sum() for x in steps[3::7]))
    assert ends > 2 and stats_off == []
    assert sum(h for _, h in stats) > 0, stats
    assert_same_vector_runs(on, off)


@pytest.mark.parametrize("game", ["kung_fu_master", "haunted_house"])
def test_consoles_that_differ_at_the_checkpoint_run_in_full(game, monkeypatch):
    # These games' consoles two frames into a reset still hold something of the episode
    # before (RAM they keep), so no two resets look alike there: both slots get recorded
    # and never used, and every reset runs in full.  A memo that compared less than the
    # whole console would take a wrong end state here.
    # (Loading, whose consoles all power on alike, still shares one recording.)
    on = run(game, True, monkeypatch, steps=600, n=4, max_num_frames_per_episode=600)
    off = run(game, False, monkeypatch, steps=600, n=4, max_num_frames_per_episode=600)
    assert on[3] >= 8 and on[2] == [(2, 0), (2, 0), (2, 3), (0, 0)], on[2:]
    assert_same_runs(on, off)


@pytest.mark.parametrize("game", ["berzerk", "double_dunk"])
def test_a_reset_that_draws_from_an_rng_is_not_memoised(game, monkeypatch):
    # Their mode selection acts with sticky actions (ALE's act() draws from the env RNG)
    # after the checkpoint: the recording sees the draws and marks its slot unusable, so
    # every reset runs in full, those after a power-on included.  Without that check the
    # memo would hand each env the recording env's draws.
    on = run(game, True, monkeypatch, steps=500, n=4, max_num_frames_per_episode=600)
    off = run(game, False, monkeypatch, steps=500, n=4, max_num_frames_per_episode=600)
    assert on[3] >= 4 and on[2] == [(3, 0)] * 4, on[2:]
    assert_same_runs(on, off)


def test_a_snapshot_with_a_bad_buffer_index_resets_in_full(monkeypatch):
    # cur_buf outside 0 / 1 (only a hand-made snapshot has one) must not index past the
    # frame buffers: such a console takes no memo and records none, and resets as it
    # would with the memo off.
    from cule import _core
    results = []
    for memo in (True, False):
        monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
        e = cule.Atari("pong", 2, seed=5, num_threads=1)   # console 0 records, 1 takes it
        e.reset([0])   # takes the power-on slot (memo on)
        s = e.clone_state()
        consoles = s["consoles"].clone()
        assert int(consoles[1, _core.console_cur_buf_offset]) in (0, 1)
        consoles[1, _core.console_cur_buf_offset] = 7
        digest = cule.atari._row_digests(consoles)   # a hand-made snapshot: its digests remade
        e.restore_state(dict(s, consoles=consoles, digest=digest,
                             frame_buffer_digest=cule.atari._row_digests(s["frame_buffers"]) ^ digest))
        e.reset([1])
        results.append((e.clone_state(), memo_stats(e._batch)))
    (a, stats_on), (b, _) = results
    # Console 1's last reset took no slot and recorded none.
    assert stats_on == [(0, 0), (0, 0), (2, 2), (0, 0)], stats_on
    assert torch.equal(a["consoles"], b["consoles"]) and torch.equal(a["frame_buffers"], b["frame_buffers"])


def test_the_switch_takes_the_usual_spellings_and_refuses_others(monkeypatch):
    for value, on in [("0", False), ("off", False), ("False", False), ("no", False), ("1", True), ("ON", True),
                      ("yes", True), ("", True)]:
        monkeypatch.setenv("CULE_RESET_MEMO", value)
        assert (cule.Atari("pong", 1)._batch.reset_memo_stats() != []) == on, value
    monkeypatch.setenv("CULE_RESET_MEMO", "maybe")
    for kw in ({}, {"_emulate_cuda": True}):
        with pytest.raises(ValueError, match="CULE_RESET_MEMO"):
            cule.Atari("pong", 1, **kw)


# ---- the noop-start memo (csrc/ale_env.hpp, "the noop-start memo") ----
#
# After a reset that ended on a memo slot's end state, the vector env's FIRE and noop
# frames go through recorded nodes (the console after f FIREs and k NOOPs) instead of
# being emulated.  Golden values: the same runs with the memo off (every frame emulated,
# as ALE does).

@pytest.mark.parametrize("game,p", [("breakout", 0.0), ("breakout", 0.25), ("pong", 0.25), ("seaquest", 0.25),
                                    ("skiing", 0.25), ("space_invaders", 0.0)])
def test_noop_starts_through_the_memo_equal_emulated_ones(game, p, monkeypatch):
    # breakout, pong, seaquest: FIRE starts (pong on paddles); skiing, space_invaders
    # without FIRE in the action set: noops only.  With sticky actions (0.25) FIRE may be
    # kept for several frames or not taken at all, so several chains of nodes are used.
    on, (resets, starts) = vector_run(game, True, monkeypatch, p)
    off, (_, starts_off) = vector_run(game, False, monkeypatch, p)
    assert starts_off == []
    skipped, run = sum(s for s, _ in starts), sum(r for _, r in starts)
    # Walks both recorded nodes (frames emulated from a node) and used them.
    assert skipped > 0 and run > 0, (resets, starts)
    assert_same_vector_runs(on, off)


def test_noop_starts_that_keep_fire_past_the_nodes_emulate_the_rest(monkeypatch):
    # repeat_action_probability 0.9: FIRE is often kept for more frames than the nodes
    # hold (4 FIRE chains); those walks leave the nodes and emulate the rest.
    on, (_, starts) = vector_run("breakout", True, monkeypatch, 0.9, steps=200)
    off, _ = vector_run("breakout", False, monkeypatch, 0.9, steps=200)
    assert sum(r for _, r in starts) > 0
    assert_same_vector_runs(on, off)


@pytest.mark.parametrize("emulate", [False, True])
def test_noop_start_memo_same_step_and_reseeded_resets(emulate, monkeypatch):
    # SAME_STEP autoresets (the CUDA backend's k_vec_reset_done) and a reset with a new
    # seed in the middle (power-on, then reset_game twice: the second one may take the
    # memo and start a walk).
    kw = dict(autoreset_mode="SameStep", steps=260, n=5, reseed_at=120, emulate=emulate)
    on, (_, starts) = vector_run("breakout", True, monkeypatch, 0.25, **kw)
    off, _ = vector_run("breakout", False, monkeypatch, 0.25, **kw)
    assert sum(s for s, _ in starts) > 0, starts
    assert_same_vector_runs(on, off)


@pytest.mark.parametrize("game", ["tennis", "seaquest"])
def test_noop_start_memo_through_the_emulated_cuda_backend(game, monkeypatch):
    # The kernels' path (nodes in device memory, claimed with atomics) on the host, where
    # lanes run in env order: a walk often stops at a FIRE node (f, 0) that no walk has
    # gone past yet, and the frame it emulates from there must apply the action it has
    # just drawn, not the node's (tennis diverges if it takes the node's FIRE).
    on, (_, starts) = vector_run(game, True, monkeypatch, 0.25, emulate=True)
    off, _ = vector_run(game, False, monkeypatch, 0.25)
    assert sum(s for s, _ in starts) > 0 and sum(r for _, r in starts) > 0, starts
    assert_same_vector_runs(on, off)


def test_noop_start_nodes_come_with_a_vector_env_only(monkeypatch):
    # The nodes (48 MB: 4 slots x 4 x 30, each a console, two frame buffers and a header)
    # are device memory of the batch, allocated when a vector env is made on it; a plain
    # cule.Atari batch, or any batch with the memo off, has none.
    import cule._cuda_emu as m
    cs, fs = m.CudaBatch.console_state_bytes, m.CudaBatch.frame_buffer_bytes
    nodes = m.CudaBatch.start_memo_bytes
    assert 4 * 4 * 30 * (cs + fs) < nodes <= 4 * 4 * 30 * (cs + fs + 16)
    for memo in (True, False):
        monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
        plain = cule.Atari("pong", 4, _emulate_cuda=True)._batch.device_bytes
        vec = cule.AtariVectorEnv("pong", 4, _emulate_cuda=True)
        assert vec.atari._batch.device_bytes == plain + (nodes if memo else 0), memo
        vec.close()


def test_power_on_state_copies_give_the_emulated_power_on(monkeypatch):
    # With the memos on, a batch emulates the power-on's hardware part (60 auto-detection
    # frames and the system resets) once and every power-on copies it; with
    # CULE_RESET_MEMO=0 each console emulates it.  Every game, both backends (the CUDA one
    # through its host emulation): the same consoles and frame buffers after loading
    # with two seeds, a mode change and a seeded vector-env reset.
    def states(memo, game, emulate):
        monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
        e = cule.Atari(game, 2, seed=[3, 7], num_threads=1, _emulate_cuda=emulate)
        out = [e.clone_state()]
        e.reload([11, 12])
        out.append(e.clone_state())
        return out

    for game in cule.list_games():
        for emulate in (False, True):
            on, off = states(True, game, emulate), states(False, game, emulate)
            for a, b in zip(on, off):
                assert torch.equal(a["consoles"], b["consoles"]), (game, emulate)
                assert torch.equal(a["frame_buffers"], b["frame_buffers"]), (game, emulate)
    for game in ("pong", "kaboom", "pitfall2"):
        obs = []
        for memo in (True, False):
            monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
            v = cule.AtariVectorEnv(game, 3, num_threads=1)
            obs.append((v.reset(seed=5)[0], v.atari.clone_state()["consoles"]))
        assert torch.equal(obs[0][0], obs[1][0]) and torch.equal(obs[0][1], obs[1][1]), game


# ---- the resets that follow a power-on (csrc/ale_env.hpp, the power-on slots) ----

@pytest.mark.parametrize("emulate", [False, True])
@pytest.mark.parametrize("game,one_slot", [("pong", True), ("space_invaders", True), ("breakout", False)])
def test_power_on_resets_share_one_recording(game, one_slot, emulate, monkeypatch):
    # Every console of a batch powers on alike (the RNGs apart).  Loading runs console 0
    # first, alone; the reset it records is taken by the other 7 (on 2 threads too).  A
    # reseeded vector-env reset powers on and runs reset_game twice; the first takes
    # loading's slot.  pong and space_invaders clear their RAM at the system reset, so
    # the second one's console at the checkpoint is the power-on's as well, and takes the
    # same slot (7 + 8 + 8 hits); breakout's differs, so the first env records a second
    # slot and the other 7 take it.  The noop starts then walk from the slot reached.
    # Golden values: the same with the memo off (every frame emulated, as ALE does).
    runs = []
    for memo in (True, False):
        monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
        a = cule.Atari(game, 8, seed=3, num_threads=2, _emulate_cuda=emulate)
        first = a.clone_state()
        out = [first["consoles"], first["frame_buffers"]]
        v = cule.AtariVectorEnv(game, 8, num_threads=2, _emulate_cuda=emulate)   # (its seeds: random)
        b = v.atari._batch
        loaded = b.power_on_memo_stats()
        assert a._batch.power_on_memo_stats() == loaded
        obs, info = v.reset(seed=7)
        out.append(np.asarray(obs).copy())
        out += [np.asarray(info[k]).copy() for k in ("lives", "frame_number", "episode_frame_number")]
        state = v.atari.clone_state()
        out += [state["consoles"], state["frame_buffers"]]
        runs.append((out, loaded, b.power_on_memo_stats(), b.start_memo_stats()))
        v.close()
    (on, loaded, reseeded, starts), (off, loaded_off, _, _) = runs
    assert loaded == [(2, 7), (0, 0)] and loaded_off == [], loaded
    walked = 2 if one_slot else 3
    assert reseeded == ([(2, 23), (0, 0)] if one_slot else [(2, 15), (2, 7)]), reseeded
    assert starts[walked][0] > 0 and sum(s for i, (s, _) in enumerate(starts) if i != walked) == 0, starts
    for i, (a, b) in enumerate(zip(on, off)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), i


@pytest.mark.parametrize("emulate", [False, True])
def test_a_masked_reseed_is_led_by_its_first_env(emulate, monkeypatch):
    # reset(seed=..., options={"reset_mask": ...}) reseeds some envs: the first of them
    # (env 2 here) leads, and the others take the slots it finds or records; the envs
    # not reset keep their consoles.  breakout: loading records slot 2 (5 hits), the
    # first reseeded reset's second reset_game records slot 3 (5 hits); the masked one's
    # 3 envs take both (3 hits each).  Golden values: the same with the memo off.
    runs = []
    for memo in (True, False):
        monkeypatch.setenv("CULE_RESET_MEMO", "1" if memo else "0")
        v = cule.AtariVectorEnv("breakout", 6, num_threads=2, _emulate_cuda=emulate)
        v.reset(seed=1)
        for _ in range(12):
            v.step(np.ones(6, np.int64))   # FIRE: the ball is in play
        mask = np.array([False, False, True, False, True, True])
        obs, info = v.reset(seed=20, options={"reset_mask": mask})
        state = v.atari.clone_state()
        out = [np.asarray(obs).copy()] + [np.asarray(info[k]).copy() for k in ("lives", "frame_number")]
        out += [state["consoles"], state["frame_buffers"]]
        runs.append((out, v.atari._batch.power_on_memo_stats()))
        v.close()
    (on, stats), (off, stats_off) = runs
    assert stats == [(2, 5 + 6 + 3), (2, 5 + 3)] and stats_off == [], stats
    for i, (a, b) in enumerate(zip(on, off)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), i
