"""RIOT (6532) interval timer, checked with a tiny test cartridge on the console bus.

Expected values follow the 6532 data sheet: a write of N loads the timer, which reads
N-1 right away and then drops by one every interval (8 cycles for TIM8T); when it
passes zero the interrupt flag (TIMINT bit 7) is set and INTIM wraps to $FF and below.
"""
import numpy as np

from cule import _core
from cule.roms import load_rom, native_config


def assemble():
    rom = bytearray([0xEA] * 2048)              # 2K cartridge at $F800, filled with NOP
    code = [
        0x78, 0xD8,                             # SEI; CLD
        0xA9, 10, 0x8D, 0x95, 0x02,             # LDA #10; STA TIM8T
        0xAD, 0x84, 0x02, 0x85, 0x80,           # LDA INTIM; STA $80    (3 cycles after the write)
    ] + [0xEA] * 10 + [                         # 20 cycles
        0xAD, 0x84, 0x02, 0x85, 0x81,           # LDA INTIM; STA $81    (30 cycles after)
        0xAD, 0x85, 0x02, 0x85, 0x82,           # LDA TIMINT; STA $82   (37 cycles: still counting)
    ] + [0xEA] * 30 + [                         # 60 cycles
        0xAD, 0x85, 0x02, 0x85, 0x83,           # LDA TIMINT; STA $83   (104 cycles: expired)
        0xAD, 0x84, 0x02, 0x85, 0x84,           # LDA INTIM; STA $84
        0xAD, 0x84, 0x02, 0x85, 0x85,           # LDA INTIM; STA $85
    ]
    here = 0xF800 + len(code)
    code += [0x4C, here & 0xFF, here >> 8]      # JMP *
    rom[:len(code)] = bytes(code)
    rom[0x7FC], rom[0x7FD] = 0x00, 0xF8         # reset vector -> $F800
    return bytes(rom)


def test_interval_timer_counts_and_flags(tmp_path):
    # Seaquest's settings (no mode selection, joysticks) on a 2K test cartridge.
    cfg = native_config(load_rom("seaquest"))
    cfg.update(cart_type=0, rom_size=2048)
    batch = _core.CpuBatch(cfg, assemble(), 1, 1)
    batch.load(np.zeros(1, np.uint32), np.zeros(1, np.uint16), np.zeros(1, np.uint8), 1, 0.25, 0,
               _core.NO_LIVES_LIMIT)
    ram = np.empty((1, 128), np.uint8)
    batch.read_ram(ram)
    r = ram[0]
    assert r[0] == 9                    # N - 1 right after the write
    assert r[1] == 6                    # 30 cycles later: three more 8-cycle intervals
    assert r[2] & 0x80 == 0             # no interrupt while counting
    assert r[3] & 0x80 == 0x80          # interrupt flag once the timer passed zero
    # Past zero INTIM counts down once a cycle from $FF (data sheet), so it has dropped
    # to $DD by the first read; reading INTIM puts it back on the 8-cycle interval, so
    # 7 cycles later it reads $DC.  ALE 0.12.1 reads the same (below).
    assert r[4] == 0xDD
    assert r[5] == 0xDC
    # The whole RAM as ALE 0.12.1 leaves it running the same cartridge (test_carts.py's
    # harness: Seaquest's settings, the file named after it).
    from test_carts import check_against_ale
    check_against_ale(assemble(), 0, tmp_path)
