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
// Everything is header-only, allocation-free and CULE_HD, so the same code runs
// in the CPU thread pool and inside CUDA kernels.  The Bus template parameter
// must provide (all CULE_HD):
//     uint8_t peek(uint16_t addr);
//     void    poke(uint16_t addr, uint8_t value);
//     void    add_cycles(uint32_t cpu_cycles);   // CPU cycles; the bus scales
#pragma once

#include <stdint.h>

#include "common.hpp"

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

// Whether a bus offers skip_timer_wait (see Core::op_bne).
template <class B>
struct HasTimerWait {
  template <class T> static char test(decltype(&T::skip_timer_wait));
  template <class T> static long test(...);
  static constexpr bool value = sizeof(test<B>(nullptr)) == 1;
};

// One instruction's worth of execution context.  The registers are copied in,
// worked on as locals and copied back, which lets the compiler keep them in
// registers across the whole instruction.
template <class Bus>
struct Core {
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
  CULE_FI uint8_t rd(uint32_t addr) { return bus.peek((uint16_t)addr); }
  CULE_FI void wr(uint32_t addr, uint32_t v) { bus.poke((uint16_t)addr, (uint8_t)v); }
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
  // without wrapping.
  CULE_FI uint16_t read_ptr(uint32_t ptr) {
    const uint32_t lo = rd(ptr);
    const uint32_t hi = rd(ptr + 1u);
    return (uint16_t)(lo | (hi << 8));
  }
  // base+index, charging the extra cycle if the page changes (read modes).
  CULE_FI uint16_t index_read(uint16_t base, uint8_t idx) {
    const uint16_t ea = (uint16_t)(base + idx);
    if ((base ^ ea) & 0xFF00u) tick(1);
    return ea;
  }

  // Effective addresses for stores and read-modify-write (no page penalty).
  CULE_FI uint16_t ea_zp() { return fetch8(); }
  CULE_FI uint16_t ea_zpx() { return (uint8_t)(fetch8() + x); }
  CULE_FI uint16_t ea_zpy() { return (uint8_t)(fetch8() + y); }
  CULE_FI uint16_t ea_abs() { return fetch16(); }
  CULE_FI uint16_t ea_absx() { return (uint16_t)(fetch16() + x); }
  CULE_FI uint16_t ea_absy() { return (uint16_t)(fetch16() + y); }
  CULE_FI uint16_t ea_indx() { return read_ptr((uint8_t)(fetch8() + x)); }
  CULE_FI uint16_t ea_indy() { return (uint16_t)(read_ptr(fetch8()) + y); }
  // JMP (ind): the high byte comes from the same page as the low byte.
  CULE_FI uint16_t ea_ind() {
    const uint16_t ptr = fetch16();
    const uint32_t lo = rd(ptr);
    const uint32_t hi = rd((ptr & 0xFF00u) | ((ptr + 1u) & 0x00FFu));
    return (uint16_t)(lo | (hi << 8));
  }

  // Operand values for read instructions (page penalty where applicable).
  CULE_FI uint8_t ld_imm() { return fetch8(); }
  CULE_FI uint8_t ld_zp() { return rd(ea_zp()); }
  CULE_FI uint8_t ld_zpx() { return rd(ea_zpx()); }
  CULE_FI uint8_t ld_zpy() { return rd(ea_zpy()); }
  CULE_FI uint8_t ld_abs() { return rd(ea_abs()); }
  CULE_FI uint8_t ld_absx() { return rd(index_read(fetch16(), x)); }
  CULE_FI uint8_t ld_absy() { return rd(index_read(fetch16(), y)); }
  CULE_FI uint8_t ld_indx() { return rd(ea_indx()); }
  CULE_FI uint8_t ld_indy() { return rd(index_read(read_ptr(fetch8()), y)); }

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
  CULE_FI void rmw_asl(uint16_t ea) { wr(ea, shl(rd(ea))); }
  CULE_FI void rmw_lsr(uint16_t ea) { wr(ea, shr(rd(ea))); }
  CULE_FI void rmw_rol(uint16_t ea) { wr(ea, rol(rd(ea))); }
  CULE_FI void rmw_ror(uint16_t ea) { wr(ea, ror(rd(ea))); }
  CULE_FI void rmw_inc(uint16_t ea) { wr(ea, set_nz((uint8_t)(rd(ea) + 1))); }
  CULE_FI void rmw_dec(uint16_t ea) { wr(ea, set_nz((uint8_t)(rd(ea) - 1))); }

