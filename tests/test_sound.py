"""Sound observations (ALE's sound_obs / getAudio): cule.Atari(sound=True).audio and the
Gymnasium env's sound_obs=True against ale-py (the golden), the CUDA backend's code
through its host emulation, and the memos with sound on."""
import numpy as np
import pytest
import torch

import gymnasium as gym

import cule

ale_py = pytest.importorskip("ale_py")
from ale_harness import make_ale  # noqa: E402  (after the skip: needs ale-py)

gym.register_envs(cule)
gym.register_envs(ale_py)


def play_with_resets(e, steps, seed=2):
    """Random actions for `steps` acts, resetting the envs whose episode ended; yields
    after each act (and its resets) the number of envs reset so far."""
    gen = torch.Generator().manual_seed(seed)
    resets = 0
    for _ in range(steps):
        e.act(e.action_set[torch.randint(len(e.action_set), (e.num_envs,), generator=gen)])
        done = (e.terminated | e.truncated).nonzero().flatten()
        if len(done):
            e.reset(done)
            resets += len(done)
        yield resets


@pytest.mark.parametrize("game,frameskip", [("pong", 1), ("space_invaders", 4), ("berzerk", 1), ("pitfall", 3),
                                            ("pitfall2", 2), ("kaboom", 1)])
def test_audio_matches_ale_interface(game, frameskip):
    # Lock step with ALEInterface(sound_obs=True): acts (audio is made after the act's
    # last frame, also after a game over), reset_game (which makes none, except where
    # the mode selection acts: berzerk), cloneState / restoreState (which leave the
    # sound device alone) and a reload.
    n, seed = 2, 21
    emu = cule.Atari(game, n, seed=seed, frameskip=frameskip, sound=True, max_num_frames_per_episode=900)
    ales = [make_ale(game, seed + i, 0.25, max_frames=900, frameskip=frameskip, sound=True) for i in range(n)]

    def check(tag):
        audio, ram = emu.audio.numpy(), emu.ram.numpy()
        for i, ale in enumerate(ales):
            assert np.array_equal(ale.getAudio(), audio[i]), f"{tag}: env {i} audio"
            assert np.array_equal(ale.getRAM(), ram[i]), f"{tag}: env {i} RAM"

    check("after loading")
    rng = np.random.default_rng(4)
    actions = emu.action_set.numpy()
    heard = 0
    for t in range(400):
        if t == 150:
            saved = [ale.cloneState() for ale in ales], emu.clone_state(include_rng=False)
        if t == 250:
            for ale, s in zip(ales, saved[0]):
                ale.restoreState(s)
            emu.restore_state(saved[1], ale_semantics=True)
        a = actions[rng.integers(len(actions), size=n)]
        rewards = emu.act(torch.from_numpy(a))
        for i, ale in enumerate(ales):
            assert ale.act(int(a[i])) == int(rewards[i]), t
        check(f"act {t}")
        heard += int((emu.audio != 128).any())
        over = [i for i, ale in enumerate(ales) if ale.game_over()]
        if over and t % 7 == 0:   # reset some of them a few acts after the game ended
            for i in over:
                ales[i].reset_game()
            emu.reset(over)
            check(f"reset {t}")
    assert heard > 10   # acts whose audio was not silence
    # A reload of env 1 (a new StellaEnvironment: zero audio, a new sound device); env 0
    # keeps its audio.
    ales[1].setInt("random_seed", 99)
    ales[1].loadROM(ale_py.roms.get_rom_path(game))
    emu.reload([99], env_ids=[1])
    check("after reloading env 1")


def test_cuda_backend_code_makes_the_same_audio():
    cpu = cule.Atari("space_invaders", 5, seed=3, frameskip=2, sound=True, num_threads=2)
    emu = cule.Atari("space_invaders", 5, seed=3, frameskip=2, sound=True, _emulate_cuda=True)
    gen = torch.Generator().manual_seed(0)
    for t in range(200):
        a = cpu.action_set[torch.randint(len(cpu.action_set), (5,), generator=gen)]
        assert torch.equal(cpu.act(a), emu.act(a)), t
        assert torch.equal(cpu.audio, emu.audio), t
        if t % 50 == 49:
            cpu.reset([1, 3])
            emu.reset([1, 3])
    assert torch.equal(cpu.clone_state()["consoles"], emu.clone_state()["consoles"])
    assert (cpu.audio != 128).any()


