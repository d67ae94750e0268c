// cule: cartridge mappers.  The ROM image lives outside the console state (one copy
// per game, in host or device memory, padded to at least 16 KB); a console only keeps
// its bank registers, cartridge RAM and coprocessor state (cart_state.hpp).
//
// cart_peek / cart_poke see every bus access with A12 set, dummy reads included, with
// the CPU's full 16-bit address (the Activision FE scheme decodes A13).
//
// Schemes (behaviour as ALE 0.12.1's Stella models it):
//   2K, 4K   no banking (2K mirrored twice).
//   F8       8K = two 4K banks; an access to $1FF8 / $1FF9 selects bank 0 / 1.
//            Starts in bank 1 ("F8 swapped" ROMs in bank 0).
//   F6       16K = four 4K banks; $1FF6..$1FF9 select banks 0..3.  Starts in bank 0.
//   F8SC,    F8 / F6 plus 128 bytes of RAM ("Superchip"): $1000-$107F is the write
//   F6SC     port, $1080-$10FF the read port.  A read of the write port returns the
//            ROM byte underneath; a write to the read port is lost.  The RAM gets
//            fresh random contents at every system reset.  F8SC starts in bank 1,
//            F6SC in bank 0.
//   E0       Parker Brothers, 8K in eight 1K slices.  The 4K window is four 1K
//            segments; segment 3 ($1C00) always shows slice 7, and an access to
//            $1FE0+n / $1FE8+n / $1FF0+n (n = 0..7) puts slice n into segment
//            0 / 1 / 2.  Segments 0-2 start with slices 4, 5, 6.
//   FE       Activision, 8K: no registers, the bank follows address line A13 (code
//            at $Fxxx runs from the first 4K of the image, code at $Dxxx from the
//            second 4K), so subroutine calls switch banks through the stack.
//   DPC      Pitfall II: 8K program (F8-style banks, starts in bank 1), 2K display
//            ROM behind the DPC's data fetchers, registers at $1000-$107F (reads
//            $1000-$103F, writes $1040-$107F), an 8-bit random number register and a
//            music mode for fetchers 5-7 clocked by a 15.75 kHz oscillator.
//            The random number register is clocked on every access to the register
//            page ($1000-$107F) and to the hotspot page ($1FC0-$1FFF) only, which is
//            where Stella's page table routes accesses through the cartridge.
#pragma once
#include "state.hpp"

