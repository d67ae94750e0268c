"""Cartridge mappers, checked with tiny test cartridges on the console bus.

Each test ROM runs a short program from the reset vector that reads the mapper's
windows and registers and stores what it saw in RIOT RAM ($80..), then loops.  The
expected values come from the bank-switching schemes as documented (hotspot addresses,
Superchip RAM ports, the E0 slice registers, FE's A13 decoding, the DPC's data
fetchers and random number generator as in US patent 4,644,495 and Stella).

Where ale-py is installed, the same ROM also runs in ALE (as a file named after a game
whose rules need nothing from the ROM, so ALE's own auto-detection picks the mapper)
and all 128 bytes of RAM must match: that also covers what has no simple golden value,
such as the Superchip RAM's random contents and the DPC's music-mode oscillator.
"""
import os

import numpy as np
import pytest

from cule import _core
from cule.roms import _CART_TYPES, load_rom, native_config

try:
    from ale_py import ALEInterface, LoggerMode

    ALEInterface.setLoggerMode(LoggerMode.Error)
    HAVE_ALE = True
except ImportError:  # pragma: no cover
    HAVE_ALE = False

CART_DPC = _CART_TYPES["DPC"]


# ---- a few 6502 instructions ----
def lda_imm(v): return [0xA9, v & 0xFF]
def lda(a): return [0xAD, a & 0xFF, (a >> 8) & 0xFF]
def sta(a): return [0x8D, a & 0xFF, (a >> 8) & 0xFF] if a > 0xFF else [0x85, a]
def jmp(a): return [0x4C, a & 0xFF, (a >> 8) & 0xFF]
def jsr(a): return [0x20, a & 0xFF, (a >> 8) & 0xFF]
SEI_CLD = (0x78, 0xD8)              # a tuple: programs start with list(SEI_CLD)
RTS = [0x60]
BRK = [0x00]


def store(src, dst):
    """LDA src; STA dst."""
    return lda(src) + sta(dst)


def place(image, offset, code, base):
    """Copy code into image at offset; return it with a trailing JMP * (base = the
    CPU address of image[offset])."""
    here = base + len(code)
    code = code + jmp(here)
    image[offset:offset + len(code)] = bytes(code)


def vectors(image, bank_offset, reset, irq=None):
    image[bank_offset + 0xFFC] = reset & 0xFF
    image[bank_offset + 0xFFD] = reset >> 8
    if irq is not None:
        image[bank_offset + 0xFFE] = irq & 0xFF
        image[bank_offset + 0xFFF] = irq >> 8


def run_cule(rom, cart):
    # Seaquest's settings (joysticks, no mode selection, rules that only read RAM) on
    # the test cartridge.  A program without VSYNC makes 25,000-instruction frames,
    # which Stella's auto-detection takes for PAL.
    cfg = native_config(load_rom("seaquest"))
    cfg.update(cart_type=_CART_TYPES[cart] if isinstance(cart, str) else cart, rom_size=len(rom),
               pal=True, screen_height=250)
    batch = _core.CpuBatch(cfg, bytes(rom), 1, 1)
    batch.load(np.zeros(1, np.uint32), np.zeros(1, np.uint16), np.zeros(1, np.uint8), 1, 0.25, 0,
               _core.NO_LIVES_LIMIT)
    ram = np.empty((1, 128), np.uint8)
    batch.read_ram(ram)
    return ram[0]


def run_ale(rom, tmp_path):
    path = os.path.join(str(tmp_path), "seaquest.bin")
    with open(path, "wb") as f:
        f.write(bytes(rom))
    ale = ALEInterface()
    ale.setInt("random_seed", 0)
    ale.loadROM(path)
    return ale.getRAM()