def test_resets_with_sound_equal_full_resets(monkeypatch):
    # The reset_game memo compares the sound registers too, so its shortcuts stay exact:
    # the run with the memo (which must have served resets) equals the one without.
    def run(flag):
        monkeypatch.setenv("CULE_RESET_MEMO", flag)
        e = cule.Atari("breakout", 4, seed=8, frameskip=4, sound=True, num_threads=1,
                       max_num_frames_per_episode=400)
        audio = [e.audio for _ in play_with_resets(e, 300)]
        hits = sum(h for _, h in e._batch.reset_memo_stats())
        return torch.stack(audio), e.clone_state()["consoles"], hits

    a, c, hits = run("1")
    b, d, none = run("0")
    assert hits > 0 and none == 0
    assert torch.equal(a, b) and torch.equal(c, d)


@pytest.mark.parametrize("env_id,kw", [("Pong-v5", {}), ("Breakout-v5", dict(obs_type="ram")),
                                       ("SpaceInvaders-v5", dict(frameskip=(2, 5), obs_type="grayscale")),
                                       ("Pong-v5", dict(continuous=True))])
def test_sound_obs_matches_ale_py_env(env_id, kw):
    ref = gym.make(f"ALE/{env_id}", sound_obs=True, **kw)
    env = gym.make(f"cule/{env_id}", sound_obs=True, **kw)
    assert env.observation_space == ref.observation_space

    def same(x, y):
        return x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) and x[k].dtype == y[k].dtype for k in x)

    oa, _ = ref.reset(seed=2)
    oc, _ = env.reset(seed=2)
    assert same(oa, oc)
    ref.action_space.seed(1)
    for t in range(400):
        act = ref.action_space.sample()
        ra, rc = ref.step(act), env.step(act)
        assert same(ra[0], rc[0]) and ra[1:] == rc[1:], t
        assert env.observation_space.contains(rc[0])
        if t == 100:
            states = ref.unwrapped.clone_state(), env.unwrapped.clone_state()
        if t == 200:
            ref.unwrapped.restore_state(states[0])
            env.unwrapped.restore_state(states[1])
        if ra[2] or ra[3] or t == 300:
            oa, _ = ref.reset(seed=5 if t == 300 else None)
            oc, _ = env.reset(seed=5 if t == 300 else None)
            assert same(oa, oc), t
    a, c = ref.unwrapped.ale, env.unwrapped.ale
    assert c.getAudioSize() == a.getAudioSize() == 512
    buf = np.zeros(512, np.uint8)
    assert c.getAudio(buf) is None and np.array_equal(buf, a.getAudio())


def test_without_sound():
    e = cule.Atari("pong", 2, seed=1)
    with pytest.raises(RuntimeError, match="sound=True"):
        e.audio
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="sound"):
            cule.Atari("pong", 2, sound=bad)
    with pytest.raises(ValueError, match="sound_obs"):
        gym.make("cule/Pong-v5", sound_obs=1)
    env = gym.make("cule/Pong-v5")
    env.reset(seed=0)
    env.step(0)
    ref = gym.make("ALE/Pong-v5")
    ref.reset(seed=0)
    ref.step(0)
    assert np.array_equal(env.unwrapped.ale.getAudio(), ref.unwrapped.ale.getAudio())   # zeros


def test_memo_serves_resets_with_sound_as_without():
    # A console's sound generators are its own through a memo hit (like its RNGs), so
    # with sound on the memo serves breakout's resets as often as without (before that,
    # the generators' differing states made most resets miss).
    hits = {}
    for sound in (False, True):
        e = cule.Atari("breakout", 16, seed=8, frameskip=4, sound=sound, num_threads=1,
                       max_num_frames_per_episode=400)
        *_, resets = play_with_resets(e, 600)
        hits[sound] = sum(h for _, h in e._batch.reset_memo_stats())
    assert resets > 50 and hits[True] == hits[False] >= resets - 2


def test_full_restore_needs_a_snapshot_with_sound():
    quiet = cule.Atari("space_invaders", 2, seed=1)
    loud = cule.Atari("space_invaders", 2, seed=1, sound=True)
    for e in (quiet, loud):
        e.act(torch.ones(2, dtype=torch.int64))
    state = quiet.clone_state()
    assert state["sound"] is False and loud.clone_state()["sound"] is True
    before = loud.clone_state()
    with pytest.raises(ValueError, match="without sound"):
        loud.restore_state(state)
    assert torch.equal(before["consoles"], loud.clone_state()["consoles"])
    loud.restore_state(state, ale_semantics=True)            # keeps its own sound state
    quiet.restore_state(loud.clone_state())                  # the other way is harmless
    loud.set_ram(1, 2, env_ids=[])                           # no envs: nothing to do
