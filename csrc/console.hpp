// cule: the console bus (6507 address decoding, 13-bit, as the Atari 2600 wires it)
// and the frame loop.  Address map: A12 set -> cartridge; else A7 clear -> TIA;
// else A9 clear -> RIOT RAM; else RIOT I/O and timer.
#pragma once
#include "state.hpp"
#include "cpu6507.hpp"
#include "tia.hpp"
#include "riot.hpp"
#include "cart.hpp"
#include "tia_sound.hpp"

namespace cule {

struct ResetMemo;      // ale_env.hpp
struct PowerOnState;   // ale_env.hpp

// The screens ALE's act saves before each frame it runs or refuses (record_screen_dir:
// ScreenExporter::saveNext of m_screen, ALE 0.12.1 StellaEnvironment::act), for one
// console on the host: entry k holds the frame buffers then, the current one first (ALE's
// screen, or with color_averaging the blend of the two).  Entries past `capacity` are
// counted but not written, so the caller can run the call again with room for them.
struct ScreenLog {
  uint8_t* data;             // capacity entries of 2 * kFrameBufferBytes
  int32_t capacity;
  int32_t count;
};

// One console's view of the machine for the duration of a call.
struct Machine {
  Console& c;
  const GameConfig& g;
  const uint8_t* rom;
  uint8_t* fbs;              // two frame buffers, kFrameBufferBytes each
  // The batch's reset_game memo (ale_env.hpp; null: none), and whether the reset_games
  // of this call follow a power-on (they record into the memo's power-on slots).
  ResetMemo* memo = nullptr;
  bool after_power_on = false;
  // The batch's console as power-on leaves it before the environment's part (ale_env.hpp:
  // the same for every console of a game), or null: power-on then emulates it.
  const PowerOnState* power_on = nullptr;
  // Set by ale_reset_game: the memo slot whose end state the console now holds (a reset
  // that took it, or the one that recorded it), -1 if none.  The noop-start memo
  // (ale_env.hpp) walks from there.
  int memo_slot = -1;
  // The console's last 512 audio samples (ALE getAudio), when the batch has sound
  // observations (GameConfig::sound); null otherwise.
  uint8_t* audio = nullptr;
  // Where acts log the screen before each frame (record_screen_dir); null: nowhere.
  // Host only: the CUDA backend never sets it.
  ScreenLog* screen_log = nullptr;

