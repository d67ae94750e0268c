// cule: MOS 6507 CPU core (the 6502 core of the Atari 2600, 13 address pins).
//
// Behaviour target: bit-exact with the "low compatibility" 6502 core of the
// Stella version embedded in ALE (ale-py 0.12.1).  That core is instruction
// granular, and the properties below are what an exact re-implementation has to
// reproduce, because the bus (TIA / RIOT / cartridge) sees them:
//
//   * Timing.  The opcode byte is read and PC advanced, then the whole base
//     cycle count of the instruction is charged at once, before any operand
//     access.  So a store to the TIA observes the cycle counter of the *end* of
//     the instruction.  Extra cycles are charged later, at the point they arise:
//       - read-only abs,X / abs,Y / (zp),Y when indexing crosses a page: +1,
//         charged just before the data read (never for stores / RMW);
//       - taken branch: +1, or +2 when the target lies in another page than the
//         address following the branch; charged after the offset read.
//   * Bus traffic.  Every access is issued in the reference order with the
//     reference address (unmasked 16 bit; the bus does the mirroring), dummy
//     reads included: BRK reads the byte after the opcode, JSR reads the stack
//     slot before pushing, PLA/PLP/RTI/RTS read the current stack slot before
//     incrementing SP, RTS reads the byte at the return address.  Operand NOPs
//     read their operand.  Read-modify-write instructions read once and write
//     once (no dummy write of the unmodified value).  JMP abs does not touch its
//     target.  Two-byte little-endian fetches read the low byte first.
//   * Addressing quirks.  zp,X and zp,Y wrap inside page zero, but the pointer
//     high byte of (zp,X) / (zp),Y is read from pointer+1 *without* wrapping
//     (pointer $FF takes its high byte from $0100).  JMP ($xxFF) takes the high
//     byte from $xx00 (the NMOS page bug).
//   * Status register.  Stored packed.  Bit 5 is always 1, and so is bit 4 (B):
//     the reference forces B on whenever P is loaded, so P as pushed by PHP and
//     BRK always has $30 set, and PLP / RTI can never clear either bit.
//   * Decimal mode.  ADC/SBC (and RRA/ISB) convert each operand nibble-wise to
//     binary (hi*10+lo, even for nibbles above 9), do the arithmetic, and convert
//     back modulo 100.  N/Z come from that result, V is computed from the BCD
//     result, C as described in op_adc / op_sbc.  Invalid BCD inputs therefore
//     give the reference's results, not the NMOS chip's.
//   * Undocumented opcodes as the reference maps them (SLO RLA SRE RRA SAX LAX
//     DCP ISB ANC ASR ARR ANE LXA SBX SHA SHS SHX SHY LAS, the NOPs, $EB = SBC).
//     The twelve JAM opcodes ($x2 for x = 0,1,2,3,4,5,6,7,9,B,D,F) are charged
//     2 cycles like any other fetch and then stop the CPU (CpuState::halted);
//     only cpu_reset restarts it.
//   * No IRQ/NMI (not wired on the 2600).
//
// ALE's other core, M6502High (its setting cpu="high"), is the same instruction set
// run as the chip runs it, access by access.  A bus whose kCycleExact is true gets it:
//   * every bus access charges one cycle just before it is made, and nothing else
//     charges cycles, so the TIA and RIOT see each access at its own cycle, and an
//     instruction takes as many cycles as it makes accesses (LAX zp: 3, not 4; a JAM
//     only its opcode fetch);
//   * the dummy accesses of the NMOS chip: implied and accumulator instructions (and
//     PHA PHP PLA PLP RTI RTS) read the byte after the opcode; zp,X / zp,Y / (zp,X)
//     read the unindexed zero-page address; abs,X / abs,Y / (zp),Y read the address
//     before the carry into the high byte (read-only ones only when the carry
//     happens, then the real address); a read-modify-write writes the unmodified byte
//     back before the result; a taken branch reads the byte after the offset, and
//     across a page the target's offset in the old page;
//   * the pointer of (zp,X) / (zp),Y wraps inside page zero ($FF takes its high byte
//     from $00);
//   * no skipped timer-wait rounds (Core::bne_to).
// Facts: ALE 0.12.1 M6502Hi.m4 / M6502Hi.ins and M6502.m4 (the instruction bodies).
//
// Everything is header-only, allocation-free and CULE_HD, so the same code runs
// in the CPU thread pool and inside CUDA kernels.  The Bus template parameter
// must provide (all CULE_HD):
//     uint8_t peek(uint16_t addr);
//     void    poke(uint16_t addr, uint8_t value);
//     void    add_cycles(uint32_t cpu_cycles);   // CPU cycles; the bus scales
#pragma once

#include <stdint.h>

#include "common.hpp"
#include "cpu6507_decode.hpp"