def check_against_ale(rom, cart, tmp_path):
    if not HAVE_ALE:
        pytest.skip("ale-py is not installed")
    ours = run_cule(rom, cart)
    ref = run_ale(rom, tmp_path)
    diff = np.nonzero(ours != ref)[0]
    assert diff.size == 0, f"RAM differs at {[hex(0x80 + i) for i in diff[:8]]}: " \
                           f"ale={ref[diff[:8]].tolist()} cule={ours[diff[:8]].tolist()}"


# ---- F8SC / F6SC: F8 / F6 banking plus 128 bytes of RAM ----

def superchip_rom(banks):
    """Every 4K bank: its first 256 bytes all equal to 0xE0 + bank (the RAM window;
    Stella recognises a Superchip ROM by that), a bank id 0xB0 + bank at $xF00, the
    same program at $x100, a BRK at $xFF7 and the reset / BRK vectors."""
    rom = bytearray(4096 * banks)
    hot = 0x1FF8 if banks == 2 else 0x1FF6
    prog = list(SEI_CLD) + [0xA2, 0xFF, 0x9A]            # LDX #$FF; TXS
    prog += store(0x1F00, 0x80)                          # reset bank's id
    prog += store(0x1085, 0x81)                          # RAM[5] as the reset left it
    prog += lda_imm(0x5A) + sta(0x1005)                  # write port
    prog += store(0x1085, 0x82)                          # read port -> $5A
    prog += store(0x1005, 0x83)                          # reading the write port: ROM below
    prog += lda_imm(0xA5) + sta(0x1085)                  # a write to the read port is lost
    prog += store(0x1085, 0x84)                          # -> still $5A
    prog += lda_imm(0x77) + sta(0x107F) + store(0x10FF, 0x85)   # last byte
    prog += lda(hot)                                     # first hotspot: bank 0
    prog += store(0x1F00, 0x86)
    prog += store(0x1005, 0x87)                          # bank 0's byte under the write port
    prog += store(0x1085, 0x88)                          # RAM does not follow the bank
    prog += lda_imm(0) + sta(0x1FF9)                     # a write hits the hotspot too
    prog += store(0x1F00, 0x89)
    prog += jmp(0x1FF7)                                  # BRK at $1FF7 reads $1FF8 (dummy)
    irq = store(0x1F00, 0x8A)                            # BRK handler at $1200: bank id
    for b in range(banks):
        o = 4096 * b
        rom[o:o + 256] = bytes([0xE0 + b]) * 256
        rom[o + 0xF00] = 0xB0 + b
        place(rom, o + 0x100, prog, 0x1100)
        place(rom, o + 0x200, irq, 0x1200)
        rom[o + 0xFF7] = BRK[0]
        vectors(rom, o, 0xF100, irq=0xF200)
    return rom


def test_f8sc_ram_ports_and_hotspots():
    r = run_cule(superchip_rom(2), "F8SC")
    assert r[0x00] == 0xB1            # F8SC starts in bank 1
    assert r[0x02] == 0x5A            # written at $1005, read back at $1085
    assert r[0x03] == 0xE1            # $1005 read: the ROM byte of bank 1
    assert r[0x04] == 0x5A            # the write to $1085 changed nothing
    assert r[0x05] == 0x77            # $107F -> $10FF
    assert r[0x06] == 0xB0            # LDA $1FF8 -> bank 0
    assert r[0x07] == 0xE0
    assert r[0x08] == 0x5A
    assert r[0x09] == 0xB1            # STA $1FF9 -> bank 1
    assert r[0x0A] == 0xB0            # BRK's dummy read of $1FF8 switched to bank 0


def test_f6sc_ram_ports_and_hotspots():
    r = run_cule(superchip_rom(4), "F6SC")
    assert r[0x00] == 0xB0            # F6SC starts in bank 0
    assert r[0x02] == 0x5A and r[0x04] == 0x5A and r[0x05] == 0x77
    assert r[0x03] == 0xE0            # write port read in bank 0
    assert r[0x06] == 0xB0            # LDA $1FF6 -> bank 0
    assert r[0x07] == 0xE0
    assert r[0x08] == 0x5A
    assert r[0x09] == 0xB3            # STA $1FF9 -> bank 3
    # Fetching the BRK at $1FF7 selects bank 1, BRK's dummy read of $1FF8 bank 2,
    # whose vector and handler then run.
    assert r[0x0A] == 0xB2