  CULE_HD uint8_t* fb() { return fbs + (c.tia.cur_buf ? kFrameBufferBytes : 0); }
};

CULE_FI void tia_poke(Machine& m, uint16_t addr, uint8_t value);

#if defined(__CUDACC__)
#define CULE_NOINLINE __device__ __host__ __noinline__
#else
#define CULE_NOINLINE inline __attribute__((noinline))
#endif

// ---- the bus as the CPU sees it while it runs a frame ----
//
// The common accesses (ROM fetches, RIOT RAM) are inlined into the CPU loop and work
// on copies held in the Bus (a local of run_frame, so they live in registers): the
// cycle counter, the last value on the data bus and whether the last access was a
// read.  Everything else (TIA, RIOT I/O, bank-switching hotspots, any other mapper)
// goes through an out-of-line call that first writes those copies back to the
// console, so the devices see exactly the state they would see otherwise.

// TIA or RIOT register read (address already reduced to 13 bits).
CULE_NOINLINE uint8_t bus_io_peek(Machine& m, uint16_t a) {
  Console& c = m.c;
  return (a & 0x0080) ? riot_peek(c, m.g, a) : tia_peek(c, m.g, m.fb(), a);
}

CULE_NOINLINE void bus_io_poke(Machine& m, uint16_t a, uint8_t v) {
  if (a & 0x0080) riot_poke(m.c, a, v);
  else tia_poke(m, a, v);
}

CULE_NOINLINE uint8_t bus_cart_peek(Machine& m, uint16_t a) {
  return cart_peek(m.c, m.g.cart_type, m.rom, a);
}

CULE_NOINLINE void bus_cart_poke(Machine& m, uint16_t a, uint8_t v) {
  cart_poke(m.c, m.g.cart_type, a, v);
}

// The ROM reads the Bus does itself, per mapper: offsets [lo, lo + len) of the 4K
// window (A12 set) hold no hotspot, register or RAM port, so a read there is a plain
// read of whatever ROM the mapper shows at that address.  Everything outside (F8/F6
// hotspots at $xFF6-$xFF9, E0's at $xFE0-$xFF7, the DPC's register and hotspot
// pages, the Superchip RAM read port) goes through cart_peek.
struct CartFastRange {
  uint16_t lo, len;
};

CULE_HD CartFastRange cart_fast_range(uint8_t type) {
  switch (type) {
    case CART_2K:
    case CART_4K:
    case CART_FE: return {0x000, 0x1000};
    case CART_E0: return {0x000, 0xFE0};
    case CART_F8SC:
    case CART_F6SC: return {0x100, 0xFF0 - 0x100};
    case CART_DPC: return {0x080, 0xFC0 - 0x080};
    default: return {0x000, 0xFF0};   // F8, F8 swapped, F6
  }
}

// Mappers that show one 4K bank (2K images mirrored) and have all their hotspots in
// $xFF6-$xFF9: the fast range starts at offset 0 and a ROM read is one masked load
// from the bank's start.
CULE_HD bool cart_is_plain(uint8_t type) {
  return type == CART_2K || type == CART_4K || type == CART_F8 || type == CART_F8_SWAPPED || type == CART_F6;
}

// Whether cart_peek / cart_poke can change what the mapper shows (bank registers).
CULE_HD bool cart_switches_banks(uint8_t type) {
  return type != CART_2K && type != CART_4K && type != CART_FE;
}

// Which 1K slice of the image each 1K segment of the cartridge window shows, for the
// mapper's type and bank registers: byte s of the low word for segment s (A10, A11)
// with A13 clear, of the high word with A13 set (FE banks on A13).  Two words the Bus
// keeps in registers, so a ROM read is one load (on a GPU a table in memory would put
// a second dependent load in front of every opcode and operand fetch).
CULE_NOINLINE uint64_t cart_segments(const CartState& k, uint8_t type) {
  uint64_t packed = 0;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t seg = i & 3u;           // 1K segment of the window
    uint32_t slice;                        // the 1K slice of the image shown there
    switch (type) {
      case CART_2K: slice = seg & 1u; break;
      case CART_4K: slice = seg; break;
      case CART_FE: slice = ((i & 4u) ? 0u : 4u) + seg; break;   // A13 set: the first 4K
      case CART_E0: slice = seg == 3 ? 7u : (uint32_t)k.slice[seg]; break;
      default: slice = (uint32_t)k.bank * 4u + seg; break;
    }
    packed |= (uint64_t)(slice & 0xFFu) << (8 * i);
  }
  return packed;
}

// The bank registers a Bus built its view of the ROM from.
CULE_FI uint32_t cart_bank_key(const CartState& k) {
  return (uint32_t)k.bank | ((uint32_t)k.slice[0] << 8) | ((uint32_t)k.slice[1] << 16) | ((uint32_t)k.slice[2] << 24);
}

// kPlain: the mapper is cart_is_plain (a ROM read is bank[offset & rom_mask]);
// otherwise any mapper (a ROM read in the fast range goes through cart_segments' slices).
// kOpcodeSwitch: whether Core::step dispatches on the host through its per-opcode
// copies (cpu6507.hpp, CULE_HOST_OPCODE_SWITCH); off for the DPC cart, whose much
// larger share of bus calls made those copies about 4% slower there.
// kHigh: the CPU runs as ALE's M6502High (GameConfig::cpu_high; cpu6507.hpp).
template <bool kPlain, bool kOpSwitch = true, bool kHigh = false>
struct BusT {
  static constexpr bool kOpcodeSwitch = kOpSwitch;
  static constexpr bool kCycleExact = kHigh;
  Machine& m;
  uint8_t* ram;              // RIOT RAM
  const uint8_t* rom;        // the image (!kPlain) or the current 4K bank (kPlain)
  uint32_t rom_mask;         // kPlain: 0x7FF for 2K images, else 0xFFF
  uint32_t bank_key;         // !kPlain: the bank registers seg_lo / seg_hi were built from
  uint32_t seg_lo, seg_hi;   // !kPlain: cart_segments (A13 clear / set)
  uint16_t fast_lo;          // window offsets [fast_lo, fast_lo + fast_len) are read here
  uint16_t fast_len;         // (16 bits, so the compiler drops the test for page 0 and 1 addresses)
  uint8_t switches;          // !kPlain: cart_switches_banks(type)
  uint32_t cycles;           // the console's cycle counter, kept here during a run
  uint8_t data_bus;
  uint8_t last_read;
  uint8_t stop;

  CULE_HD explicit BusT(Machine& mm)
      : m(mm), ram(mm.c.riot.ram), rom(mm.rom), rom_mask(mm.g.cart_type == CART_2K ? 0x7FFu : 0xFFFu),
        bank_key(cart_bank_key(mm.c.cart)), fast_lo(cart_fast_range(mm.g.cart_type).lo),
        fast_len(cart_fast_range(mm.g.cart_type).len), switches(cart_switches_banks(mm.g.cart_type) ? 1 : 0),
        cycles(mm.c.cycles), data_bus(mm.c.data_bus), last_read(mm.c.last_access_read), stop(mm.c.stop) {
    if (kPlain) refresh_plain();
    else build_segments();
  }

