"""Crashed programs: consoles whose RAM was poked (setRAM) until the 6507 ran wild, each
against its own ale-py ALEInterface given the same calls (the golden).

A crashed CPU fetches opcodes from the TIA's and RIOT's addresses and pushes its stack
into the TIA's registers.  There, facts of ALE 0.12.1's emulator decide the result that
normal play never reaches:
  * StellaEnvironment::processRAM ends every act frame (and restoreState): it reads the
    RAM through System::peek, which leaves each byte on the data bus, the last being
    RAM byte 0x7F; a TIA read returns the bus in bits 0-5, so an opcode fetched from
    address 0 at the start of the next frame is that byte's low six bits;
  * M6502Low counts an instruction's cycles before its accesses, so BRK's three pushes
    share a clock, and Stella draws up to each write's clock plus its delay, never back:
    after a push into REFP1 (delay 1) a push into COLUBK (no delay) shows one pixel late;
  * Stella writes pixels four at a time where it can, also past the end of a draw: a
    frame that stops mid-line shows up to three pixels more than were drawn.
The call sequences come from a fuzz (random actions, a random RAM byte poked every fifth
act, frame_skip 3), cut to the shortest prefix that showed a difference before the fix;
a string of calls: a number is an act with that ALE action id, "pINDEX:VALUE" a setRAM.
"""
import json
from pathlib import Path

import numpy as np
import pytest
import torch

import cule
from ale_harness import HAVE_ALE, compare_state, make_ale, replay_calls

need_ale = pytest.mark.skipif(not HAVE_ALE, reason="ale-py not installed")