def f6sc_hotspot_rom():
    """Visits $1FF7, $1FF8, $1FF9, $1FF6 in turn, storing the bank id after each."""
    rom = bytearray(16384)
    prog = list(SEI_CLD)
    for i, hot in enumerate((0x1FF7, 0x1FF8, 0x1FF9, 0x1FF6)):
        prog += lda(hot) + store(0x1F00, 0x80 + i)
    for b in range(4):
        o = 4096 * b
        rom[o:o + 256] = bytes([0xE0 + b]) * 256
        rom[o + 0xF00] = 0xB0 + b
        place(rom, o + 0x100, prog, 0x1100)
        vectors(rom, o, 0xF100)
    return rom


def test_f6sc_every_hotspot():
    r = run_cule(f6sc_hotspot_rom(), "F6SC")
    assert r[:4].tolist() == [0xB1, 0xB2, 0xB3, 0xB0]


@pytest.mark.parametrize("banks,cart", [(2, "F8SC"), (4, "F6SC")])
def test_superchip_against_ale(banks, cart, tmp_path):
    check_against_ale(superchip_rom(banks), cart, tmp_path)


def test_f6sc_every_hotspot_against_ale(tmp_path):
    check_against_ale(f6sc_hotspot_rom(), "F6SC", tmp_path)


# ---- E0: four 1K segments, the last fixed to slice 7 ----

def e0_rom():
    rom = bytearray(8192)
    for s in range(8):
        rom[s * 1024 + 0x10] = 0xC0 + s                  # slice id at offset $10
    prog = list(SEI_CLD)
    prog += store(0x1010, 0x80) + store(0x1410, 0x81) + store(0x1810, 0x82) + store(0x1C10, 0x83)
    prog += lda(0x1FE2) + store(0x1010, 0x84)            # segment 0 <- slice 2
    prog += lda(0x1FEB) + store(0x1410, 0x85)            # segment 1 <- slice 3
    prog += lda(0x1FF1) + store(0x1810, 0x86)            # segment 2 <- slice 1
    prog += sta(0x1FE0) + store(0x1010, 0x87)            # a write switches too: slice 0
    prog += lda(0x1FF7) + store(0x1810, 0x88)            # segment 2 <- slice 7
    prog += lda(0x1FF8) + store(0x1010, 0x89)            # $1FF8 is no E0 hotspot
    prog += lda(0xFFE9) + store(0x1410, 0x8A)            # mirrors: $FFE9 = $1FE9 -> slice 1
    place(rom, 7 * 1024 + 0x100, prog, 0x1D00)           # code in slice 7 at $1D00
    rom[7 * 1024 + 0x3FC] = 0x00
    rom[7 * 1024 + 0x3FD] = 0xFD                         # reset -> $FD00
    return rom


def test_e0_segments():
    r = run_cule(e0_rom(), "E0")
    assert r[:11].tolist() == [0xC4, 0xC5, 0xC6, 0xC7, 0xC2, 0xC3, 0xC1, 0xC0, 0xC7, 0xC0, 0xC1]


def test_e0_against_ale(tmp_path):
    check_against_ale(e0_rom(), "E0", tmp_path)


# ---- FE: the bank follows A13 ----