  CULE_FI void build_segments() {
    const uint64_t packed = cart_segments(m.c.cart, m.g.cart_type);
    seg_lo = (uint32_t)packed;
    seg_hi = (uint32_t)(packed >> 32);
  }

  CULE_FI void refresh_plain() { rom = m.rom + (uint32_t)m.c.cart.bank * 4096u; }
  // After a call into the mapper: follow the bank registers.
  CULE_FI void refresh_bank() {
    if (kPlain) {
      refresh_plain();
    } else if (switches) {
      const uint32_t key = cart_bank_key(m.c.cart);
      if (key != bank_key) {
        bank_key = key;
        build_segments();
      }
    }
  }
  // The ROM byte a read of addr (in the fast range) returns.
  CULE_FI uint8_t rom_at(uint16_t addr) const {
    if (kPlain) return rom[addr & rom_mask];
    const uint32_t slices = (addr & 0x2000) ? seg_hi : seg_lo;
    const uint32_t slice = (slices >> (8u * ((addr >> 10) & 3u))) & 0xFFu;
    return rom[(slice << 10) | (addr & 0x03FFu)];
  }
  // Whether addr is RIOT RAM: A12 clear, A9 clear, A7 set.
  CULE_FI static bool riot_ram(uint16_t addr) { return !(addr & 0x1000) && (addr & 0x0280) == 0x0080; }
  // Whether a read of addr is a plain ROM read.
  CULE_FI bool fast_rom(uint16_t addr) const {
    // Offset into the cartridge's 4K window; wraps to a large value below $1000.
    const uint32_t rom_off = (uint32_t)(addr & 0x1FFF) - 0x1000u;
    if (kPlain) return rom_off < (uint32_t)fast_len;
    return rom_off - (uint32_t)fast_lo < (uint32_t)fast_len;
  }
  // Accesses the Bus does itself, with no call out and no side effect: plain ROM reads
  // and RIOT RAM (peek / poke's inline branches); plain_byte is what such a read gives.
  // For the CPU's look at its next instruction (cpu6507 Core::next_is_io).
  CULE_FI bool plain_read(uint16_t addr) const { return fast_rom(addr) || riot_ram(addr); }
  CULE_FI bool plain_write(uint16_t addr) const { return riot_ram(addr); }
  CULE_FI uint8_t plain_byte(uint16_t addr) const { return fast_rom(addr) ? rom_at(addr) : ram[addr & 0x7F]; }

  // Write the copies back to the console (before a device call, and at the end).
  CULE_FI void store() {
    Console& c = m.c;
    c.cycles = cycles;
    c.data_bus = data_bus;
    c.last_access_read = last_read;
  }

  CULE_FI uint8_t peek(uint16_t addr) {
    uint8_t v;
    if (fast_rom(addr)) {
      v = rom_at(addr);
    } else if (addr & 0x1000) {
      store();
      v = bus_cart_peek(m, addr);   // the full address: FE banks on A13
      refresh_bank();
    } else if (riot_ram(addr)) {
      v = ram[addr & 0x7F];
    } else {
      store();
      v = bus_io_peek(m, (uint16_t)(addr & 0x1FFF));
    }
    data_bus = v;
    last_read = 1;
    return v;
  }
  CULE_FI void poke(uint16_t addr, uint8_t v) {
    if (addr & 0x1000) {
      store();
      bus_cart_poke(m, addr, v);
      refresh_bank();
    } else if (riot_ram(addr)) {
      ram[addr & 0x7F] = v;
    } else {
      store();
      bus_io_poke(m, (uint16_t)(addr & 0x1FFF), v);
      cycles = m.c.cycles;   // WSYNC moves the clock
      stop = m.c.stop;
    }
    data_bus = v;
    last_read = 0;
  }
  CULE_FI void add_cycles(uint32_t n) { cycles += n; }
  // The console's CPU cycle count in the frame (cpu_run's lane sync on a GPU).
  CULE_FI uint32_t clock() const { return cycles; }
  CULE_FI bool stopped() const { return stop != 0; }

