// cule: flat 64 KiB test bus for the 6507 core, plus a simple runner.
//
// No mirroring, no devices: peek/poke go straight to a caller-owned 64 KiB
// array, and cycles are just counted.  Used by the CPU unit tests (Klaus
// Dormann's functional test needs the full 16-bit address space).
#pragma once

#include <stdint.h>

#include "common.hpp"
#include "cpu6507.hpp"

namespace cule {

struct FlatBus {
  uint8_t* mem;     // 65536 bytes, owned by the caller
  uint64_t cycles;  // CPU cycles charged so far

  CULE_HD uint8_t peek(uint16_t addr) { return mem[addr]; }
  CULE_HD void poke(uint16_t addr, uint8_t v) { mem[addr] = v; }
  CULE_HD void add_cycles(uint32_t n) { cycles += n; }
};

// The same bus with Core::step's table-driven dispatch (the DPC cart's form, and the GPU's until 2026-12-04; see
// CULE_HOST_OPCODE_SWITCH in cpu6507.hpp), so the CPU tests cover both forms.
struct FlatBusTable : FlatBus {
  static constexpr bool kOpcodeSwitch = false;
};

// One bus access, as the traced bus records it: the cycle count when it was made
// (after ALE's M6502High charged its cycle), the address, the byte, and whether it
// was a write.
struct FlatAccess {
  uint64_t cycle;
  uint16_t addr;
  uint8_t value;
  uint8_t write;
};

// The flat bus recording every access into log[0 .. cap) (n counts them all), with
// Core::step's table-driven dispatch; kHigh: the core runs as ALE's M6502High
// (cpu6507.hpp).  For the CPU tests of the bus traffic and timing.
template <bool kHigh>
struct FlatBusTraced : FlatBus {
  static constexpr bool kOpcodeSwitch = false;
  static constexpr bool kCycleExact = kHigh;
  FlatAccess* log = nullptr;
  uint64_t cap = 0, n = 0;

  CULE_HD void note(uint16_t addr, uint8_t v, uint8_t write) {
    if (n < cap) log[n] = FlatAccess{cycles, addr, v, write};
    ++n;
  }
  CULE_HD uint8_t peek(uint16_t addr) {
    const uint8_t v = mem[addr];
    note(addr, v, 0);
    return v;
  }
  CULE_HD void poke(uint16_t addr, uint8_t v) {
    note(addr, v, 1);
    mem[addr] = v;
  }
};

struct FlatRunResult {
  uint16_t pc;
  uint8_t a, x, y, sp, p, halted;
  uint64_t cycles;
  uint64_t instructions;
};

// Load the registers, then execute up to max_instructions instructions on
// mem64k.  Stops early when the CPU halts (JAM opcode) or, if
// stop_on_self_jump, after the first instruction that leaves PC unchanged
// ("JMP *" / branch-to-self trap; that instruction is counted).  P is stored
// with bits 5 and 4 forced on, as the core can't represent them clear.
// table_driven: Core::step's GPU form (FlatBusTable) instead of the host's.
template <class B>
inline FlatRunResult cpu_run_flat_on(B& bus, uint8_t* mem64k, uint16_t start_pc, uint64_t max_instructions,
                                     bool stop_on_self_jump, uint8_t a, uint8_t x, uint8_t y, uint8_t sp,
                                     uint8_t p) {
  bus.mem = mem64k;
  bus.cycles = 0;
  CpuState s;
  s.pc = start_pc;
  s.a = a;
  s.x = x;
  s.y = y;
  s.sp = sp;
  s.p = (uint8_t)(p | cpu6507::kAlwaysSet);
  s.halted = 0;

  uint64_t n = 0;
  while (n < max_instructions && !s.halted) {
    const uint16_t before = s.pc;
    cpu_step(s, bus);
    ++n;
    if (stop_on_self_jump && s.pc == before) break;
  }

  FlatRunResult r;
  r.pc = s.pc;
  r.a = s.a;
  r.x = s.x;
  r.y = s.y;
  r.sp = s.sp;
  r.p = s.p;
  r.halted = s.halted;
  r.cycles = bus.cycles;
  r.instructions = n;
  return r;
}

inline FlatRunResult cpu_run_flat(uint8_t* mem64k, uint16_t start_pc, uint64_t max_instructions,
                                  bool stop_on_self_jump, uint8_t a = 0, uint8_t x = 0,
                                  uint8_t y = 0, uint8_t sp = 0xFF, uint8_t p = 0x30, bool table_driven = false) {
  if (table_driven) {
    FlatBusTable bus;
    return cpu_run_flat_on(bus, mem64k, start_pc, max_instructions, stop_on_self_jump, a, x, y, sp, p);
  }
  FlatBus bus;
  return cpu_run_flat_on(bus, mem64k, start_pc, max_instructions, stop_on_self_jump, a, x, y, sp, p);
}

}  // namespace cule
