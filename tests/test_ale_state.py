"""cule.ALEState against ale-py 0.12.1's ALEState: getters, equals / ==, serialize.

Golden values come from ale-py run side by side (the same ROM, seed and actions)."""
import copy
import io
import pickle

import ale_py
import numpy as np
import pytest
import torch

import cule

ALL_GAMES = cule.list_games()
ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)


def _pair(game, seed=3, mode=None, difficulty=None):
    path = ale_py.roms.get_rom_path(game)
    pair = []
    for mod in (ale_py, cule):
        ale = mod.ALEInterface()
        ale.setInt("random_seed", seed)
        ale.loadROM(path)
        if mode is not None:
            ale.setMode(mode)
        if difficulty is not None:
            ale.setDifficulty(difficulty)
        pair.append(ale)
    return pair


def _getters(state):
    return (state.getFrameNumber(), state.getEpisodeFrameNumber(), state.getCurrentMode(), state.getDifficulty())


@pytest.mark.parametrize("game", ["pong", "breakout", "space_invaders", "video_cube", "pitfall2"])
def test_getters_equal_ale(game):
    info = cule.load_rom(game).info
    mode, difficulty = info["modes"][-1], info["difficulties"][-1]
    ref, ours = _pair(game, mode=mode, difficulty=difficulty)
    seen = 0
    for ale in (ref, ours):
        acts = ale.getMinimalActionSet()
        for i in range(90):
            ale.act(acts[i % len(acts)])
        ale.reset_game()
        for i in range(41):
            ale.act(acts[(3 * i) % len(acts)])
    for include_rng in (False, True):
        a, b = ref.cloneState(include_rng=include_rng), ours.cloneState(include_rng=include_rng)
        assert isinstance(b, cule.ALEState) and isinstance(b, dict)
        assert _getters(b) == _getters(a)
        seen += 1
    # The reset started a new episode: the two frame counts differ.
    assert _getters(b)[0] > _getters(b)[1] > 0 and _getters(b)[2:] == (mode, difficulty)
    assert seen == 2


def test_equals_judges_as_ale_does_in_every_game():
    """ale-py's ALEState.equals in six situations (a state with and without the RNG,
    states apart in time, a state restored and cloned again, one of a reset episode),
    for every game: cule.ALEState.equals, == and != must give the same answers."""
    differs = []
    for game in ALL_GAMES:
        answers = []
        for ale in _pair(game):
            eq = ale.cloneState().__class__.equals
            acts = ale.getMinimalActionSet()
            r = []
            for i in range(150):
                ale.act(acts[i % len(acts)])
            t, tr = ale.cloneState(), ale.cloneState(include_rng=True)
            r.append(eq(t, tr))
            for i in range(20):
                ale.act(acts[(i * 7) % len(acts)])
            r.append(eq(ale.cloneState(), t))
            ale.restoreState(t)
            r.append(eq(ale.cloneState(), t))
            ale.act(acts[0])
            t2 = ale.cloneState()
            ale.restoreState(t2)
            r.append(eq(ale.cloneState(), t2))
            ale.restoreState(tr)
            r.append(eq(ale.cloneState(include_rng=True), tr))
            ale.reset_game()
            u = ale.cloneState()
            ale.act(acts[-1])
            ale.restoreState(u)
            now = ale.cloneState()
            r.append(eq(now, u))
            if isinstance(now, cule.ALEState):
                assert (now == u) is r[-1] and (now != u) is (not r[-1]) and (t == t2) is eq(t, t2)
            answers.append(r)
        if answers[0] != answers[1]:
            differs.append((game, answers))
    assert not differs
    # Both answers occur (pong: ALE's [False, False, True, True, True, True]).
    ref, ours = _pair("pong")
    assert ours.cloneState().equals(ours.cloneState())