  // Timer wait loops (called by the CPU right after a taken `BNE *-3` to loop_pc).
  // If loop_pc holds LDA/LDX/LDY abs of INTIM in plain ROM, works out how many
  // rounds of the loop (each `per_round` cycles; at most max_rounds) from now on
  // would read a timer value of 1 or more, which the RIOT hands out without side
  // effects, and skips them: the clock moves on, the data bus holds what the last
  // round left there (the branch offset).  Returns the rounds skipped, with the
  // load's opcode and the last value read.
  CULE_FI uint32_t skip_timer_wait(uint16_t loop_pc, uint32_t per_round, uint32_t max_rounds, uint8_t& opcode,
                                   uint8_t& value) {
    // The whole loop (LDA/LDX/LDY abs, BNE rel) is plain ROM.
    if (!fast_rom(loop_pc) || !fast_rom((uint16_t)(loop_pc + 4))) return 0;
    if (((loop_pc + 4) ^ loop_pc) & 0xFC00) return 0;   // and in one 1K segment
    const uint8_t op = rom_at(loop_pc);
    if (op != 0xAD && op != 0xAE && op != 0xAC) return 0;
    const uint32_t target = rom_at((uint16_t)(loop_pc + 1)) | ((uint32_t)rom_at((uint16_t)(loop_pc + 2)) << 8);
    if ((target & 0x1280) != 0x0280 || (target & 0x05) != 0x04) return 0;   // INTIM and its mirrors
    const RiotState& r = m.c.riot;
    if (r.timer < 2) return 0;
    // Round j reads at cycle cycles + per_round * j + 4; the RIOT counts from the
    // cycle before (riot_read_timer), and shows 1 or more while that delta is <= lim.
    const uint32_t d0 = cycles + 3 - (uint32_t)r.cycles_when_timer_set;
    const uint32_t lim = ((r.timer - 1) << r.interval_shift) - 1;
    if (d0 > lim) return 0;
    uint32_t rounds = (lim - d0) / per_round + 1;
    if (rounds > max_rounds) rounds = max_rounds;
    if (rounds == 0) return 0;
    const uint32_t last = d0 + per_round * (rounds - 1);
    value = (uint8_t)(r.timer - (last >> r.interval_shift) - 1);
    opcode = op;
    cycles += per_round * rounds;
    data_bus = rom_at((uint16_t)(loop_pc + 4));   // the branch offset
    last_read = 1;
    return rounds;
  }
};

// The bus for any mapper.
using Bus = BusT<false>;

// True when a write to a graphics register would leave the TIA's state exactly as it
// is (same value, and no side effect such as GRPx's vertical-delay copies).
CULE_FI bool tia_write_unchanged(const TiaState& t, uint16_t addr, uint8_t value) {
  switch (addr) {
    case 0x06: return tia_colour_value(t, value) == t.colup0;                           // COLUP0
    case 0x07: return tia_colour_value(t, value) == t.colup1;                           // COLUP1
    case 0x08: return tia_colour_value(t, value) == t.colupf;                           // COLUPF
    case 0x09: return tia_colour_value(t, value) == t.colubk;                           // COLUBK
    case 0x0B: return ((value & 0x08) ? 1 : 0) == t.refp0;                              // REFP0
    case 0x0C: return ((value & 0x08) ? 1 : 0) == t.refp1;                              // REFP1
    case 0x0D: return ((t.pf & 0x000FFFF0u) | ((value >> 4) & 0x0Fu)) == t.pf;          // PF0
    case 0x0E: return ((t.pf & 0x000FF00Fu) | ((uint32_t)value << 4)) == t.pf;          // PF1
    case 0x0F: return ((t.pf & 0x00000FFFu) | ((uint32_t)value << 12)) == t.pf;        // PF2
    case 0x1B: return value == t.grp0 && t.dgrp1 == t.grp1;                             // GRP0
    case 0x1C: return value == t.grp1 && t.dgrp0 == t.grp0 && t.denabl == t.enabl;      // GRP1
    case 0x1D: return ((value & 0x02) ? 1 : 0) == t.enam0;                              // ENAM0
    case 0x1E: return ((value & 0x02) ? 1 : 0) == t.enam1;                              // ENAM1
    case 0x1F: return ((value & 0x02) ? 1 : 0) == t.enabl;                              // ENABL
    case 0x25: return (value & 0x01) == t.vdelp0;                                       // VDELP0
    case 0x26: return (value & 0x01) == t.vdelp1;                                       // VDELP1
    case 0x27: return (value & 0x01) == t.vdelbl;                                       // VDELBL
    default: return false;
  }
}