namespace cule {

// Architectural state of one CPU.  Plain data; 8 bytes.
struct CpuState {
  uint16_t pc;
  uint8_t a, x, y, sp;
  uint8_t p;       // packed N V 1 B D I Z C; bits 5 and 4 are always set
  uint8_t halted;  // 1 after a JAM opcode; cpu_step is then a no-op
};

namespace cpu6507 {

// Status register bits.
enum : uint8_t {
  kC = 0x01,
  kZ = 0x02,
  kI = 0x04,
  kD = 0x08,
  kB = 0x10,
  kU = 0x20,
  kV = 0x40,
  kN = 0x80,
};

// Bits of P that can never be clear.
constexpr uint8_t kAlwaysSet = kU | kB;

// Value of a packed-BCD byte, nibble by nibble: hi*10 + lo.  Nibbles above 9
// are not rejected ($FF -> 165).
CULE_HD uint32_t bcd_value(uint32_t b) { return (b >> 4) * 10u + (b & 0x0Fu); }

// Packed BCD of (t mod 100), for t in [0, 255].
CULE_HD uint8_t bcd_of(uint32_t t) {
  t %= 100u;
  return (uint8_t)(((t / 10u) << 4) | (t % 10u));
}

// Whether a bus offers skip_timer_wait (see Core::bne_to).
template <class B>
struct HasTimerWait {
  template <class T> static char test(decltype(&T::skip_timer_wait));
  template <class T> static long test(...);
  static constexpr bool value = sizeof(test<B>(nullptr)) == 1;
};

// Core::step's dispatch (see step()) in GPU code: 1, all 256 opcodes (the default since
// 2026-12-04: on the H200 it ran pong's emulation 1.38x and the vector env 1.95x as fast
// as the table-driven form, one run, docs/performance.md); 2, the 48 most frequent
// opcodes; 0, the table-driven form.
#ifndef CULE_DEVICE_OPCODE_SWITCH
#define CULE_DEVICE_OPCODE_SWITCH 1
#endif
// The same in host code: the CPU backend's per-opcode copies; the CUDA backend's host
// emulation runs the GPU's form; the host code of the CUDA module (the power-on state it
// emulates once per batch) keeps the table-driven form, which compiles faster.
#ifndef CULE_HOST_OPCODE_SWITCH
#if defined(CULE_CUDA_EMULATED)
#define CULE_HOST_OPCODE_SWITCH CULE_DEVICE_OPCODE_SWITCH
#elif defined(__CUDACC__)
#define CULE_HOST_OPCODE_SWITCH 0
#else
#define CULE_HOST_OPCODE_SWITCH 1
#endif
#endif

// The form the code being compiled uses: device code CULE_DEVICE_OPCODE_SWITCH, host
// code CULE_HOST_OPCODE_SWITCH (which takes 2 as well, so that the host emulation can
// run the GPU's partial form in tests).
#if defined(__CUDA_ARCH__)
#define CULE_OPCODE_SWITCH_HERE CULE_DEVICE_OPCODE_SWITCH
#else
#define CULE_OPCODE_SWITCH_HERE CULE_HOST_OPCODE_SWITCH
#endif
#if CULE_OPCODE_SWITCH_HERE < 0 || CULE_OPCODE_SWITCH_HERE > 2
#error "CULE_HOST_OPCODE_SWITCH / CULE_DEVICE_OPCODE_SWITCH: 0 (table-driven), 1 (all opcodes) or 2 (the 48 hot ones)"
#endif

// The 48 opcodes with their own copy in the partial switch (CULE_DEVICE_OPCODE_SWITCH=2):
// the most frequent over 12 games (see Core::step).  X(n) for each.
#define CULE_HOT_OPCODES(X)                                                                          \
  X(0x05) X(0x08) X(0x0A) X(0x10) X(0x18) X(0x20) X(0x24) X(0x25) X(0x29) X(0x30) X(0x38) X(0x4A) \
  X(0x4C) X(0x60) X(0x65) X(0x84) X(0x85) X(0x86) X(0x88) X(0x8A) X(0x90) X(0x95) X(0x98) X(0xA0) \
  X(0xA2) X(0xA4) X(0xA5) X(0xA6) X(0xA8) X(0xA9) X(0xAA) X(0xAD) X(0xB0) X(0xB1) X(0xB5) X(0xB9) \
  X(0xBD) X(0xC0) X(0xC4) X(0xC6) X(0xC8) X(0xC9) X(0xCA) X(0xD0) X(0xE5) X(0xE8) X(0xEA) X(0xF0)

// Bus::kOpcodeSwitch if the bus has it, else true.
template <class B>
constexpr CULE_HOST_DEVICE bool opcode_switch(decltype(B::kOpcodeSwitch)) { return B::kOpcodeSwitch; }
template <class B>
constexpr CULE_HOST_DEVICE bool opcode_switch(...) { return true; }

// Bus::kCycleExact if the bus has it (ALE's M6502High: see the top of this file), else false.
template <class B>
constexpr CULE_HOST_DEVICE bool cycle_exact(decltype(B::kCycleExact)) { return B::kCycleExact; }
template <class B>
constexpr CULE_HOST_DEVICE bool cycle_exact(...) { return false; }

// One instruction's worth of execution context.  The registers are copied in,
// worked on as locals and copied back, which lets the compiler keep them in
// registers across the whole instruction.
template <class Bus>
struct Core {
  // ALE's M6502High: a cycle charged at each access, the dummy accesses made.
  static constexpr bool kHigh = cycle_exact<Bus>(0);
  Bus& bus;
  uint16_t pc;
  uint8_t a, x, y, sp, p, halted;
  int budget;      // instructions cpu_run may still execute (not used by cpu_step)

  // Copy the registers back into the console's CPU state.
  CULE_FI void save(CpuState& s) const {
    s.pc = pc;
    s.a = a;
    s.x = x;
    s.y = y;
    s.sp = sp;
    s.p = p;
    s.halted = halted;
  }