def fe_rom():
    rom = bytearray(8192)
    rom[0x800] = 0x11                                    # first 4K ($Fxxx)
    rom[0x1800] = 0x22                                   # second 4K ($Dxxx)
    rom[0x000:0x004] = bytes([1, 2, 3, 4])
    rom[0x1000 + 0x300:0x1000 + 0x304] = bytes([5, 6, 7, 8])
    prog = list(SEI_CLD) + [0xA2, 0xFF, 0x9A]            # LDX #$FF; TXS
    prog += store(0xF800, 0x80) + store(0xD800, 0x81)
    prog += store(0x1800, 0x82) + store(0x3800, 0x83)    # A13 clear / set
    prog += lda_imm(0x10) + sta(0xC5)
    prog += jsr(0xD000) + [0xC6, 0xC5]                   # JSR $D000; DEC $C5 (Activision's idiom)
    place(rom, 0x100, prog, 0xF100)
    sub = lda_imm(0x33) + sta(0x84) + store(0xF800, 0x85) + store(0x1800, 0x86) + RTS
    rom[0x1000:0x1000 + len(sub)] = bytes(sub)          # $D000 lives in the second 4K
    vectors(rom, 0, 0xF100)
    return rom


def test_fe_a13_selects_bank():
    r = run_cule(fe_rom(), "FE")
    assert r[:7].tolist() == [0x11, 0x22, 0x22, 0x11, 0x33, 0x11, 0x22]
    assert r[0xC5 - 0x80] == 0x0F                        # RTS came back to the first 4K


def test_fe_against_ale(tmp_path):
    check_against_ale(fe_rom(), "FE", tmp_path)


# ---- DPC (Pitfall II) ----

def display_byte(i):
    return (i * 7 + (i >> 8) * 0x35 + 1) & 0xFF


def dpc_next(r):
    """The DPC random number register: shift left, new bit = NOT(b7 ^ b5 ^ b4 ^ b3)."""
    bit = 1 ^ (((r >> 7) ^ (r >> 5) ^ (r >> 4) ^ (r >> 3)) & 1)
    return ((r << 1) | bit) & 0xFF