// TIA write addresses after which the picture stays the same, whenever they are
// drawn: WSYNC/RSYNC, the audio registers, HMP0, HMP1, HMM1, HMBL, HMCLR (motion
// values only matter at HMOVE) and the unused addresses.  HMM0 is not among them: a
// write can arm Cosmic Ark's missile trick, which acts at line starts.
constexpr uint64_t kTiaNoCatchUp = (1ull << 0x02) | (1ull << 0x03) | (0x3Full << 0x15) | (1ull << 0x20) |
                                   (1ull << 0x21) | (1ull << 0x23) | (1ull << 0x24) | (1ull << 0x2B) |
                                   (0x7FFFFull << 0x2D);

// Stella TIA::poke(): every write first catches the picture up (plus the register's
// write delay), then takes effect.  Drawing is lazy and its result does not depend
// on where it is split, so the catch-up is left to the next access for writes that
// change nothing the picture depends on.
CULE_FI void tia_poke(Machine& m, uint16_t addr, uint8_t value) {
  Console& c = m.c;
  TiaState& t = c.tia;
  addr &= 0x003f;
  const int clock = (int)(c.cycles * 3);
  // Clocks since the frame started (never negative: the frame starts at or before
  // the first cycle counted), its position in the line, and whether the write is
  // past the last scanline allowed (line > max_scanlines, without a division).
  const uint32_t rel = (uint32_t)(clock - t.clk_frame_start);
  const int hpos = (int)(rel % kClocksPerLine);
  const bool last_line = rel >= (uint32_t)(t.max_scanlines + 1) * kClocksPerLine;
  if (last_line || tia_catch_up_needed(t, hpos)) {
    tia_update_frame(c, m.fb(), tia_catch_up_to(t, clock + tia_write_delay(addr, hpos)));
    if (last_line) {
      c.stop = 1;
      t.partial_frame = 0;
    }
  } else if ((kTiaNoCatchUp >> addr) & 1u) {
    if (clock > t.clk_pending) t.clk_pending = clock;   // (these registers have no delay)
  } else if (tia_write_unchanged(t, addr, value)) {
    // The write changes no state at all (games rewrite the same graphics, colours and
    // playfield line after line): nothing to catch up or to do.
    const int upto = clock + tia_write_delay(addr, hpos);
    if (upto > t.clk_pending) t.clk_pending = upto;
    return;
  } else {
    tia_update_frame(c, m.fb(), tia_catch_up_to(t, clock + tia_write_delay(addr, hpos)));
  }
  switch (addr) {
    case 0x00:  // VSYNC
      t.vsync = value;
      if (t.vsync & 0x02) {
        t.vsync_finish_clk = clock + kClocksPerLine;
      } else if (clock >= t.vsync_finish_clk) {
        t.vsync_finish_clk = 0x7FFFFFFF;
        c.stop = 1;
        t.partial_frame = 0;
      }
      break;
    case 0x01:  // VBLANK (bit 7 grounds the paddle pots)
      if (!(t.vblank & 0x80) && (value & 0x80)) t.dump_enabled = 1;
      if ((t.vblank & 0x80) && !(value & 0x80)) {
        t.dump_enabled = 0;
        t.dump_disabled_cycle = (int32_t)c.cycles;
      }
      t.vblank = value;
      break;
    case 0x02:  // WSYNC: halt the CPU until the end of the line
      if (c.last_access_read) {
        uint32_t line_cycle = (c.cycles - (uint32_t)(t.clk_frame_start / 3)) % 76;
        uint32_t to_end = 76 - line_cycle;
        if (to_end < 76) c.cycles += to_end;
      }
      break;
    case 0x03:  // RSYNC
      break;
    case 0x04:  // NUSIZ0
      t.nusiz0 = value;
      tia_point_p0(t, 0);
      tia_point_m0(t, 0);
      break;
    case 0x05:  // NUSIZ1
      t.nusiz1 = value;
      tia_point_p1(t, 0);
      tia_point_m1(t);
      break;
    case 0x06: t.colup0 = tia_colour_value(t, value); break;  // COLUP0
    case 0x07: t.colup1 = tia_colour_value(t, value); break;  // COLUP1
    case 0x08: t.colupf = tia_colour_value(t, value); break;  // COLUPF
    case 0x09: t.colubk = tia_colour_value(t, value); break;  // COLUBK
    case 0x0A:  // CTRLPF
      t.ctrlpf = value;
      t.prio_score = (uint8_t)((value & 0x06) << 5);
      if (hpos < kHBlank + 79) t.pfm_reflect = value & 0x01;
      tia_point_bl(t);
      break;
    case 0x0B: {  // REFP0
      uint8_t r = (value & 0x08) ? 1 : 0;
      if (r != t.refp0) { t.refp0 = r; t.cur_grp0 = reflect_byte(t.cur_grp0); }
      break;
    }
    case 0x0C: {  // REFP1
      uint8_t r = (value & 0x08) ? 1 : 0;
      if (r != t.refp1) { t.refp1 = r; t.cur_grp1 = reflect_byte(t.cur_grp1); }
      break;
    }
    case 0x0D:  // PF0
      t.pf = (t.pf & 0x000FFFF0u) | ((value >> 4) & 0x0F);
      tia_set_bit(t.enabled, BIT_PF, t.pf != 0);
      break;
    case 0x0E:  // PF1
      t.pf = (t.pf & 0x000FF00Fu) | ((uint32_t)value << 4);
      tia_set_bit(t.enabled, BIT_PF, t.pf != 0);
      break;
    case 0x0F:  // PF2
      t.pf = (t.pf & 0x00000FFFu) | ((uint32_t)value << 12);
      tia_set_bit(t.enabled, BIT_PF, t.pf != 0);
      break;
    case 0x10:    // RESP0
    case 0x11: {  // RESP1
      const bool p1 = addr == 0x11;
      int newx = hpos < kHBlank ? 3 : (((hpos - kHBlank) + 5) % 160);
      int16_t& pos = p1 ? t.posp1 : t.posp0;
      int when = player_reset_when((p1 ? t.nusiz1 : t.nusiz0) & 7, pos, newx);
      if (when == 1) tia_update_frame(c, m.fb(), clock + 11);
      pos = (int16_t)newx;
      if (p1) tia_point_p1(t, when == -1 ? 0 : 1); else tia_point_p0(t, when == -1 ? 0 : 1);
      break;
    }
    case 0x12:  // RESM0
      t.posm0 = (int16_t)(hpos < kHBlank ? 2 : (((hpos - kHBlank) + 4) % 160));
      if ((clock - t.last_hmove_clk) == 20 * 3 && hpos == 69) t.posm0 = 8;
      tia_point_m0(t, 0);
      break;
    case 0x13:  // RESM1
      t.posm1 = (int16_t)(hpos < kHBlank ? 2 : (((hpos - kHBlank) + 4) % 160));
      if ((clock - t.last_hmove_clk) == 3 * 3 && hpos == 18) t.posm1 = 3;
      tia_point_m1(t);
      break;
    case 0x14: {  // RESBL
      t.posbl = (int16_t)(hpos < kHBlank ? 2 : (((hpos - kHBlank) + 4) % 160));
      const int since = clock - t.last_hmove_clk;
      if (since == 18 * 3 && (hpos == 60 || hpos == 69)) t.posbl = 10;
      else if (since == 3 * 3 && hpos == 18) t.posbl = 3;
      else if (since == 7 * 3 && hpos == 30) t.posbl = 6;
      else if (since == 6 * 3 && hpos == 27) t.posbl = 5;
      tia_point_bl(t);
      break;
    }
    case 0x1B:  // GRP0
      t.grp0 = value;
      t.dgrp1 = t.grp1;
      tia_update_grp(t);
      break;
    case 0x1C:  // GRP1
      t.grp1 = value;
      t.dgrp0 = t.grp0;
      t.denabl = t.enabl;
      tia_update_grp(t);
      tia_set_bit(t.enabled, BIT_BL, t.vdelbl ? t.denabl : t.enabl);
      break;
    case 0x1D:  // ENAM0
      t.enam0 = (value & 0x02) ? 1 : 0;
      tia_set_bit(t.enabled, BIT_M0, t.enam0 && !t.resmp0);
      break;
    case 0x1E:  // ENAM1
      t.enam1 = (value & 0x02) ? 1 : 0;
      tia_set_bit(t.enabled, BIT_M1, t.enam1 && !t.resmp1);
      break;
    case 0x1F:  // ENABL
      t.enabl = (value & 0x02) ? 1 : 0;
      tia_set_bit(t.enabled, BIT_BL, t.vdelbl ? t.denabl : t.enabl);
      break;
    case 0x20: t.hmp0 = (int8_t)(value >> 4); break;  // HMP0
    case 0x21: t.hmp1 = (int8_t)(value >> 4); break;  // HMP1
    case 0x22: {  // HMM0 (a write right after HMOVE arms Cosmic Ark's missile trick)
      int8_t hm = (int8_t)(value >> 4);
      if (clock == t.last_hmove_clk + 21 * 3 && t.hmm0 == 7 && hm == 6) {
        t.cosmic_enabled = 1;
        t.cosmic_counter = 0;
      }
      t.hmm0 = hm;
      break;
    }
    case 0x23: t.hmm1 = (int8_t)(value >> 4); break;  // HMM1
    case 0x24: t.hmbl = (int8_t)(value >> 4); break;  // HMBL
    case 0x25:  // VDELP0
      t.vdelp0 = value & 0x01;
      tia_update_grp(t);
      break;
    case 0x26:  // VDELP1
      t.vdelp1 = value & 0x01;
      tia_update_grp(t);
      break;
    case 0x27:  // VDELBL
      t.vdelbl = value & 0x01;
      tia_set_bit(t.enabled, BIT_BL, t.vdelbl ? t.denabl : t.enabl);
      break;
    case 0x28:    // RESMP0
    case 0x29: {  // RESMP1: releasing the lock centres the missile on its player
      const bool p1 = addr == 0x29;
      uint8_t& lock = p1 ? t.resmp1 : t.resmp0;
      if (lock && !(value & 0x02)) {
        uint8_t mode = (p1 ? t.nusiz1 : t.nusiz0) & 7;
        int middle = mode == 5 ? 8 : mode == 7 ? 16 : 4;
        if (p1) { t.posm1 = (int16_t)((t.posp1 + middle) % 160); tia_point_m1(t); }
        else { t.posm0 = (int16_t)((t.posp0 + middle) % 160); tia_point_m0(t, 0); }
      }
      lock = (value & 0x02) ? 1 : 0;
      if (p1) tia_set_bit(t.enabled, BIT_M1, t.enam1 && !t.resmp1);
      else tia_set_bit(t.enabled, BIT_M0, t.enam0 && !t.resmp0);
      break;
    }
    case 0x2A: {  // HMOVE
      const int x = hpos / 3;
      if (t.allow_hmove_blanks && (x <= 20 || x == 75)) t.hmove_blank = 1;
      const HmoveStrobe strobe = hmove_strobe(x);
      int16_t* pos[5] = {&t.posp0, &t.posp1, &t.posm0, &t.posm1, &t.posbl};
      const int8_t hm[5] = {t.hmp0, t.hmp1, t.hmm0, t.hmm1, t.hmbl};
      for (int i = 0; i < 5; ++i) {
        int p = *pos[i] + hmove_apply(strobe, hm[i]);
        if (p >= 160) p -= 160; else if (p < 0) p += 160;
        *pos[i] = (int16_t)p;
      }
      tia_point_bl(t);
      tia_point_p0(t, 0);
      tia_point_p1(t, 0);
      tia_point_m0(t, 0);
      tia_point_m1(t);
      t.last_hmove_clk = clock;
      t.cosmic_enabled = 0;
      break;
    }
    case 0x2B:  // HMCLR
      t.hmp0 = t.hmp1 = t.hmm0 = t.hmm1 = t.hmbl = 0;
      break;
    case 0x2C:  // CXCLR
      t.collision = 0;
      break;
    default:    // audio registers (AUDC0..AUDV1) and unused addresses
      if (m.g.sound) sound_write(c.snd, addr, value);
      break;
  }
}