def test_serialize_round_trip_restores_the_same_future():
    ref, ours = _pair("ms_pacman", seed=11)
    for ale in (ref, ours):
        for i in range(120):
            ale.act(i % 9)
    state = ours.cloneState(include_rng=True)
    data = state.serialize()
    assert isinstance(data, bytes) and data == state.serialize()
    # Like ALE's, the state leaves out the screen: the console's bytes and a header.
    assert state["frame_buffers"] is None and len(data) < cule.build_info()["console_state_bytes"] + 1024
    for back in (cule.ALEState(data), cule.ALEState(bytearray(data)), pickle.loads(pickle.dumps(state)),
                 copy.deepcopy(state), copy.copy(state)):
        assert isinstance(back, cule.ALEState) and back == state and back.equals(state)
        assert _getters(back) == _getters(ref.cloneState())
        assert torch.equal(back["consoles"], state["consoles"]) and back["frame_buffers"] is None
    buf = io.BytesIO()
    torch.save(dict(state), buf)      # a plain dict loads with weights_only=True
    buf.seek(0)
    assert cule.ALEState(torch.load(buf, weights_only=True)) == state
    buf = io.BytesIO()
    torch.save(state, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(buf, weights_only=True)
    buf.seek(0)
    assert torch.load(buf, weights_only=False) == state
    # Restored from the bytes, the console plays on as ALE's does from its own state.
    ref_state = ref.cloneState(include_rng=True)
    for ale in (ref, ours):
        for i in range(50):
            ale.act(3)
    ours.restoreState(cule.ALEState(data))
    ref.restoreState(ref_state)
    for i in range(60):
        assert ours.act(i % 9) == ref.act(i % 9)
        assert np.array_equal(ours.getRAM(), ref.getRAM())
    assert np.array_equal(ours.getScreenRGB(), ref.getScreenRGB())


def test_gym_env_clone_state_is_an_ale_state():
    import gymnasium as gym

    env = gym.make("cule/Breakout-v5")
    env.reset(seed=5)
    for _ in range(10):
        env.step(1)
    state = env.unwrapped.clone_state()
    assert isinstance(state, cule.ALEState)
    assert state.getEpisodeFrameNumber() == env.unwrapped.ale.getEpisodeFrameNumber() > 0
    frame = state.getFrameNumber()
    env.step(3)
    env.unwrapped.restore_state(cule.ALEState(state.serialize()))
    assert env.unwrapped.ale.getFrameNumber() == frame
    assert env.unwrapped.clone_state() == state
    env.close()


def test_bad_input_is_refused_clearly():
    ref, ours = _pair("pong")
    ours.act(0)
    state, frame = ours.cloneState(), ours.getFrameNumber()
    data = state.serialize()
    from cule.ale_state import _checksum

    def resealed(b):   # bytes edited and given a matching checksum (a forgery)
        return b + _checksum(b)

    body = data[:-16]
    cases = {
        b"": "empty",
        ref.cloneState().serialize(): "an ale-py state's bytes cannot be read",
        data[:-1]: "checksum does not match",
        data + b"\0": "checksum does not match",
        data[:20] + b"#" + data[21:]: "checksum does not match",               # the header
        data.replace(b'"include_rng":false', b'"include_rng":true '): "checksum does not match",
        data[:-27] + bytes([data[-27] ^ 1]) + data[-26:]: "checksum does not match",   # the console
        resealed(body[:20] + b"#" + body[21:]): "header is damaged",
        resealed(body.replace(b'"digest":[', b'"digest":[1180591620717411303424,')): "header is damaged",
        resealed(body[:body.index(b"\n") + 1] + b"[" * 100000 + body[body.index(b"\n", 16):]): "header is damaged",
        resealed(body[:-1]): "truncated or padded",
        resealed(body[:-11] + bytes([body[-11] ^ 1]) + body[-10:]): "corrupt: a checksum",
    }
    for bad, words in cases.items():
        with pytest.raises(cule.InvalidArgument, match=words):
            cule.ALEState(bad)
    # A dict is checked as deeply: its keys, checksums, sizes, game and include_rng.
    snap = dict(state)
    for edit, words in ((dict(digest=snap["digest"] + 1), "checksum"), (dict(game="breakout"), "MD5"),
                        (dict(game="no_such_game"), "game"), (dict(include_rng=1), "include_rng"),
                        (dict(consoles=snap["consoles"].to(torch.int16)), "uint8"),
                        (dict(consoles=snap["consoles"][:, :-1]), "checksum"),
                        (dict(console_state_bytes=1), "layout")):
        with pytest.raises(cule.InvalidArgument, match=words):
            cule.ALEState({**snap, **edit})
    with pytest.raises(cule.InvalidArgument, match="lacks digest"):
        cule.ALEState({k: v for k, v in snap.items() if k != "digest"})
    for bad in (3, "abc", None, [data]):
        with pytest.raises(TypeError):
            cule.ALEState(bad)
    with pytest.raises(TypeError, match="ale-py state"):
        cule.ALEState(ref.cloneState())
    with pytest.raises(cule.InvalidArgument, match="one console"):
        cule.ALEState(cule.Atari("pong", 2, num_threads=1).clone_state())
    with pytest.raises(cule.InvalidArgument, match="not a console state"):
        cule.ALEState({"format": "other"})
    with pytest.raises(TypeError):
        state.equals(None)
    with pytest.raises(TypeError, match="ale-py state"):
        state.equals(ref.cloneState())
    with pytest.raises(TypeError, match="without the keys"):
        state.equals({"a": 1})
    # Hashed by identity, as ale-py's states (archives keyed by them).
    assert len({state, cule.ALEState(data), state}) == 2 and hash(state) == hash(state)
    assert (state == 3) is False and (state != 3) is True
    empty = cule.ALEState()
    assert empty == cule.ALEState() and empty != state and state != empty
    with pytest.raises(cule.InvalidArgument, match="empty"):
        empty.getFrameNumber()
    with pytest.raises(TypeError):
        ours.restoreState(empty)
    with pytest.raises(TypeError, match="an ale-py state .*do not mix"):
        ours.restoreState(ref.cloneState())
    import gymnasium as gym

    env = gym.make("cule/Pong-v5").unwrapped
    env.reset(seed=1)
    before = env.clone_state()
    for bad in (5, None, data, [], {}, cule.ALEState(), ref.cloneState()):
        with pytest.raises(TypeError):
            env.restore_state(bad)
    with pytest.raises(TypeError):
        env.clone_state(include_rng=np.bool_(True))   # as ale-py's binding
    assert env.clone_state() == before
    # Nothing was changed by the refusals.
    assert ours.cloneState() == state and ours.getFrameNumber() == frame


def test_a_batch_snapshot_with_frame_buffers_round_trips():
    """An ALEState of one console of cule.Atari, frame buffers included: its bytes bring
    back the screen too, and a full restore (not ALE's) takes it."""
    emu = cule.Atari("breakout", 3, seed=7, num_threads=1)
    for t in range(40):
        emu.act(torch.tensor([1, 3, 4]))
    state = cule.ALEState(emu.clone_state([1]))
    data = state.serialize()
    assert len(data) > cule.build_info()["frame_buffer_bytes"]
    back = cule.ALEState(data)
    for k in ("consoles", "frame_buffers", "digest", "frame_buffer_digest"):
        assert torch.equal(back[k], state[k])
    screen = emu.screen_rgb()[1].clone()
    for t in range(30):
        emu.act(torch.tensor([1, 1, 1]))
    assert not torch.equal(emu.screen_rgb()[1], screen)
    emu.restore_state(back, env_ids=[2])
    assert torch.equal(emu.screen_rgb()[2], screen)
    # Without frame buffers only an ALE restore takes a snapshot.
    bare = emu.clone_state([0], frame_buffers=False)
    assert bare["frame_buffers"] is None and bare["frame_buffer_digest"] is None
    with pytest.raises(ValueError, match="no frame buffers"):
        emu.restore_state(bare, env_ids=[1])
    ram = emu.ram.clone()
    emu.restore_state(bare, env_ids=[1], ale_semantics=True)
    assert torch.equal(emu.ram[1], ram[0]) and torch.equal(emu.ram[2], ram[2])
    with pytest.raises(ValueError, match="frame_buffers must be a bool"):
        emu.clone_state(frame_buffers=1)


def test_public_classes_are_named_where_users_import_them():
    # Tracebacks show cule.InvalidArgument, and pickles of states and errors name cule's
    # public classes (not the private module that defines them).
    for cls in (cule.ALEState, cule.InvalidArgument, cule.ALETypeError, cule.ALERuntimeError, cule.ALEIndexError):
        assert cls.__module__ == "cule" and getattr(cule, cls.__name__) is cls
    err = pickle.loads(pickle.dumps(cule.ALETypeError("bad")))
    assert type(err) is cule.ALETypeError and isinstance(err, TypeError) and str(err) == "bad"


def test_equals_tells_sound_on_from_off_as_ale_does():
    """ALE's state holds its TIA's sound bytes, which only a console with sound
    observations keeps up: two consoles alike but for sound_obs are not equal in ale-py."""
    answers = []
    for mod in (ale_py, cule):
        pair = []
        for sound in (False, True):
            ale = mod.ALEInterface()
            ale.setInt("random_seed", 3)
            ale.setBool("sound_obs", sound)
            ale.loadROM(ale_py.roms.get_rom_path("space_invaders"))
            for i in range(120):
                ale.act(i % 6)
            pair.append(ale)
        quiet, loud = pair
        s_quiet, s_loud = quiet.cloneState(), loud.cloneState()
        r = [s_quiet.equals(s_loud)]
        quiet.restoreState(s_loud)
        r.append(quiet.cloneState().equals(s_loud))
        loud.restoreState(s_loud)
        r.append(loud.cloneState().equals(s_loud))
        answers.append(r)
    assert answers[0] == answers[1] == [False, False, True]