  // ---- bus primitives ------------------------------------------------------
  // Addresses may be computed in int (e.g. pointer+1 = $0100); they are
  // truncated to 16 bits here, exactly like passing them to a uint16_t API.
  CULE_FI uint8_t rd(uint32_t addr) {
    if constexpr (kHigh) bus.add_cycles(1);
    return bus.peek((uint16_t)addr);
  }
  CULE_FI void wr(uint32_t addr, uint32_t v) {
    if constexpr (kHigh) bus.add_cycles(1);
    bus.poke((uint16_t)addr, (uint8_t)v);
  }
  CULE_FI void tick(uint32_t n) { bus.add_cycles(n); }

  // ---- flags ---------------------------------------------------------------
  // Set N and Z from v and return v.
  CULE_FI uint8_t set_nz(uint8_t v) {
    p = (uint8_t)((p & ~(kN | kZ)) | (v & kN) | (v ? 0 : kZ));
    return v;
  }
  CULE_FI void set_c(bool on) { p = (uint8_t)((p & ~kC) | (on ? kC : 0)); }
  CULE_FI void set_v(bool on) { p = (uint8_t)((p & ~kV) | (on ? kV : 0)); }
  CULE_FI uint32_t carry() const { return p & kC; }

  // ---- stack ---------------------------------------------------------------
  CULE_FI void push(uint8_t v) {
    wr(0x0100u + sp, v);
    sp = (uint8_t)(sp - 1);
  }
  // Reference pull sequence: read the current slot (discarded), step SP, then
  // read the new slot.  Used for the first pull of PLA/PLP/RTI/RTS.
  CULE_FI uint8_t pull_first() {
    (void)rd(0x0100u + sp);
    sp = (uint8_t)(sp + 1);
    return rd(0x0100u + sp);
  }
  // Subsequent pulls of RTI/RTS: step SP, read.
  CULE_FI uint8_t pull_next() {
    sp = (uint8_t)(sp + 1);
    return rd(0x0100u + sp);
  }

  // ---- operand fetch -------------------------------------------------------
  CULE_FI uint8_t fetch8() {
    const uint8_t v = rd(pc);
    pc = (uint16_t)(pc + 1);
    return v;
  }
  // Little-endian word at PC (low byte read first, then PC+1); PC += 2.
  CULE_FI uint16_t fetch16() {
    const uint32_t lo = rd(pc);
    const uint32_t hi = rd(pc + 1u);
    pc = (uint16_t)(pc + 2);
    return (uint16_t)(lo | (hi << 8));
  }
  // Pointer in page zero (already wrapped to 8 bits); high byte from ptr+1
  // without wrapping (M6502High: wrapped).
  CULE_FI uint16_t read_ptr(uint32_t ptr) {
    const uint32_t lo = rd(ptr);
    const uint32_t hi = rd(kHigh ? ((ptr + 1u) & 0xFFu) : ptr + 1u);
    return (uint16_t)(lo | (hi << 8));
  }
  // JMP (ind): the high byte comes from the same page as the low byte.
  CULE_FI uint16_t ea_ind() {
    const uint16_t ptr = fetch16();
    const uint32_t lo = rd(ptr);
    const uint32_t hi = rd((ptr & 0xFF00u) | ((ptr + 1u) & 0x00FFu));
    return (uint16_t)(lo | (hi << 8));
  }

  // (zp,X) / (zp),Y: the zero-page pointer for operand byte lo (X added, wrapped, for
  // (zp,X)).
  CULE_FI uint32_t pointer_of(uint32_t mode, uint32_t lo) const { return mode == kIndX ? (uint8_t)(lo + x) : lo; }
  // The effective address: base (the operand bytes, or what a pointer holds) plus the
  // mode's index register; the zero-page modes wrap inside page zero.
  CULE_FI uint32_t indexed(uint32_t mode, uint32_t base) const {
    const uint32_t index = (mode == kZpX || mode == kAbsX) ? x : (mode == kZpY || mode == kIndY || mode == kAbsY) ? y : 0u;
    return (mode <= kZpY) ? ((base + index) & 0xFFu) : ((base + index) & 0xFFFFu);
  }

  // ---- ALU -----------------------------------------------------------------
  CULE_FI void op_ora(uint8_t v) { a = set_nz((uint8_t)(a | v)); }
  CULE_FI void op_and(uint8_t v) { a = set_nz((uint8_t)(a & v)); }
  CULE_FI void op_eor(uint8_t v) { a = set_nz((uint8_t)(a ^ v)); }

  CULE_FI void op_cmp(uint8_t reg, uint8_t v) {
    set_nz((uint8_t)(reg - v));
    set_c(reg >= v);
  }

  CULE_FI void op_bit(uint8_t v) {
    p = (uint8_t)((p & ~(kN | kV | kZ)) | (v & (kN | kV)) | ((a & v) ? 0 : kZ));
  }

  // Binary add of a, v and C; SBC in binary mode is this with ~v.
  CULE_FI void add_binary(uint8_t v) {
    const uint32_t sum = (uint32_t)a + v + carry();
    // Signed overflow: both inputs have the same sign and the result differs.
    set_v((~(a ^ v) & (a ^ sum) & 0x80u) != 0);
    set_c(sum > 0xFFu);
    a = set_nz((uint8_t)sum);
  }

  CULE_FI void op_adc(uint8_t v) {
    if (!(p & kD)) {
      add_binary(v);
      return;
    }
    const uint8_t old_a = a;
    const uint32_t sum = bcd_value(a) + bcd_value(v) + carry();  // <= 331
    // C means "decimal sum above 99"; the byte used for conversion is the low
    // 8 bits of the sum (only matters for invalid BCD input).
    set_c(sum > 99u);
    a = set_nz(bcd_of(sum & 0xFFu));
    // V from the sign bits of the old A, the BCD result and the operand.
    set_v(((old_a ^ a) & 0x80u) && ((a ^ v) & 0x80u));
  }