// ---- system-level operations ----

// System::resetCycles(): every device rebases on cycle 0.
CULE_HD void system_reset_cycles(Console& c, const GameConfig& g) {
  riot_cycles_reset(c);
  tia_cycles_reset(c);
  cart_cycles_reset(c, g);
  c.cycles = 0;
}

// System::reset(): devices reset in attach order (RIOT, TIA, cartridge), then the CPU.
CULE_BIG void system_reset(Machine& m, bool pal, uint16_t height) {
  Console& c = m.c;
  system_reset_cycles(c, m.g);
  riot_reset(c);
  tia_reset(c, m.fbs, m.g.ystart, height, pal, m.g.hmove_blanks != 0);
  cart_reset(c, m.g);
  Bus bus(m);
  cpu_reset(c.cpu, bus);
  bus.store();
  c.last_access_read = 1;
}

// TIA::startFrame().
CULE_HD void frame_start(Machine& m) {
  Console& c = m.c;
  TiaState& t = c.tia;
  t.cur_buf ^= 1;
  uint32_t clocks = (c.cycles * 3 - (uint32_t)t.clk_frame_start) % kClocksPerLine;
  system_reset_cycles(c, m.g);
  t.clk_frame_start = -(int32_t)clocks;
  t.clk_disp_start = t.clk_frame_start + kClocksPerLine * t.ystart;
  t.clk_disp_stop = t.clk_disp_start + kClocksPerLine * t.height;
  t.clk_last_update = t.clk_disp_start;
  t.clk_pending = t.clk_frame_start;
  t.clks_to_eol = kClocksPerLine;
  t.fb_pos = 0;
  if (t.color_loss) {
    if (t.scanline_count_last & 0x01) {
      t.colup0 |= 1; t.colup1 |= 1; t.colupf |= 1; t.colubk |= 1;
    } else {
      t.colup0 &= 0xfe; t.colup1 &= 0xfe; t.colupf &= 0xfe; t.colubk &= 0xfe;
    }
  }
  t.frame_greyed = 0;
  t.frame_rendered = 1;
}