def dpc_rom(music_part=True):
    rom = bytearray(10495)
    for i in range(2048):
        rom[8192 + i] = display_byte(i)
    p = list(SEI_CLD)
    # fetcher 0: top $20, bottom $10, counter $123
    p += lda_imm(0x20) + sta(0x1040) + lda_imm(0x10) + sta(0x1048)
    p += lda_imm(0x23) + sta(0x1050) + lda_imm(0x01) + sta(0x1058)
    p += store(0x1008, 0x80)            # display[2047 - $123], counter -> $122
    p += store(0x1008, 0x81)            # display[2047 - $122], counter -> $121
    p += store(0x1038, 0x82)            # flag: low $21 is neither top nor bottom -> $00
    p += store(0x1038, 0x83)            # low $20 == top -> flag $FF
    p += store(0x1010, 0x84)            # display[2047 - $11F] AND $FF
    p += lda_imm(0x10) + sta(0x1050)    # counter low <- $10 (= bottom)
    p += store(0x1010, 0x85)            # low == bottom -> flag $00 -> 0
    p += store(0x1018, 0x86)            # function 3 reads 0
    p += store(0x1038, 0x87)            # flag stays $00
    # random number register
    p += sta(0x1070)                    # reset to 1
    p += store(0x1000, 0x88) + store(0x1001, 0x89) + store(0x1003, 0x8A) + store(0x1000, 0x8B)
    p += store(0x1040, 0x8C)            # a read of the write page: program ROM byte
    p += store(0x1FC0, 0x8D)            # the hotspot page clocks the register too
    p += store(0x1000, 0x8E)
    p += store(0x1080, 0x8F)            # $1080 is plain ROM: no clock
    p += store(0x1000, 0x90)
    # banks
    p += store(0x1F00, 0x91)            # reset bank (1)
    p += lda(0x1FF8) + store(0x1F00, 0x92)
    p += lda(0x1FF9) + store(0x1F00, 0x93)
    if music_part:
        # fetcher 5 in music mode: top $40, bottom $08
        p += lda_imm(0x40) + sta(0x1045) + lda_imm(0x08) + sta(0x104D)
        p += lda_imm(0x00) + sta(0x1055)
        p += lda_imm(0x13) + sta(0x105D)   # counter high 3, music mode on
        p += lda_imm(0x77) + sta(0x1055)   # counter low reloads from top: $340
        p += store(0x100D, 0x94)           # display[2047 - $340], no count in music mode
        p += store(0x100D, 0x95)
        # fetchers 6 and 7 in music mode too, shorter periods
        p += lda_imm(0x05) + sta(0x1046) + lda_imm(0x02) + sta(0x104E) + lda_imm(0x10) + sta(0x105E)
        p += lda_imm(0x0B) + sta(0x1047) + lda_imm(0x03) + sta(0x104F) + lda_imm(0x10) + sta(0x105F)
        # fetcher 4 is never in music mode: its counter steps on music reads too
        p += lda_imm(0x50) + sta(0x1054) + lda_imm(0x00) + sta(0x105C)
        for k in range(6):              # amplitude reads with ~1,300 cycles between them
            p += [0xA2, 0x00, 0xCA, 0xD0, 0xFD]          # LDX #0; DEX; BNE *-1
            p += store(0x1004 + (k & 3), 0x96 + k)
        # end the frame (VSYNC on for a line, then off) so the oscillator's cycle
        # bookkeeping crosses a cycle-counter rebase, then sample again
        p += lda_imm(0x02) + sta(0x00) + sta(0x02) + sta(0x02) + lda_imm(0x00) + sta(0x00)
        for k in range(4):
            p += [0xA2, 0x00, 0xCA, 0xD0, 0xFD]
            p += store(0x1005, 0x9C + k)
        p += store(0x103D, 0xA0)            # fetcher 5's flag
        p += lda_imm(0x03) + sta(0x105D)   # music off: the counter counts again
        p += store(0x100D, 0xA1) + store(0x100D, 0xA2)
        p += store(0x100C, 0xA3)            # fetcher 4 after its two music reads: $4E
    for b in range(2):
        o = 4096 * b
        rom[o + 0x040] = 0x6B + b
        rom[o + 0xFC0] = 0x4E + b
        rom[o + 0xF00] = 0xD0 + b
        place(rom, o + 0x100, p, 0x1100)
        vectors(rom, o, 0xF100)
    return rom


def test_dpc_fetchers_random_and_banks():
    r = run_cule(dpc_rom(), "DPC")
    d = lambda c: display_byte(2047 - c)
    assert r[0x00] == d(0x123)
    assert r[0x01] == d(0x122)
    assert r[0x02] == 0x00
    assert r[0x03] == 0xFF
    assert r[0x04] == d(0x11F)
    assert r[0x05] == 0x00
    assert r[0x06] == 0x00
    assert r[0x07] == 0x00
    seq = [1]
    for _ in range(12):
        seq.append(dpc_next(seq[-1]))
    # STA $1070 leaves 1; every access to $1000-$107F and $1FC0-$1FFF clocks first.
    assert r[0x08:0x0C].tolist() == seq[1:5]
    assert r[0x0C] == 0x6C                   # bank 1's byte at $1040
    assert r[0x0D] == 0x4F                   # bank 1's byte at $1FC0
    assert r[0x0E] == seq[7]                 # $1040, $1FC0, then $1000
    assert r[0x10] == seq[8]                 # $1080 did not clock
    assert r[0x11] == 0xD1 and r[0x12] == 0xD0 and r[0x13] == 0xD1
    assert r[0x14] == d(0x340) and r[0x15] == d(0x340)   # music mode: reload from top, no count
    assert r[0x23] == d(0x04E)


def test_dpc_against_ale(tmp_path):
    check_against_ale(dpc_rom(), "DPC", tmp_path)


def test_dpc_rom_size_is_pitfall2():
    assert len(dpc_rom()) == load_rom("pitfall2").info["size"] == 10495