  CULE_FI void op_sbc(uint8_t v) {
    if (!(p & kD)) {
      add_binary((uint8_t)~v);
      return;
    }
    const uint8_t old_a = a;
    const int32_t borrow = carry() ? 0 : 1;
    int32_t diff = (int32_t)bcd_value(a) - (int32_t)bcd_value(v) - borrow;
    if (diff < 0) diff += 100;
    // diff is now in [-66, 165].  The reference converts it with a 256-entry
    // "binary -> BCD" table; a still-negative index (only reachable with
    // invalid BCD operands) lands, in the reference's memory layout, in the
    // preceding "BCD -> binary" table at entry diff+256.  Reproduce that.
    uint8_t r;
    if (diff >= 0) {
      r = bcd_of((uint32_t)diff);
    } else {
      r = (uint8_t)bcd_value((uint32_t)(diff + 256));
    }
    a = set_nz(r);
    // C: plain unsigned compare of the raw bytes (old A >= v + borrow).
    set_c((int32_t)old_a >= (int32_t)v + borrow);
    set_v(((old_a ^ r) & 0x80u) && ((r ^ v) & 0x80u));
  }

  // ---- shifts (value in, value out; C, N, Z updated) ------------------------
  CULE_FI uint8_t shl(uint8_t v) {
    set_c(v & 0x80u);
    return set_nz((uint8_t)(v << 1));
  }
  CULE_FI uint8_t shr(uint8_t v) {
    set_c(v & 0x01u);
    return set_nz((uint8_t)(v >> 1));
  }
  CULE_FI uint8_t rol(uint8_t v) {
    const uint32_t cin = carry();
    set_c(v & 0x80u);
    return set_nz((uint8_t)((v << 1) | cin));
  }
  CULE_FI uint8_t ror(uint8_t v) {
    const uint32_t cin = carry() << 7;
    set_c(v & 0x01u);
    return set_nz((uint8_t)((v >> 1) | cin));
  }

  // ---- read-modify-write: one read, one write -------------------------------
  // Each mod_* takes the byte read, updates the registers and returns the byte to write
  // (no bus access, so doing the ALU part before the write changes nothing seen).
  CULE_FI uint8_t mod_inc(uint8_t m) { return set_nz((uint8_t)(m + 1)); }
  CULE_FI uint8_t mod_dec(uint8_t m) { return set_nz((uint8_t)(m - 1)); }
  // Undocumented combinations: the memory op, then the ALU op on A with its result.
  CULE_FI uint8_t mod_slo(uint8_t m) {
    set_c(m & 0x80u);
    const uint8_t r = (uint8_t)(m << 1);
    op_ora(r);
    return r;
  }
  CULE_FI uint8_t mod_rla(uint8_t m) {
    const uint8_t r = (uint8_t)((m << 1) | carry());
    set_c(m & 0x80u);
    op_and(r);
    return r;
  }
  CULE_FI uint8_t mod_sre(uint8_t m) {
    set_c(m & 0x01u);
    const uint8_t r = (uint8_t)(m >> 1);
    op_eor(r);
    return r;
  }
  CULE_FI uint8_t mod_rra(uint8_t m) {
    const uint8_t r = (uint8_t)((m >> 1) | (carry() << 7));
    set_c(m & 0x01u);  // the bit rotated out feeds the addition
    op_adc(r);
    return r;
  }
  CULE_FI uint8_t mod_dcp(uint8_t m) {
    const uint8_t r = (uint8_t)(m - 1);
    op_cmp(a, r);
    return r;
  }
  CULE_FI uint8_t mod_isb(uint8_t m) {
    const uint8_t r = (uint8_t)(m + 1);
    op_sbc(r);
    return r;
  }

  // ---- other undocumented ALU ops -------------------------------------------
  CULE_FI void op_anc(uint8_t v) {
    op_and(v);
    set_c(a & 0x80u);
  }
  CULE_FI void op_asr(uint8_t v) { a = shr((uint8_t)(a & v)); }
  CULE_FI void op_ane(uint8_t v) { a = set_nz((uint8_t)((a | 0xEEu) & x & v)); }
  CULE_FI void op_lxa(uint8_t v) { a = x = set_nz((uint8_t)((a | 0xEEu) & v)); }
  CULE_FI void op_las(uint8_t v) { a = x = sp = set_nz((uint8_t)(sp & v)); }
  CULE_FI void op_sbx(uint8_t v) {
    const uint8_t ax = (uint8_t)(a & x);
    set_c(ax >= v);
    x = set_nz((uint8_t)(ax - v));
  }
  CULE_FI void op_arr(uint8_t v) {
    const uint8_t t = (uint8_t)(a & v);
    const uint8_t r = (uint8_t)((t >> 1) | (carry() << 7));
    if (!(p & kD)) {
      a = set_nz(r);
      set_c(r & 0x40u);
      set_v(((r >> 6) ^ (r >> 5)) & 1u);  // bit 6 xor bit 5
      return;
    }
    // Decimal variant: N is the incoming carry, Z and V come from the
    // unadjusted result, then each nibble may get a BCD fix-up.
    p = (uint8_t)((p & ~(kN | kZ)) | ((p & kC) ? kN : 0) | (r ? 0 : kZ));
    set_v((t ^ r) & 0x40u);
    uint8_t res = r;
    if ((uint32_t)(t & 0x0Fu) + (t & 0x01u) > 0x05u) {
      res = (uint8_t)((res & 0xF0u) | ((res + 0x06u) & 0x0Fu));
    }
    const bool hi_fix = (uint32_t)(t & 0xF0u) + (t & 0x10u) > 0x50u;
    if (hi_fix) res = (uint8_t)(res + 0x60u);
    set_c(hi_fix);
    a = res;
  }
  // SHA/SHX/SHY/SHS store value & (high byte of the address + 1).
  CULE_FI static uint8_t sh_value(uint16_t ea, uint32_t v) { return (uint8_t)(v & (uint32_t)((ea >> 8) + 1u)); }