#ifndef CULE_DEVICE_CPU_HIGH
#define CULE_DEVICE_CPU_HIGH 1
#endif

// The CPU part of run_frame on the host: up to 25,000 instructions on bus type B.
template <class B>
CULE_NOINLINE void run_frame_cpu(Machine& m) {
  B bus(m);
  cpu_run(m.c.cpu, bus, 25000);
  bus.store();
}

// TIA::update(): run the CPU until the TIA ends the frame (VSYNC, or a write past the
// last allowed scanline), or for at most 25,000 instructions.
// run_frame up to the CPU loop: a new frame starts unless the last one is unfinished.
// (scripts/simt_model.cpp runs the CPU loop of several consoles in between itself.)
CULE_FI void run_frame_begin(Machine& m) {
  Console& c = m.c;
  TiaState& t = c.tia;
  if (!t.partial_frame) frame_start(m);
  t.partial_frame = 1;
  if (!t.render) {
    // This part of the frame is not drawn: its buffer no longer matches ALE's.
    t.frame_rendered = 0;
    t.fb_exact &= (uint8_t)~(1u << t.cur_buf);
  }
  c.stop = 0;
}

// run_frame after the CPU loop: the scanline count, and a frame stopped by the
// instruction limit drawn (and greyed) as far as Stella would have drawn it.
CULE_FI void run_frame_end(Machine& m) {
  Console& c = m.c;
  TiaState& t = c.tia;
  uint32_t total = c.cycles * 3 - (uint32_t)t.clk_frame_start;
  t.current_scanline = (int32_t)(total / kClocksPerLine);
  if (t.partial_frame) {
    // Stopped by the instruction limit: draw what Stella would have drawn by now.
    tia_update_frame(c, m.fb(), t.clk_pending);
    if (t.render == 2) {
      // A tentative pass: leave the greying to the pass that redoes this one.
      t.frame_rendered = 0;
      t.fb_exact &= (uint8_t)~(1u << t.cur_buf);
    } else if (!t.frame_greyed && t.render) {
      tia_grey_out(c, m.fb());
    }
    t.frame_greyed = 1;
  } else {
    t.scanline_count_last = t.current_scanline;
    t.frame_greyed = 0;
    // A frame drawn from its first line to the last displayed one covers the whole
    // buffer; one that stopped early leaves older lines in place (exact only if they were).
    if (t.frame_rendered && t.fb_pos >= (uint32_t)t.height * 160u) t.fb_exact |= (uint8_t)(1u << t.cur_buf);
  }
}