CASES = {
    # The bus: an AND instead of BRK at address 0 sets N; the BRK loop then pushes $B4
    # where ALE pushes $34 (RAM bytes 1, 4, 7, ...).
    "superman": (9640, "p28:183 14 17 1 12 15 5 12 3 4 8 8 15 7 0 4 p127:59 5"),
    # The bus: ALE's CPU meets the illegal opcode $02 and stops for good, so its frames
    # stay unfinished and greyed; a BRK loop kept drawing them in colour.
    "name_this_game": (281, "4 13 0 6 17 13 0 5 11 15 0 7 2 8 1 5 6 1 3 13 14 12 17 14 8 2 0 7 0 1 12 16 12 3 "
                            "10 4 12 8 6 6 10 13 7 2 5 17 10 12 7 10 0 15 16 11 7 1 11 10 2 14 6 0 5 7 6 14 6 "
                            "6 17 6 9 12 12 2 15 5 6 0 3 8 5 16 9 17 14 13 11 4 14 9 1 4 8 1 0 10 17 10 14 1 "
                            "0 14 0 15 16 14 16 5 16 15 7 16 7 4 4 16 11 14 17 17 11 13 11 4 9 6 2 1 13 2 9 5 "
                            "16 6 14 2 16 8 2 7 12 12 13 13 6 7 15 8 14 4 1 16 17 12 5 16 3 4 9 8 0 4 16 1 12 "
                            "12 14 3 15 10 1 8 12 3 10 13 8 10 9 16 3 15 16 8 8 0 6 16 9 13 5 6 11 16 8 "
                            "p65:237 17"),
    # The shared clock: one pixel where BRK's pushes reach REFP1, CTRLPF and COLUBK.
    "sir_lancelot": (9918, "8 16 2 5 10 p103:52 17 5 12 1 11 p107:113 15 16 4 12 14 8 4 3 1 8 13 17 4 2 2 16 "
                           "17 16 13 12 0 14 11 8 4 17 11 5 4 4 9 6 0 17 12 p65:113 12 12 13 1 9 p102:138 12 "
                           "17 3 4 9 16 2 5 14 5 10 17 4 13 13 6 16 15 2 14 3 10 4 9 13 p126:173 7 12 17 4 2 "
                           "7 16 14 3 17 p101:157 12 3 5 17 0 8 6 8 4 12 6 8 2 7 3 2 10 6 6 6 15 2 15 9 9 14 "
                           "1 3 5 16 10 16 0 2 3 4 7 17 15 7 12 1 8 17 1 2 15 13 11 3 15 8 13 6 14 4 16 0 3 0 "
                           "16 3 6 5 12 2 14 4 16 5 17 7 3 9 1 9 4 0 9 16 16 4 14 13 5 5 16 4 5 5 17 3 2 15 8 "
                           "3 11 12 16 10 8 2 5 6 14 3 12 4 3 14 1 9 17 0 8 15 10 12 8 7 12 9 15 7 15 p124:16 "
                           "17 15 9 17 2 7 12 17 4 11 11 10 14 7 17 9 4 4 5 0 16 6 11 1 12 12 10 12 3 5 1 11 1 "
                           "15 14 11 7 0 14 14 0 12 7 10 5 9 3 2 13 10 7 10 9 5 3"),
    # Stella's four-pixel writes: a frame stopped at the instruction limit mid-line
    # shows the background colour one pixel past the last pixel drawn.
    "backgammon": (7940, "p102:78 13 7 6 14 14 p2:150 6 12 1 15 0 p59:224 0 17 8 16 11 p29:227 15 12 15 10 3 p56:156 9 "
                          "9 13 2 5 p108:66 12 6 13 17 9 p73:84 14 3 2 1 5 p120:33 2 14 10 3 9 p77:165 14 11 17 12 9 "
                          "p85:145 15 5 7 7 6 p105:163 17 15 11 3 0 p8:69 15 3 12 13 16 p37:201 6 0 10 4 8 p106:58 11 2 "
                          "15 14 11 p49:219 14 8 8 9 5 p103:153 9 14 3 6 10 p8:102 12 8 1 5 10 p2:100 16 17 9 9 14 "
                          "p127:249 11 11 12 4 8 p27:125 4 14 16 5 14 p3:40 7 10 1 16 13 p125:118 11 4 17 9 3 p39:44 15 "
                          "2 10 3 1 p74:11 5 0 2 1 8 p52:135 7 8 7 8 0 p97:167 4 11 3 11 10 p13:243 6 5 1 4 11 p110:11 "
                          "5 17 6 4 14 p20:176 5 16 1 0 17 p65:33 12 8 0 15 4 p13:243 13 8 9 13 4 p7:36 6 13 13 8 3 "
                          "p89:159 12 6 16 3 2 p99:156 10 12 1 12 10 p71:208 14 14"),
    "berzerk": (6211, "12 5 10 0 5 12 9 9 0 2 5 10 9 6 15 1 16 1 1 1 7 16 1 11 1 1 12 12 8 8 5 6 2 5 0 8 9 14 "
                      "13 11 13 1 5 16 11 2 9 8 9 16 8 8 4 14 4 15 15 14 8 16 12 2 12 5 14 6 7 10 8 11 13 0 2 "
                      "17 10 9 11 5 7 0 15 17 14 17 2 4 1 3 10 16 2 0 2 12 1 2 5 0 4 0 5 7 7 15 15 1 2 9 10 5 "
                      "15 2 8 17 6 12 17 10 11 10 17 2 5 14 3 2 17 15 4 12 16 15 17 10 0 3 6 10 12 2 15 9 1 5 "
                      "3 5 7 10 15 4 5 9 10 11 13 4 16 5 6 12 9 7 1 4 14 10 4 4 10 13 4 7 1 8 2 2 12 14 6 7 17 "
                      "16 1 3 3 12 11 8 17 12 12 10 2 12 15 14 13 4 9 9 15 7 1 15 5 4 17 13 5 17 13 13 1 5 9 4 "
                      "9 7 1 9 12 9 7 17 11 15 12 17 13 11 3 0 2 0 15 p64:95 15 8 12 6 4 3 0 6 14 12 9 5 5 3 1 "
                      "4 15 11 12 1 14 17 10 11 10 15 8 0 1 15 6 15 1 16 7 14 2 12 5 17 6 1 12 6 9 3 4 1 1 10 2 "
                      "6 1 3 12 4 6 7 12 4 13 7 10 1 12 15 15 16 17 16 9 2 8 6 7 2 4 17 12 9 0 4 7 6 1 15 15 9 "
                      "4 2 11 17 6 16 4 14 10 14 7 8 2 3 10 7 11 4 5 12 12 11 14 0 7 4 15 p63:240 15 5 17 12"),
}


def calls(text):
    """("act", action) and ("poke", index, value) tuples of a case's call string."""
    out = []
    for tok in text.split():
        if tok.startswith("p"):
            index, value = tok[1:].split(":")
            out.append(("poke", int(index), int(value)))
        else:
            out.append(("act", int(tok)))
    return out


@need_ale
@pytest.mark.parametrize("emulate_cuda", [False, True], ids=["cpu", "cuda-emu"])
@pytest.mark.parametrize("game", sorted(CASES))
def test_crashed_programs_match_ale(game, emulate_cuda):
    seed, text = CASES[game]
    ale = make_ale(game, seed, 0.25, max_frames=3000, frameskip=3)
    emu = cule.Atari(game, 1, seed=seed, frameskip=3, repeat_action_probability=0.25, full_action_space=True,
                     max_num_frames_per_episode=3000, _emulate_cuda=emulate_cuda)
    from ale_py import Action
    for t, call in enumerate(calls(text)):
        if call[0] == "poke":
            ale.setRAM(call[1], call[2])
            emu.set_ram(call[1], call[2])
            continue
        r_ale = ale.act(Action(call[1]))
        r_emu = int(emu.act(torch.tensor([call[1]]))[0])
        assert r_emu == r_ale, f"{game} call {t}: reward ale={r_ale} cule={r_emu}"
        diff = compare_state(ale, emu, 0, f"{game} call {t}")
        assert diff is None, diff