namespace cule {

// ---- bank state at power-on and reset ----

// The 4K bank a cartridge selects at every system reset (and when plugged in).
CULE_HD uint8_t cart_reset_bank(uint8_t type) {
  switch (type) {
    case CART_F8:
    case CART_F8SC:
    case CART_DPC:
      return 1;
    default:
      return 0;
  }
}

CULE_HD void cart_select_reset_banks(Console& c, uint8_t type) {
  c.cart.bank = cart_reset_bank(type);
  if (type == CART_E0) {
    c.cart.slice[0] = 4;
    c.cart.slice[1] = 5;
    c.cart.slice[2] = 6;
  }
}

// Power-on state of the cartridge, before the first system reset.  The console is
// all zeros at this point.
CULE_HD void cart_power_on(Console& c, const GameConfig& g) {
  cart_select_reset_banks(c, g.cart_type);
  if (g.cart_type == CART_DPC) {
    // Fetcher registers, flags and counters clear, no music mode; the random number
    // register must never be zero and starts at 1.  Superchip RAM is left as is: the
    // system reset that always follows fills it.
    DpcState& d = c.cart.dpc;
    for (int i = 0; i < 8; ++i) { d.top[i] = 0; d.bottom[i] = 0; d.flag[i] = 0; d.counter[i] = 0; }
    d.music = 0;
    d.random = 1;
    d.last_cycles = 0;
    d.frac_clocks = 0.0;
  }
}

// The cartridge's part of System::reset() (it runs after the RIOT and the TIA, and
// after the system cycle counter went back to 0).  Superchip RAM is refilled from the
// system RNG here, one draw a byte; the DPC keeps its registers and only restarts its
// oscillator bookkeeping.
CULE_HD void cart_reset(Console& c, const GameConfig& g) {
  const uint8_t type = g.cart_type;
  if (type == CART_F8SC || type == CART_F6SC) {
    for (int i = 0; i < 128; ++i) c.cart.ram[i] = (uint8_t)mt_next(c.sys_rng);
  } else if (type == CART_DPC) {
    c.cart.dpc.last_cycles = (int32_t)c.cycles;
    c.cart.dpc.frac_clocks = 0.0;
  }
  cart_select_reset_banks(c, type);
}

// The cartridge's part of System::resetCycles(), called before the counter goes back
// to 0: the DPC keeps its last-update cycle relative to the new origin.
CULE_HD void cart_cycles_reset(Console& c, const GameConfig& g) {
  if (g.cart_type == CART_DPC)
    c.cart.dpc.last_cycles = (int32_t)((uint32_t)c.cart.dpc.last_cycles - c.cycles);
}

// ---- DPC ----

// One step of the DPC's shift register: the new low bit is the inverted parity of
// bits 7, 5, 4 and 3.
CULE_FI void dpc_clock_random(DpcState& d) {
  const uint32_t r = d.random;
  const uint32_t parity = ((r >> 7) ^ (r >> 5) ^ (r >> 4) ^ (r >> 3)) & 1u;
  d.random = (uint8_t)((r << 1) | (parity ^ 1u));
}

// Advance the music-mode fetchers by the oscillator clocks (15,750 Hz against the
// 1.19 MHz CPU clock) elapsed since the last update.  The fraction is carried in a
// double with the same operations Stella uses, so the rounding is identical.
CULE_HD void dpc_update_music(Console& c) {
  DpcState& d = c.cart.dpc;
  const int32_t cycles = (int32_t)(c.cycles - (uint32_t)d.last_cycles);
  d.last_cycles = (int32_t)c.cycles;
  const double clocks = ((15750.0 * (double)cycles) / 1193191.66666667) + d.frac_clocks;
  const int32_t whole = (int32_t)clocks;
  d.frac_clocks = clocks - (double)whole;
  if (whole <= 0) return;
  for (int x = 5; x <= 7; ++x) {
    if (!((d.music >> (x - 5)) & 1)) continue;
    const int32_t top = d.top[x];
    int32_t low = (int32_t)(d.counter[x] & 0x00FF);
    if (top != 0) {
      low -= whole % (top + 1);
      if (low < 0) low += top + 1;
    } else {
      low = 0;
    }
    if (low <= d.bottom[x]) d.flag[x] = 0x00;
    else if (low <= top) d.flag[x] = 0xFF;
    d.counter[x] = (uint16_t)((d.counter[x] & 0x0700) | (uint32_t)low);
  }
}

// A read of the DPC register page ($1000-$103F; a = address & $FFF < $40).
CULE_HD uint8_t dpc_read_register(Console& c, const uint8_t* rom, uint32_t a) {
  DpcState& d = c.cart.dpc;
  const uint32_t i = a & 7u;
  const uint32_t fn = (a >> 3) & 7u;
  const uint32_t low = d.counter[i] & 0x00FFu;
  if (low == d.top[i]) d.flag[i] = 0xFF;
  else if (low == d.bottom[i]) d.flag[i] = 0x00;
  const uint8_t* display = rom + 8192;
  uint8_t v = 0;
  switch (fn) {
    case 0:
      if (i < 4) {
        v = d.random;
      } else {
        // Music amplitude: the sum of the enabled voices' levels (4, 5 and 6).
        dpc_update_music(c);
        uint32_t amp = 0;
        if ((d.music & 1) && d.flag[5]) amp += 4;
        if ((d.music & 2) && d.flag[6]) amp += 5;
        if ((d.music & 4) && d.flag[7]) amp += 6;
        v = (uint8_t)amp;
      }
      break;
    case 1: v = display[2047 - d.counter[i]]; break;                 // display data
    case 2: v = (uint8_t)(display[2047 - d.counter[i]] & d.flag[i]); break;  // data AND flag
    case 7: v = d.flag[i]; break;                                     // flag
    default: v = 0; break;
  }
  // Every read steps the fetcher's counter down, except for a fetcher in music mode.
  if (i < 5 || !((d.music >> (i - 5)) & 1)) d.counter[i] = (uint16_t)((d.counter[i] - 1u) & 0x07FFu);
  return v;
}

// A write to the DPC register page ($1040-$107F).
CULE_HD void dpc_write_register(DpcState& d, uint32_t a, uint8_t v) {
  const uint32_t i = a & 7u;
  switch ((a >> 3) & 7u) {
    case 0:  // top
      d.top[i] = v;
      d.flag[i] = 0x00;
      break;
    case 1:  // bottom
      d.bottom[i] = v;
      break;
    case 2:  // counter low byte (a music-mode fetcher reloads from its top register)
      if (i >= 5 && ((d.music >> (i - 5)) & 1)) d.counter[i] = (uint16_t)((d.counter[i] & 0x0700) | d.top[i]);
      else d.counter[i] = (uint16_t)((d.counter[i] & 0x0700) | v);
      break;
    case 3:  // counter high bits; for fetchers 5-7 bit 4 turns music mode on or off
      d.counter[i] = (uint16_t)(((uint32_t)(v & 0x07) << 8) | (d.counter[i] & 0x00FF));
      if (i >= 5) {
        const uint8_t bit = (uint8_t)(1u << (i - 5));
        d.music = (uint8_t)((v & 0x10) ? (d.music | bit) : (d.music & ~bit));
      }
      break;
    case 6:  // reset the random number register
      d.random = 1;
      break;
    default:
      break;
  }
}

// ---- the bus hooks ----

// F8 / F6 style hotspots at the top of the 4K window.
CULE_FI void cart_hotspots(Console& c, uint8_t type, uint32_t a) {
  switch (type) {
    case CART_F8:
    case CART_F8_SWAPPED:
    case CART_F8SC:
    case CART_DPC:
      if (a == 0x0FF8) c.cart.bank = 0; else if (a == 0x0FF9) c.cart.bank = 1;
      break;
    case CART_F6:
    case CART_F6SC:
      if (a >= 0x0FF6 && a <= 0x0FF9) c.cart.bank = (uint8_t)(a - 0x0FF6);
      break;
    case CART_E0:
      if (a >= 0x0FE0 && a <= 0x0FF7) c.cart.slice[(a - 0x0FE0) >> 3] = (uint8_t)(a & 7);
      break;
    default:
      break;
  }
}

// A read with A12 set; addr is the CPU's full address.
CULE_FI uint8_t cart_peek(Console& c, uint8_t type, const uint8_t* rom, uint16_t addr) {
  const uint32_t a = addr & 0x0FFFu;
  switch (type) {
    case CART_2K: return rom[addr & 0x07FFu];
    case CART_4K: return rom[a];
    case CART_FE: return rom[a + ((addr & 0x2000u) ? 0u : 4096u)];
    case CART_E0: {
      cart_hotspots(c, type, a);
      const uint32_t seg = a >> 10;
      const uint32_t slice = seg == 3 ? 7u : c.cart.slice[seg];
      return rom[(slice << 10) + (a & 0x03FFu)];
    }
    case CART_F8SC:
    case CART_F6SC:
      if ((a & 0x0F80u) == 0x0080u) return c.cart.ram[a & 0x7Fu];   // read port
      cart_hotspots(c, type, a);
      return rom[(uint32_t)c.cart.bank * 4096u + a];
    case CART_DPC:
      if (a < 0x0080u) {
        dpc_clock_random(c.cart.dpc);
        if (a < 0x0040u) return dpc_read_register(c, rom, a);
      } else if (a >= 0x0FC0u) {
        dpc_clock_random(c.cart.dpc);
        cart_hotspots(c, type, a);
      }
      return rom[(uint32_t)c.cart.bank * 4096u + a];
    default:
      cart_hotspots(c, type, a);
      return rom[(uint32_t)c.cart.bank * 4096u + a];
  }
}

// A write with A12 set; addr is the CPU's full address.
CULE_FI void cart_poke(Console& c, uint8_t type, uint16_t addr, uint8_t v) {
  const uint32_t a = addr & 0x0FFFu;
  switch (type) {
    case CART_F8SC:
    case CART_F6SC:
      if (a < 0x0080u) { c.cart.ram[a] = v; return; }   // write port
      cart_hotspots(c, type, a);
      return;
    case CART_DPC:
      if (a < 0x0080u) {
        dpc_clock_random(c.cart.dpc);
        if (a >= 0x0040u) dpc_write_register(c.cart.dpc, a, v);
      } else if (a >= 0x0FC0u) {
        dpc_clock_random(c.cart.dpc);
        cart_hotspots(c, type, a);
      }
      return;
    default:
      cart_hotspots(c, type, a);
      return;
  }
}

}  // namespace cule