  // ---- control flow ----------------------------------------------------------
  // A taken branch, its offset byte fetched, to target: +1 cycle, +2 across a page
  // (M6502High: as many dummy reads).
  CULE_FI void branch_extra(uint16_t target) {
    if constexpr (kHigh) {
      (void)rd(pc);
      if ((pc ^ target) & 0xFF00u) (void)rd((pc & 0xFF00u) | (target & 0x00FFu));
    } else {
      tick(((pc ^ target) & 0xFF00u) ? 2 : 1);
    }
  }
  CULE_FI void branch_to(uint8_t off, bool taken) {
    if (!taken) return;
    const uint16_t target = (uint16_t)(pc + (int8_t)off);
    branch_extra(target);
    pc = target;
  }
  // BNE.  The loop `LDA INTIM / BNE *-3` (or LDX / LDY) is how games wait for the
  // RIOT timer, often for a good part of the frame.  When the bus can tell how many
  // more rounds of it would read a non-zero timer with no side effect, those rounds
  // are skipped at once: same cycles, registers, flags and data bus as running them.
  CULE_FI void bne_to(uint8_t off) {
    if (p & kZ) return;
    const uint16_t target = (uint16_t)(pc + (int8_t)off);
    const uint32_t extra = ((pc ^ target) & 0xFF00u) ? 2 : 1;
    branch_extra(target);
    pc = target;
    if constexpr (HasTimerWait<Bus>::value && !kHigh) {
      if (off == 0xFB && budget > 2) {
        uint8_t op = 0, v = 0;
        const uint32_t rounds = bus.skip_timer_wait(pc, 4 + 2 + extra, (uint32_t)(budget - 1) / 2, op, v);
        if (rounds) {
          budget -= (int)(2 * rounds);
          if (op == 0xAD) a = set_nz(v);
          else if (op == 0xAE) x = set_nz(v);
          else y = set_nz(v);
        }
      }
    }
  }
  CULE_FI void op_jsr() {
    const uint32_t lo = fetch8();
    (void)rd(0x0100u + sp);
    push((uint8_t)(pc >> 8));
    push((uint8_t)pc);
    const uint32_t hi = rd(pc);
    pc = (uint16_t)(lo | (hi << 8));
  }
  CULE_FI void op_rts() {
    const uint32_t lo = pull_first();
    const uint32_t hi = pull_next();
    pc = (uint16_t)(lo | (hi << 8));
    (void)fetch8();
  }
  CULE_FI void op_brk() {
    (void)fetch8();
    push((uint8_t)(pc >> 8));
    push((uint8_t)pc);
    push(p);
    p |= kI;
    const uint32_t lo = rd(0xFFFEu);
    const uint32_t hi = rd(0xFFFFu);
    pc = (uint16_t)(lo | (hi << 8));
  }
  CULE_FI void op_rti() {
    p = (uint8_t)(pull_first() | kAlwaysSet);
    const uint32_t lo = pull_next();
    const uint32_t hi = pull_next();
    pc = (uint16_t)(lo | (hi << 8));
  }
  CULE_FI void op_pla() { a = set_nz(pull_first()); }
  CULE_FI void op_plp() { p = (uint8_t)(pull_first() | kAlwaysSet); }

  // ---- one instruction -----------------------------------------------------
  // Decoded through kDecode (cpu6507_decode.hpp, one entry per opcode): charge the base
  // cycles; fetch the operand bytes; form the effective address (pointer reads for
  // (zp,X) / (zp),Y, the page-crossing cycle for read-only indexed modes); read the
  // data; apply the operation; write the result.  Each stage is one piece of code
  // whatever the opcode, so the lanes of a CUDA warp holding different opcodes stay
  // together through every bus access and part only in the small switch over the
  // operation (a switch with one case per opcode, each with its bus accesses inlined,
  // made a warp run every distinct opcode's case in turn).
  //
  // By default (CULE_HOST_OPCODE_SWITCH / CULE_DEVICE_OPCODE_SWITCH above) the opcode
  // selects one of 256 inlined copies of these stages, each with its decode entry a
  // constant, so the compiler folds the mode and access tests and the operation switch
  // away: the same code, instantiated per opcode (a bus with kOpcodeSwitch false keeps
  // the table-driven form).  On the 2026-11-30 development machine this made pong run
  // at 49.6k frames/s, one thread, against 32.7k table-driven; on the GPU, where lane
  // sync keeps a warp's lanes mostly on one opcode, it ran faster too (see above).
  CULE_FI void step() {
    const uint8_t opcode = fetch8();
#if CULE_OPCODE_SWITCH_HERE
    if (opcode_switch<Bus>(0)) {   // every case returns
#define CULE_OP1(n) \
  case (n): { constexpr uint32_t d_ = decode_const(n); execute((uint8_t)(n), d_); } return;
#define CULE_OP4(n) CULE_OP1(n) CULE_OP1((n) + 1) CULE_OP1((n) + 2) CULE_OP1((n) + 3)
#define CULE_OP16(n) CULE_OP4(n) CULE_OP4((n) + 4) CULE_OP4((n) + 8) CULE_OP4((n) + 12)
#define CULE_OP64(n) CULE_OP16(n) CULE_OP16((n) + 16) CULE_OP16((n) + 32) CULE_OP16((n) + 48)
#if CULE_OPCODE_SWITCH_HERE == 2
      // Only the 48 most frequent opcodes get their own copy (93% of the instructions
      // executed over 12 games, 85% or more in each; counted on the host with random
      // play), the others take the table-driven form below: less code for the
      // instruction cache.
      switch (opcode) { CULE_HOT_OPCODES(CULE_OP1) }
#else
      switch (opcode) { CULE_OP64(0) CULE_OP64(64) CULE_OP64(128) CULE_OP64(192) }
#endif
#undef CULE_OP64
#undef CULE_OP16
#undef CULE_OP4
#undef CULE_OP1
    }
#endif
    execute(opcode, decode_entry(opcode));   // the table-driven form
  }