def frames_of(text):
    """The case's calls at frame_skip 1 (each act of frame_skip 3 as three acts: the same
    sticky-action draws, the same frames)."""
    out = []
    for call in calls(text):
        out.extend([call] * (3 if call[0] == "act" else 1))
    return out


@need_ale
def test_restore_state_leaves_ram_byte_0x7f_on_the_data_bus():
    # name_this_game one frame after the poke: the CPU sits at address 0 in a BRK loop.
    # With RAM byte 0x7F ($F5) on the bus the next fetch there is AND, and the illegal
    # $02 follows; with 0 or $40 it is BRK again, and the loop goes on.  Two setRAMs put
    # those on the bus, one before the snapshot and one before the restore; restoreState
    # then puts the restored RAM's byte 0x7F on it (processRAM).
    from ale_py import Action
    seed, text = CASES["name_this_game"]
    seq = frames_of(text)
    cut = max(i for i, c in enumerate(seq) if c[0] == "poke") + 2
    ales = []
    for interface in (cule.ALEInterface, None):
        a = make_ale("name_this_game", seed, 0.25, max_frames=3000, interface=interface)
        for call in seq[:cut]:
            if call[0] == "poke":
                a.setRAM(call[1], call[2])
            else:
                a.act(Action(call[1]))
        a.setRAM(0x10, 0)          # the bus: 0 (in the snapshot, which keeps it)
        snap = a.cloneState()
        a.setRAM(0x7F, 0x40)       # the bus: $40 (before the restore)
        a.restoreState(snap)
        ales.append(a)
    ours, ale = ales
    assert ale.getRAM()[0x7F] == 0xF5 and ours.getRAM()[0x7F] == 0xF5
    for t in range(6):
        assert ours.act(Action(17)) == ale.act(Action(17))
        assert np.array_equal(ours.getRAM(), ale.getRAM()), f"frame {t}: RAM"
        assert np.array_equal(ours.getScreenRGB(), ale.getScreenRGB()), f"frame {t}: screen"
    # ALE's CPU stopped at the illegal opcode: its frames stay unfinished, greyed (every
    # pixel a grey of the palette's first column: an even index below 8).
    assert (ale.getScreen() < 8).all()


def _setram_fuzz():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "scripts" / "setram_fuzz.py"
    spec = importlib.util.spec_from_file_location("setram_fuzz", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@need_ale
def test_the_fuzz_script_reports_matches_and_differences(monkeypatch):
    # scripts/setram_fuzz.py, which found the sequences above, on a short run: exact
    # consoles are reported as such, and a console whose RAM differs from ALE's is found.
    fuzz = _setram_fuzz()
    assert fuzz.fuzz("superman", 30, 3, 2, 5, 0) is None
    set_ram = cule.Atari.set_ram

    def off_by_one(self, index, values, env_ids=None):
        return set_ram(self, index, (values + 1) % 256, env_ids=env_ids)

    monkeypatch.setattr(cule.Atari, "set_ram", off_by_one)
    assert "ram" in fuzz.fuzz("superman", 30, 3, 2, 5, 0)
    monkeypatch.undo()
    # With clones, restores and resets mixed in (--restore): a restore that brings back
    # everything, not what ALE's restoreState does, is found.
    assert fuzz.fuzz("breakout", 60, 3, 2, 5, 0, restore=0.2) is None
    restore_state = cule.Atari.restore_state

    def full_restore(self, state, env_ids=None, ale_semantics=False):
        return restore_state(self, state, env_ids)

    monkeypatch.setattr(cule.Atari, "restore_state", full_restore)
    assert "differ" in fuzz.fuzz("breakout", 60, 3, 2, 5, 0, restore=0.2)


RESTORE_FUZZ = Path(__file__).resolve().parent / "data" / "restore_fuzz"


@need_ale
@pytest.mark.parametrize("case", sorted(p.stem for p in RESTORE_FUZZ.glob("*.json")))
def test_restore_fuzz_cases_match_ale(case):
    # Call lists from a fresh-user helper's fuzz (setRAM pokes mixed with cloneState /
    # restoreState, reset_game, setMode / setDifficulty and paddle strengths; a game over
    # after an act resets both), cut down to the part that differed from ale-py before
    # ALE's restoreState facts were modelled: E0 carts keep their page mapping
    # (jamesbond, montezuma_revenge, tutankham), hangman keeps its last timer byte.
    # JSON: game, seed, fs (frame_skip), sticky, maxf (max_num_frames_per_episode) and
    # calls: ["act", id, paddle strength], ["poke", index, value], ["clone",
    # include_rng], ["restore", k] (the k-th clone), ["reset"], ["mode", mode, difficulty].
    d = json.loads((RESTORE_FUZZ / f"{case}.json").read_text())
    err, _, _ = replay_calls(d["game"], d["seed"], d["calls"], d["sticky"], d["maxf"], d["fs"])
    assert err is None, err