  // Undocumented combinations: memory op, write back, then the ALU op on A.
  CULE_FI void rmw_slo(uint16_t ea) {
    const uint8_t m = rd(ea);
    set_c(m & 0x80u);
    const uint8_t r = (uint8_t)(m << 1);
    wr(ea, r);
    op_ora(r);
  }
  CULE_FI void rmw_rla(uint16_t ea) {
    const uint8_t m = rd(ea);
    const uint8_t r = (uint8_t)((m << 1) | carry());
    wr(ea, r);
    set_c(m & 0x80u);
    op_and(r);
  }
  CULE_FI void rmw_sre(uint16_t ea) {
    const uint8_t m = rd(ea);
    set_c(m & 0x01u);
    const uint8_t r = (uint8_t)(m >> 1);
    wr(ea, r);
    op_eor(r);
  }
  CULE_FI void rmw_rra(uint16_t ea) {
    const uint8_t m = rd(ea);
    const uint8_t r = (uint8_t)((m >> 1) | (carry() << 7));
    set_c(m & 0x01u);  // the bit rotated out feeds the addition
    wr(ea, r);
    op_adc(r);
  }
  CULE_FI void rmw_dcp(uint16_t ea) {
    const uint8_t r = (uint8_t)(rd(ea) - 1);
    wr(ea, r);
    op_cmp(a, r);
  }
  CULE_FI void rmw_isb(uint16_t ea) {
    const uint8_t r = (uint8_t)(rd(ea) + 1);
    wr(ea, r);
    op_sbc(r);
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
  CULE_FI void op_sh(uint16_t ea, uint32_t v) { wr(ea, v & (uint32_t)((ea >> 8) + 1u)); }
  CULE_FI void op_shs(uint16_t ea) {
    sp = (uint8_t)(a & x);
    op_sh(ea, sp);
  }

  // ---- control flow ----------------------------------------------------------
  CULE_FI void branch(bool taken) {
    const uint8_t off = ld_imm();
    if (!taken) return;
    const uint16_t target = (uint16_t)(pc + (int8_t)off);
    tick(((pc ^ target) & 0xFF00u) ? 2 : 1);
    pc = target;
  }
  // BNE.  The loop `LDA INTIM / BNE *-3` (or LDX / LDY) is how games wait for the
  // RIOT timer, often for a good part of the frame.  When the bus can tell how many
  // more rounds of it would read a non-zero timer with no side effect, those rounds
  // are skipped at once: same cycles, registers, flags and data bus as running them.
  CULE_FI void op_bne() {
    const uint8_t off = ld_imm();
    if (p & kZ) return;
    const uint16_t target = (uint16_t)(pc + (int8_t)off);
    const uint32_t extra = ((pc ^ target) & 0xFF00u) ? 2 : 1;
    tick(extra);
    pc = target;
    if constexpr (HasTimerWait<Bus>::value) {
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
  // Each case: charge the base cycle count, then run the addressing mode and
  // the operation.
  CULE_FI void step() {
    const uint8_t opcode = fetch8();
    switch (opcode) {
      case 0x00: tick(7); op_brk(); break;                             // BRK
      case 0x01: tick(6); op_ora(ld_indx()); break;                    // ORA (zp,X)
      case 0x02: tick(2); halted = 1; break;                           // JAM
      case 0x03: tick(8); rmw_slo(ea_indx()); break;                   // SLO (zp,X)  (undoc)
      case 0x04: tick(3); (void)ld_zp(); break;                        // NOP zp  (undoc)
      case 0x05: tick(3); op_ora(ld_zp()); break;                      // ORA zp
      case 0x06: tick(5); rmw_asl(ea_zp()); break;                     // ASL zp
      case 0x07: tick(5); rmw_slo(ea_zp()); break;                     // SLO zp  (undoc)
      case 0x08: tick(3); push(p); break;                              // PHP
      case 0x09: tick(2); op_ora(ld_imm()); break;                     // ORA #imm
      case 0x0A: tick(2); a = shl(a); break;                           // ASL A
      case 0x0B: tick(2); op_anc(ld_imm()); break;                     // ANC #imm  (undoc)
      case 0x0C: tick(4); (void)ld_abs(); break;                       // NOP abs  (undoc)
      case 0x0D: tick(4); op_ora(ld_abs()); break;                     // ORA abs
      case 0x0E: tick(6); rmw_asl(ea_abs()); break;                    // ASL abs
      case 0x0F: tick(6); rmw_slo(ea_abs()); break;                    // SLO abs  (undoc)
      case 0x10: tick(2); branch(!(p & kN)); break;                    // BPL rel
      case 0x11: tick(5); op_ora(ld_indy()); break;                    // ORA (zp),Y
      case 0x12: tick(2); halted = 1; break;                           // JAM
      case 0x13: tick(8); rmw_slo(ea_indy()); break;                   // SLO (zp),Y  (undoc)
      case 0x14: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0x15: tick(4); op_ora(ld_zpx()); break;                     // ORA zp,X
      case 0x16: tick(6); rmw_asl(ea_zpx()); break;                    // ASL zp,X
      case 0x17: tick(6); rmw_slo(ea_zpx()); break;                    // SLO zp,X  (undoc)
      case 0x18: tick(2); p &= (uint8_t)~kC; break;                    // CLC
      case 0x19: tick(4); op_ora(ld_absy()); break;                    // ORA abs,Y
      case 0x1A: tick(2); break;                                       // NOP  (undoc)
      case 0x1B: tick(7); rmw_slo(ea_absy()); break;                   // SLO abs,Y  (undoc)
      case 0x1C: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0x1D: tick(4); op_ora(ld_absx()); break;                    // ORA abs,X
      case 0x1E: tick(7); rmw_asl(ea_absx()); break;                   // ASL abs,X
      case 0x1F: tick(7); rmw_slo(ea_absx()); break;                   // SLO abs,X  (undoc)
      case 0x20: tick(6); op_jsr(); break;                             // JSR
      case 0x21: tick(6); op_and(ld_indx()); break;                    // AND (zp,X)
      case 0x22: tick(2); halted = 1; break;                           // JAM
      case 0x23: tick(8); rmw_rla(ea_indx()); break;                   // RLA (zp,X)  (undoc)
      case 0x24: tick(3); op_bit(ld_zp()); break;                      // BIT zp
      case 0x25: tick(3); op_and(ld_zp()); break;                      // AND zp
      case 0x26: tick(5); rmw_rol(ea_zp()); break;                     // ROL zp
      case 0x27: tick(5); rmw_rla(ea_zp()); break;                     // RLA zp  (undoc)
      case 0x28: tick(4); op_plp(); break;                             // PLP
      case 0x29: tick(2); op_and(ld_imm()); break;                     // AND #imm
      case 0x2A: tick(2); a = rol(a); break;                           // ROL A
      case 0x2B: tick(2); op_anc(ld_imm()); break;                     // ANC #imm  (undoc)
      case 0x2C: tick(4); op_bit(ld_abs()); break;                     // BIT abs
      case 0x2D: tick(4); op_and(ld_abs()); break;                     // AND abs
      case 0x2E: tick(6); rmw_rol(ea_abs()); break;                    // ROL abs
      case 0x2F: tick(6); rmw_rla(ea_abs()); break;                    // RLA abs  (undoc)
      case 0x30: tick(2); branch((p & kN)); break;                     // BMI rel
      case 0x31: tick(5); op_and(ld_indy()); break;                    // AND (zp),Y
      case 0x32: tick(2); halted = 1; break;                           // JAM
      case 0x33: tick(8); rmw_rla(ea_indy()); break;                   // RLA (zp),Y  (undoc)
      case 0x34: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0x35: tick(4); op_and(ld_zpx()); break;                     // AND zp,X
      case 0x36: tick(6); rmw_rol(ea_zpx()); break;                    // ROL zp,X
      case 0x37: tick(6); rmw_rla(ea_zpx()); break;                    // RLA zp,X  (undoc)
      case 0x38: tick(2); p |= kC; break;                              // SEC
      case 0x39: tick(4); op_and(ld_absy()); break;                    // AND abs,Y
      case 0x3A: tick(2); break;                                       // NOP  (undoc)
      case 0x3B: tick(7); rmw_rla(ea_absy()); break;                   // RLA abs,Y  (undoc)
      case 0x3C: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0x3D: tick(4); op_and(ld_absx()); break;                    // AND abs,X
      case 0x3E: tick(7); rmw_rol(ea_absx()); break;                   // ROL abs,X
      case 0x3F: tick(7); rmw_rla(ea_absx()); break;                   // RLA abs,X  (undoc)
      case 0x40: tick(6); op_rti(); break;                             // RTI
      case 0x41: tick(6); op_eor(ld_indx()); break;                    // EOR (zp,X)
      case 0x42: tick(2); halted = 1; break;                           // JAM
      case 0x43: tick(8); rmw_sre(ea_indx()); break;                   // SRE (zp,X)  (undoc)
      case 0x44: tick(3); (void)ld_zp(); break;                        // NOP zp  (undoc)
      case 0x45: tick(3); op_eor(ld_zp()); break;                      // EOR zp
      case 0x46: tick(5); rmw_lsr(ea_zp()); break;                     // LSR zp
      case 0x47: tick(5); rmw_sre(ea_zp()); break;                     // SRE zp  (undoc)
      case 0x48: tick(3); push(a); break;                              // PHA
      case 0x49: tick(2); op_eor(ld_imm()); break;                     // EOR #imm
      case 0x4A: tick(2); a = shr(a); break;                           // LSR A
      case 0x4B: tick(2); op_asr(ld_imm()); break;                     // ASR #imm  (undoc)
      case 0x4C: tick(3); pc = ea_abs(); break;                        // JMP abs
      case 0x4D: tick(4); op_eor(ld_abs()); break;                     // EOR abs
      case 0x4E: tick(6); rmw_lsr(ea_abs()); break;                    // LSR abs
      case 0x4F: tick(6); rmw_sre(ea_abs()); break;                    // SRE abs  (undoc)
      case 0x50: tick(2); branch(!(p & kV)); break;                    // BVC rel
      case 0x51: tick(5); op_eor(ld_indy()); break;                    // EOR (zp),Y
      case 0x52: tick(2); halted = 1; break;                           // JAM
      case 0x53: tick(8); rmw_sre(ea_indy()); break;                   // SRE (zp),Y  (undoc)
      case 0x54: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0x55: tick(4); op_eor(ld_zpx()); break;                     // EOR zp,X
      case 0x56: tick(6); rmw_lsr(ea_zpx()); break;                    // LSR zp,X
      case 0x57: tick(6); rmw_sre(ea_zpx()); break;                    // SRE zp,X  (undoc)
      case 0x58: tick(2); p &= (uint8_t)~kI; break;                    // CLI
      case 0x59: tick(4); op_eor(ld_absy()); break;                    // EOR abs,Y
      case 0x5A: tick(2); break;                                       // NOP  (undoc)
      case 0x5B: tick(7); rmw_sre(ea_absy()); break;                   // SRE abs,Y  (undoc)
      case 0x5C: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0x5D: tick(4); op_eor(ld_absx()); break;                    // EOR abs,X
      case 0x5E: tick(7); rmw_lsr(ea_absx()); break;                   // LSR abs,X
      case 0x5F: tick(7); rmw_sre(ea_absx()); break;                   // SRE abs,X  (undoc)
      case 0x60: tick(6); op_rts(); break;                             // RTS
      case 0x61: tick(6); op_adc(ld_indx()); break;                    // ADC (zp,X)
      case 0x62: tick(2); halted = 1; break;                           // JAM
      case 0x63: tick(8); rmw_rra(ea_indx()); break;                   // RRA (zp,X)  (undoc)
      case 0x64: tick(3); (void)ld_zp(); break;                        // NOP zp  (undoc)
      case 0x65: tick(3); op_adc(ld_zp()); break;                      // ADC zp
      case 0x66: tick(5); rmw_ror(ea_zp()); break;                     // ROR zp
      case 0x67: tick(5); rmw_rra(ea_zp()); break;                     // RRA zp  (undoc)
      case 0x68: tick(4); op_pla(); break;                             // PLA
      case 0x69: tick(2); op_adc(ld_imm()); break;                     // ADC #imm
      case 0x6A: tick(2); a = ror(a); break;                           // ROR A
      case 0x6B: tick(2); op_arr(ld_imm()); break;                     // ARR #imm  (undoc)
      case 0x6C: tick(5); pc = ea_ind(); break;                        // JMP (abs)
      case 0x6D: tick(4); op_adc(ld_abs()); break;                     // ADC abs
      case 0x6E: tick(6); rmw_ror(ea_abs()); break;                    // ROR abs
      case 0x6F: tick(6); rmw_rra(ea_abs()); break;                    // RRA abs  (undoc)
      case 0x70: tick(2); branch((p & kV)); break;                     // BVS rel
      case 0x71: tick(5); op_adc(ld_indy()); break;                    // ADC (zp),Y
      case 0x72: tick(2); halted = 1; break;                           // JAM
      case 0x73: tick(8); rmw_rra(ea_indy()); break;                   // RRA (zp),Y  (undoc)
      case 0x74: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0x75: tick(4); op_adc(ld_zpx()); break;                     // ADC zp,X
      case 0x76: tick(6); rmw_ror(ea_zpx()); break;                    // ROR zp,X
      case 0x77: tick(6); rmw_rra(ea_zpx()); break;                    // RRA zp,X  (undoc)
      case 0x78: tick(2); p |= kI; break;                              // SEI
      case 0x79: tick(4); op_adc(ld_absy()); break;                    // ADC abs,Y
      case 0x7A: tick(2); break;                                       // NOP  (undoc)
      case 0x7B: tick(7); rmw_rra(ea_absy()); break;                   // RRA abs,Y  (undoc)
      case 0x7C: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0x7D: tick(4); op_adc(ld_absx()); break;                    // ADC abs,X
      case 0x7E: tick(7); rmw_ror(ea_absx()); break;                   // ROR abs,X
      case 0x7F: tick(7); rmw_rra(ea_absx()); break;                   // RRA abs,X  (undoc)
      case 0x80: tick(2); (void)ld_imm(); break;                       // NOP #imm  (undoc)
      case 0x81: tick(6); wr(ea_indx(), a); break;                     // STA (zp,X)
      case 0x82: tick(2); (void)ld_imm(); break;                       // NOP #imm  (undoc)
      case 0x83: tick(6); wr(ea_indx(), a & x); break;                 // SAX (zp,X)  (undoc)
      case 0x84: tick(3); wr(ea_zp(), y); break;                       // STY zp
      case 0x85: tick(3); wr(ea_zp(), a); break;                       // STA zp
      case 0x86: tick(3); wr(ea_zp(), x); break;                       // STX zp
      case 0x87: tick(3); wr(ea_zp(), a & x); break;                   // SAX zp  (undoc)
      case 0x88: tick(2); y = set_nz((uint8_t)(y - 1)); break;         // DEY
      case 0x89: tick(2); (void)ld_imm(); break;                       // NOP #imm  (undoc)
      case 0x8A: tick(2); a = set_nz(x); break;                        // TXA
      case 0x8B: tick(2); op_ane(ld_imm()); break;                     // ANE #imm  (undoc)
      case 0x8C: tick(4); wr(ea_abs(), y); break;                      // STY abs
      case 0x8D: tick(4); wr(ea_abs(), a); break;                      // STA abs
      case 0x8E: tick(4); wr(ea_abs(), x); break;                      // STX abs
      case 0x8F: tick(4); wr(ea_abs(), a & x); break;                  // SAX abs  (undoc)
      case 0x90: tick(2); branch(!(p & kC)); break;                    // BCC rel
      case 0x91: tick(6); wr(ea_indy(), a); break;                     // STA (zp),Y
      case 0x92: tick(2); halted = 1; break;                           // JAM
      case 0x93: tick(6); op_sh(ea_indy(), a & x); break;              // SHA (zp),Y  (undoc)
      case 0x94: tick(4); wr(ea_zpx(), y); break;                      // STY zp,X
      case 0x95: tick(4); wr(ea_zpx(), a); break;                      // STA zp,X
      case 0x96: tick(4); wr(ea_zpy(), x); break;                      // STX zp,Y
      case 0x97: tick(4); wr(ea_zpy(), a & x); break;                  // SAX zp,Y  (undoc)
      case 0x98: tick(2); a = set_nz(y); break;                        // TYA
      case 0x99: tick(5); wr(ea_absy(), a); break;                     // STA abs,Y
      case 0x9A: tick(2); sp = x; break;                               // TXS
      case 0x9B: tick(5); op_shs(ea_absy()); break;                    // SHS abs,Y  (undoc)
      case 0x9C: tick(5); op_sh(ea_absx(), y); break;                  // SHY abs,X  (undoc)
      case 0x9D: tick(5); wr(ea_absx(), a); break;                     // STA abs,X
      case 0x9E: tick(5); op_sh(ea_absy(), x); break;                  // SHX abs,Y  (undoc)
      case 0x9F: tick(5); op_sh(ea_absy(), a & x); break;              // SHA abs,Y  (undoc)
      case 0xA0: tick(2); y = set_nz(ld_imm()); break;                 // LDY #imm
      case 0xA1: tick(6); a = set_nz(ld_indx()); break;                // LDA (zp,X)
      case 0xA2: tick(2); x = set_nz(ld_imm()); break;                 // LDX #imm
      case 0xA3: tick(6); a = x = set_nz(ld_indx()); break;            // LAX (zp,X)  (undoc)
      case 0xA4: tick(3); y = set_nz(ld_zp()); break;                  // LDY zp
      case 0xA5: tick(3); a = set_nz(ld_zp()); break;                  // LDA zp
      case 0xA6: tick(3); x = set_nz(ld_zp()); break;                  // LDX zp
      case 0xA7: tick(4); a = x = set_nz(ld_zp()); break;              // LAX zp  (undoc)
      case 0xA8: tick(2); y = set_nz(a); break;                        // TAY
      case 0xA9: tick(2); a = set_nz(ld_imm()); break;                 // LDA #imm
      case 0xAA: tick(2); x = set_nz(a); break;                        // TAX
      case 0xAB: tick(2); op_lxa(ld_imm()); break;                     // LXA #imm  (undoc)
      case 0xAC: tick(4); y = set_nz(ld_abs()); break;                 // LDY abs
      case 0xAD: tick(4); a = set_nz(ld_abs()); break;                 // LDA abs
      case 0xAE: tick(4); x = set_nz(ld_abs()); break;                 // LDX abs
      case 0xAF: tick(4); a = x = set_nz(ld_abs()); break;             // LAX abs  (undoc)
      case 0xB0: tick(2); branch((p & kC)); break;                     // BCS rel
      case 0xB1: tick(5); a = set_nz(ld_indy()); break;                // LDA (zp),Y
      case 0xB2: tick(2); halted = 1; break;                           // JAM
      case 0xB3: tick(5); a = x = set_nz(ld_indy()); break;            // LAX (zp),Y  (undoc)
      case 0xB4: tick(4); y = set_nz(ld_zpx()); break;                 // LDY zp,X
      case 0xB5: tick(4); a = set_nz(ld_zpx()); break;                 // LDA zp,X
      case 0xB6: tick(4); x = set_nz(ld_zpy()); break;                 // LDX zp,Y
      case 0xB7: tick(4); a = x = set_nz(ld_zpy()); break;             // LAX zp,Y  (undoc)
      case 0xB8: tick(2); p &= (uint8_t)~kV; break;                    // CLV
      case 0xB9: tick(4); a = set_nz(ld_absy()); break;                // LDA abs,Y
      case 0xBA: tick(2); x = set_nz(sp); break;                       // TSX
      case 0xBB: tick(4); op_las(ld_absy()); break;                    // LAS abs,Y  (undoc)
      case 0xBC: tick(4); y = set_nz(ld_absx()); break;                // LDY abs,X
      case 0xBD: tick(4); a = set_nz(ld_absx()); break;                // LDA abs,X
      case 0xBE: tick(4); x = set_nz(ld_absy()); break;                // LDX abs,Y
      case 0xBF: tick(4); a = x = set_nz(ld_absy()); break;            // LAX abs,Y  (undoc)
      case 0xC0: tick(2); op_cmp(y, ld_imm()); break;                  // CPY #imm
      case 0xC1: tick(6); op_cmp(a, ld_indx()); break;                 // CMP (zp,X)
      case 0xC2: tick(2); (void)ld_imm(); break;                       // NOP #imm  (undoc)
      case 0xC3: tick(8); rmw_dcp(ea_indx()); break;                   // DCP (zp,X)  (undoc)
      case 0xC4: tick(3); op_cmp(y, ld_zp()); break;                   // CPY zp
      case 0xC5: tick(3); op_cmp(a, ld_zp()); break;                   // CMP zp
      case 0xC6: tick(5); rmw_dec(ea_zp()); break;                     // DEC zp
      case 0xC7: tick(5); rmw_dcp(ea_zp()); break;                     // DCP zp  (undoc)
      case 0xC8: tick(2); y = set_nz((uint8_t)(y + 1)); break;         // INY
      case 0xC9: tick(2); op_cmp(a, ld_imm()); break;                  // CMP #imm
      case 0xCA: tick(2); x = set_nz((uint8_t)(x - 1)); break;         // DEX
      case 0xCB: tick(2); op_sbx(ld_imm()); break;                     // SBX #imm  (undoc)
      case 0xCC: tick(4); op_cmp(y, ld_abs()); break;                  // CPY abs
      case 0xCD: tick(4); op_cmp(a, ld_abs()); break;                  // CMP abs
      case 0xCE: tick(6); rmw_dec(ea_abs()); break;                    // DEC abs
      case 0xCF: tick(6); rmw_dcp(ea_abs()); break;                    // DCP abs  (undoc)
      case 0xD0: tick(2); op_bne(); break;                             // BNE rel
      case 0xD1: tick(5); op_cmp(a, ld_indy()); break;                 // CMP (zp),Y
      case 0xD2: tick(2); halted = 1; break;                           // JAM
      case 0xD3: tick(8); rmw_dcp(ea_indy()); break;                   // DCP (zp),Y  (undoc)
      case 0xD4: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0xD5: tick(4); op_cmp(a, ld_zpx()); break;                  // CMP zp,X
      case 0xD6: tick(6); rmw_dec(ea_zpx()); break;                    // DEC zp,X
      case 0xD7: tick(6); rmw_dcp(ea_zpx()); break;                    // DCP zp,X  (undoc)
      case 0xD8: tick(2); p &= (uint8_t)~kD; break;                    // CLD
      case 0xD9: tick(4); op_cmp(a, ld_absy()); break;                 // CMP abs,Y
      case 0xDA: tick(2); break;                                       // NOP  (undoc)
      case 0xDB: tick(7); rmw_dcp(ea_absy()); break;                   // DCP abs,Y  (undoc)
      case 0xDC: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0xDD: tick(4); op_cmp(a, ld_absx()); break;                 // CMP abs,X
      case 0xDE: tick(7); rmw_dec(ea_absx()); break;                   // DEC abs,X
      case 0xDF: tick(7); rmw_dcp(ea_absx()); break;                   // DCP abs,X  (undoc)
      case 0xE0: tick(2); op_cmp(x, ld_imm()); break;                  // CPX #imm
      case 0xE1: tick(6); op_sbc(ld_indx()); break;                    // SBC (zp,X)
      case 0xE2: tick(2); (void)ld_imm(); break;                       // NOP #imm  (undoc)
      case 0xE3: tick(8); rmw_isb(ea_indx()); break;                   // ISB (zp,X)  (undoc)
      case 0xE4: tick(3); op_cmp(x, ld_zp()); break;                   // CPX zp
      case 0xE5: tick(3); op_sbc(ld_zp()); break;                      // SBC zp
      case 0xE6: tick(5); rmw_inc(ea_zp()); break;                     // INC zp
      case 0xE7: tick(5); rmw_isb(ea_zp()); break;                     // ISB zp  (undoc)
      case 0xE8: tick(2); x = set_nz((uint8_t)(x + 1)); break;         // INX
      case 0xE9: tick(2); op_sbc(ld_imm()); break;                     // SBC #imm
      case 0xEA: tick(2); break;                                       // NOP
      case 0xEB: tick(2); op_sbc(ld_imm()); break;                     // SBC #imm
      case 0xEC: tick(4); op_cmp(x, ld_abs()); break;                  // CPX abs
      case 0xED: tick(4); op_sbc(ld_abs()); break;                     // SBC abs
      case 0xEE: tick(6); rmw_inc(ea_abs()); break;                    // INC abs
      case 0xEF: tick(6); rmw_isb(ea_abs()); break;                    // ISB abs  (undoc)
      case 0xF0: tick(2); branch((p & kZ)); break;                     // BEQ rel
      case 0xF1: tick(5); op_sbc(ld_indy()); break;                    // SBC (zp),Y
      case 0xF2: tick(2); halted = 1; break;                           // JAM
      case 0xF3: tick(8); rmw_isb(ea_indy()); break;                   // ISB (zp),Y  (undoc)
      case 0xF4: tick(4); (void)ld_zpx(); break;                       // NOP zp,X  (undoc)
      case 0xF5: tick(4); op_sbc(ld_zpx()); break;                     // SBC zp,X
      case 0xF6: tick(6); rmw_inc(ea_zpx()); break;                    // INC zp,X
      case 0xF7: tick(6); rmw_isb(ea_zpx()); break;                    // ISB zp,X  (undoc)
      case 0xF8: tick(2); p |= kD; break;                              // SED
      case 0xF9: tick(4); op_sbc(ld_absy()); break;                    // SBC abs,Y
      case 0xFA: tick(2); break;                                       // NOP  (undoc)
      case 0xFB: tick(7); rmw_isb(ea_absy()); break;                   // ISB abs,Y  (undoc)
      case 0xFC: tick(4); (void)ld_absx(); break;                      // NOP abs,X  (undoc)
      case 0xFD: tick(4); op_sbc(ld_absx()); break;                    // SBC abs,X
      case 0xFE: tick(7); rmw_inc(ea_absx()); break;                   // INC abs,X
      case 0xFF: tick(7); rmw_isb(ea_absx()); break;                   // ISB abs,X  (undoc)
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

// Runs up to max_instructions instructions, stopping early once bus.stopped() or the
// CPU halts; the registers stay in locals for the whole run.  Returns the number of
// instructions executed.
template <class Bus>
CULE_FI int cpu_run(CpuState& s, Bus& bus, int max_instructions) {
  if (s.halted) return 0;
  cpu6507::Core<Bus> c{bus, s.pc, s.a, s.x, s.y, s.sp, s.p, 0, max_instructions};
  while (c.budget > 0) {
    c.step();
    --c.budget;
    if (c.halted || bus.stopped()) break;
  }
  const int n = max_instructions - (c.budget > 0 ? c.budget : 0);
  c.save(s);
  return n;
}

}  // namespace cule