  // One instruction after its opcode fetch: `d` is the opcode's decode entry.
  CULE_FI void execute(const uint8_t opcode, const uint32_t d) {
    const uint32_t mode = entry_mode(d);
    const uint32_t access = entry_access(d);
    if constexpr (!kHigh) tick((d >> 12) & 15u);
    if (mode == kSpecial) {
      // M6502High: PHP PLP RTI PHA RTS PLA read the byte after the opcode first.
      if constexpr (kHigh) {
        if ((opcode & 0x9Fu) == 0x08u || opcode == 0x40u || opcode == 0x60u) (void)rd(pc);
      }
      step_special(opcode);
      return;
    }
    uint32_t ea = pc;   // kImm: the operand byte
    if (mode == kImm) pc = (uint16_t)(pc + 1);
    if constexpr (kHigh) {
      if (mode == kImp) (void)rd(pc);
    }
    if (mode >= kRel) {
      uint32_t lo = fetch8();
      if (mode >= kAbs) lo |= (uint32_t)fetch8() << 8;
      // M6502High: zp,X / zp,Y / (zp,X) read the zero-page address before indexing.
      if constexpr (kHigh) {
        if (mode == kZpX || mode == kZpY || mode == kIndX) (void)rd(lo);
      }
      if (mode == kIndX || mode == kIndY) lo = read_ptr(pointer_of(mode, lo));
      ea = indexed(mode, lo);
      if constexpr (kHigh) {
        // The read before the carry into the high byte: always for writes and
        // read-modify-writes, for reads only when there is a carry.
        if (mode == kAbsX || mode == kAbsY || mode == kIndY) {
          const uint32_t uncarried = (lo & 0xFF00u) | (ea & 0x00FFu);
          if (access != kRead || uncarried != ea) (void)rd(uncarried);
        }
      } else if ((d & (1u << 16)) && ((lo ^ ea) & 0xFF00u)) {
        tick(1);   // read-only indexed, page crossed
      }
    }
    uint8_t v = 0;
    if (access & kRead) v = rd(ea);
    if constexpr (kHigh) {
      if (access == kRmw) wr(ea, v);   // the unmodified byte written back first
    }
    uint8_t r = 0;
    switch (d & 0x7Fu) {
      // read
      case kORA: op_ora(v); break;
      case kAND: op_and(v); break;
      case kEOR: op_eor(v); break;
      case kADC: op_adc(v); break;
      case kSBC: op_sbc(v); break;
      case kCMP: op_cmp(a, v); break;
      case kCPX: op_cmp(x, v); break;
      case kCPY: op_cmp(y, v); break;
      case kBIT: op_bit(v); break;
      case kLDA: a = set_nz(v); break;
      case kLDX: x = set_nz(v); break;
      case kLDY: y = set_nz(v); break;
      case kLAX: a = x = set_nz(v); break;
      case kANC: op_anc(v); break;
      case kASR: op_asr(v); break;
      case kARR: op_arr(v); break;
      case kANE: op_ane(v); break;
      case kLXA: op_lxa(v); break;
      case kSBX: op_sbx(v); break;
      case kLAS: op_las(v); break;
      // write
      case kSTA: r = a; break;
      case kSTX: r = x; break;
      case kSTY: r = y; break;
      case kSAX: r = (uint8_t)(a & x); break;
      case kSHA: r = sh_value((uint16_t)ea, a & x); break;
      case kSHX: r = sh_value((uint16_t)ea, x); break;
      case kSHY: r = sh_value((uint16_t)ea, y); break;
      case kSHS: sp = (uint8_t)(a & x); r = sh_value((uint16_t)ea, sp); break;
      // read-modify-write
      case kASL: r = shl(v); break;
      case kLSR: r = shr(v); break;
      case kROL: r = rol(v); break;
      case kROR: r = ror(v); break;
      case kINC: r = mod_inc(v); break;
      case kDEC: r = mod_dec(v); break;
      case kSLO: r = mod_slo(v); break;
      case kRLA: r = mod_rla(v); break;
      case kSRE: r = mod_sre(v); break;
      case kRRA: r = mod_rra(v); break;
      case kDCP: r = mod_dcp(v); break;
      case kISB: r = mod_isb(v); break;
      // implied
      case kASLA: a = shl(a); break;
      case kLSRA: a = shr(a); break;
      case kROLA: a = rol(a); break;
      case kRORA: a = ror(a); break;
      case kTAX: x = set_nz(a); break;
      case kTAY: y = set_nz(a); break;
      case kTXA: a = set_nz(x); break;
      case kTYA: a = set_nz(y); break;
      case kTSX: x = set_nz(sp); break;
      case kTXS: sp = x; break;
      case kINX: x = mod_inc(x); break;
      case kINY: y = mod_inc(y); break;
      case kDEX: x = mod_dec(x); break;
      case kDEY: y = mod_dec(y); break;
      case kCLC: p &= (uint8_t)~kC; break;
      case kSEC: p |= kC; break;
      case kCLI: p &= (uint8_t)~kI; break;
      case kSEI: p |= kI; break;
      case kCLD: p &= (uint8_t)~kD; break;
      case kSED: p |= kD; break;
      case kCLV: p &= (uint8_t)~kV; break;
      case kJMP: pc = (uint16_t)ea; break;
      // relative: ea holds the offset byte
      case kBPL: branch_to((uint8_t)ea, !(p & kN)); break;
      case kBMI: branch_to((uint8_t)ea, (p & kN) != 0); break;
      case kBVC: branch_to((uint8_t)ea, !(p & kV)); break;
      case kBVS: branch_to((uint8_t)ea, (p & kV) != 0); break;
      case kBCC: branch_to((uint8_t)ea, !(p & kC)); break;
      case kBCS: branch_to((uint8_t)ea, (p & kC) != 0); break;
      case kBNE: bne_to((uint8_t)ea); break;
      case kBEQ: branch_to((uint8_t)ea, (p & kZ) != 0); break;
      default: break;   // kNOP
    }
    if (access & kWrite) wr(ea, r);
  }