CULE_BIG void run_frame(Machine& m) {
  run_frame_begin(m);
#if defined(__CUDACC__)
  // One copy of the CPU loop on a GPU, for every mapper (inline), and ALE's cpu="high"
  // core out of line: a batch runs one or the other.  (-DCULE_DEVICE_CPU_HIGH=0 builds
  // the kernels without the second, as before 2026-12-04: the backend then refuses
  // cpu="high", CudaBatch::supports_cpu_high.)
#if CULE_DEVICE_CPU_HIGH
  if (m.g.cpu_high) {
    run_frame_cpu<BusT<false, false, true>>(m);
  } else
#endif
  {
    Bus bus(m);
    cpu_run(m.c.cpu, bus, 25000);
    bus.store();
  }
#elif defined(CULE_CUDA_EMULATED)
  // The host emulation of the CUDA backend runs the GPU's buses for every mapper, so its
  // tests cover what the GPU runs.
  if (m.g.cpu_high) run_frame_cpu<BusT<false, false, true>>(m);
  else run_frame_cpu<Bus>(m);
#else
  // On the host the CPU loop has three copies (each inlined here; one function for all
  // made the compiler keep less of the CPU state in registers): the plain mappers', the
  // DPC's (with the table-driven step, see BusT) and every other mapper's; and a fourth,
  // table-driven, for ALE's cpu="high" on any mapper.
  if (m.g.cpu_high) run_frame_cpu<BusT<false, false, true>>(m);
  else if (cart_is_plain(m.g.cart_type)) run_frame_cpu<BusT<true>>(m);
  else if (m.g.cart_type == CART_DPC) run_frame_cpu<BusT<false, false>>(m);
  else run_frame_cpu<Bus>(m);
#endif
  run_frame_end(m);
}

}  // namespace cule