  // Whether the next instruction may make a bus access other than a plain ROM read or a
  // RIOT RAM access (the TIA, RIOT I/O and timer, a cartridge hotspot or port): the
  // accesses that call out of the CPU loop.  It reads the instruction, its operands and
  // pointers only where they are plain (else it answers true) and changes nothing.  An
  // approximation, wrong only at a cost in speed: a stack instruction counts as I/O
  // when its stack accesses (SP-2 .. SP+3) may leave the RAM half of page 1 (games
  // point SP at the TIA to set ENAM / ENABL with PHP), the other accesses of stack and
  // control-flow instructions (vectors, return addresses) as plain.  Used by cpu_run's
  // I/O convergence on a GPU (CULE_IO_CONVERGE).
  template <class B = Bus>
  CULE_FI bool next_is_io() const {
    const B& b = bus;
    if (!b.plain_read(pc)) return true;
    const uint32_t d = decode_entry(b.plain_byte(pc));
    const uint32_t mode = entry_mode(d);
    if (mode == kSpecial) return sp < 0x82u || sp > 0xFCu;
    if (mode == kImp) return false;
    const uint16_t p1 = (uint16_t)(pc + 1), p2 = (uint16_t)(pc + 2);
    if (!b.plain_read(p1)) return true;
    if (mode <= kRel) return false;   // immediate operand / branch offset: read above
    uint32_t lo = b.plain_byte(p1);
    if (mode >= kAbs) {
      if (!b.plain_read(p2)) return true;
      lo |= (uint32_t)b.plain_byte(p2) << 8;
    }
    if (mode == kIndX || mode == kIndY) {
      const uint32_t ptr = pointer_of(mode, lo);
      if (!b.plain_read((uint16_t)ptr) || !b.plain_read((uint16_t)(ptr + 1))) return true;
      lo = (uint32_t)b.plain_byte((uint16_t)ptr) | ((uint32_t)b.plain_byte((uint16_t)(ptr + 1)) << 8);
    }
    const uint16_t ea = (uint16_t)indexed(mode, lo);
    const uint32_t access = entry_access(d);
    return ((access & kRead) && !b.plain_read(ea)) || ((access & kWrite) && !b.plain_write(ea));
  }

  // Stack and control-flow instructions, JMP (ind) and JAM (base cycles already charged).
  CULE_FI void step_special(uint8_t opcode) {
    switch (opcode) {
      case 0x00: op_brk(); break;
      case 0x08: push(p); break;
      case 0x20: op_jsr(); break;
      case 0x28: op_plp(); break;
      case 0x40: op_rti(); break;
      case 0x48: push(a); break;
      case 0x60: op_rts(); break;
      case 0x68: op_pla(); break;
      case 0x6C: pc = ea_ind(); break;
      default: halted = 1; break;   // the twelve JAMs
    }
  }
};

}  // namespace cpu6507

// Power-on / RESET: registers cleared, SP = $FF, P = $30 (I clear), PC from the
// reset vector ($FFFC read before $FFFD).  Charges no cycles.  Clears `halted`.
template <class Bus>
CULE_HD void cpu_reset(CpuState& s, Bus& bus) {
  s.a = s.x = s.y = 0;
  s.sp = 0xFF;
  s.p = cpu6507::kAlwaysSet;
  s.halted = 0;
  const uint32_t lo = bus.peek((uint16_t)0xFFFCu);
  const uint32_t hi = bus.peek((uint16_t)0xFFFDu);
  s.pc = (uint16_t)(lo | (hi << 8));
}

// Execute exactly one instruction (nothing at all when halted).
template <class Bus>
CULE_HD void cpu_step(CpuState& s, Bus& bus) {
  if (s.halted) return;
  cpu6507::Core<Bus> c{bus, s.pc, s.a, s.x, s.y, s.sp, s.p, 0, 0};
  c.step();
  c.save(s);
}

// How the lanes of a CUDA warp share cpu_run's loop (GPU builds only; build-time
// switches, see scripts/simt_model.py for the host model that chose them).  The consoles
// of a warp run different instruction streams: a warp whose lanes each execute "their
// next instruction" every round runs every distinct operation case, and every lane's
// call out to the TIA / RIOT / cart, one after the other.
//
// CULE_LANE_SYNC=1 (the default): in each round only the lanes whose cycle count in the
// frame is within CULE_SYNC_SLACK CPU cycles of the warp's earliest lane execute; the
// others wait.  The consoles then stay together in emulated time, and since they run the
// same program, mostly at the same instruction: the model (32 consoles with noop starts
// and sticky random actions, 9 games) has a warp run 1.0-2.6 operation cases a round
// instead of 2.0-10.8 and call out in 23-38% of rounds instead of 43-94%, for 0-4% more
// rounds.  The earliest lane always executes, so the loop always ends.
//
// CULE_LANE_TEAM=1 (an experiment, off until a GPU has timed it; with lane sync): the
// minimum is taken over the lanes that entered cpu_run together (the team), each of
// which takes part in every round until every team lane's frame is over, so a round
// waits for the whole team and the team leaves the loop together.  With
// CULE_LANE_TEAM=0 the minimum is over __activemask(), the lanes converged at that
// point.  A warp that calls run_frame in several groups (Nsight Compute, k_vec_step,
// pong: about five groups a frame) syncs each group only within itself either way;
// CULE_FRAME_SYNC=1 (LaneTeam, common.hpp) gathers a warp's lanes before their frames.
//
// CULE_IO_CONVERGE=1 (an experiment, off; not with lane sync): the lanes whose next
// instruction would call out (Core::next_is_io) wait, up to CULE_IO_WAIT rounds, while
// other lanes still have plain instructions to run.
//
// Either way every console runs its own instructions in its own order: only when they
// run beside the other lanes' changes, so results are those of the CPU backend.
#ifndef CULE_IO_CONVERGE
#define CULE_IO_CONVERGE 0
#endif
#ifndef CULE_IO_WAIT
#define CULE_IO_WAIT 8
#endif
#ifndef CULE_LANE_SYNC
#define CULE_LANE_SYNC (CULE_IO_CONVERGE ? 0 : 1)
#endif
#ifndef CULE_SYNC_SLACK
#define CULE_SYNC_SLACK 4
#endif
#ifndef CULE_LANE_TEAM
#define CULE_LANE_TEAM 0
#endif
#if defined(__CUDA_ARCH__) && CULE_LANE_SYNC && __CUDA_ARCH__ >= 800
#define CULE_LANE_SYNC_ON 1
#else
#define CULE_LANE_SYNC_ON 0
#endif

// Runs up to max_instructions instructions, stopping early once bus.stopped() or the
// CPU halts; the registers stay in locals for the whole run.  Returns the number of
// instructions executed.
template <class Bus>
CULE_FI int cpu_run(CpuState& s, Bus& bus, int max_instructions) {
  if (s.halted) return 0;
  cpu6507::Core<Bus> c{bus, s.pc, s.a, s.x, s.y, s.sp, s.p, 0, max_instructions};
#if CULE_LANE_SYNC_ON && CULE_LANE_TEAM
  // The lanes that enter together stay together: each round every one of them takes
  // part in the minimum (a lane whose frame is over gives UINT32_MAX), so the round
  // waits for all of them and they leave together once every frame is over.
  const unsigned team = __activemask();
  bool running = c.budget > 0;
  for (;;) {
    // (a running lane's clock is kept below the finished lanes' mark)
    const uint32_t clock = bus.clock();
    const uint32_t now = running ? (clock < 0xFFFFFFFFu ? clock : 0xFFFFFFFEu) : 0xFFFFFFFFu;
    const uint32_t first = __reduce_min_sync(team, now);
    if (first == 0xFFFFFFFFu) break;
    if (running && now - first <= (uint32_t)CULE_SYNC_SLACK) {
      c.step();
      --c.budget;
      if (c.halted || bus.stopped() || c.budget <= 0) running = false;
    }
  }
#elif CULE_LANE_SYNC_ON
  while (c.budget > 0) {
    const uint32_t now = bus.clock();
    const uint32_t first = __reduce_min_sync(__activemask(), now);
    if (now - first <= (uint32_t)CULE_SYNC_SLACK) {
      c.step();
      --c.budget;
      if (c.halted || bus.stopped()) break;
    }
  }
#elif defined(__CUDA_ARCH__) && CULE_IO_CONVERGE
  int waited = 0;
  while (c.budget > 0) {
    const unsigned lanes = __activemask();
    const bool io = c.next_is_io();
    const unsigned plain = __ballot_sync(lanes, !io);
    if (io && plain != 0u && waited < CULE_IO_WAIT) {
      ++waited;
    } else {
      waited = 0;
      c.step();
      --c.budget;
      if (c.halted || bus.stopped()) break;
    }
  }
#else
  while (c.budget > 0) {
#if defined(CULE_CUDA_EMULATED)
    // The host emulation of the CUDA backend looks at each next instruction as the
    // GPU's I/O convergence would (and ignores the answer), so its tests show the look
    // changes nothing.
    (void)c.next_is_io();
#endif
    c.step();
    --c.budget;
    if (c.halted || bus.stopped()) break;
  }
#endif
  const int n = max_instructions - (c.budget > 0 ? c.budget : 0);
  c.save(s);
  return n;
}

}  // namespace cule
