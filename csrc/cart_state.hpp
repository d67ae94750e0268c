// cule: per-console cartridge state (bank, cartridge RAM, coprocessor registers).
// Kept in its own header so mappers can grow without touching the console state.
// Plain data only: a console is zeroed at power-on and copied freely by backends.
#pragma once
#include "common.hpp"

namespace cule {

// Registers of the DPC coprocessor in Pitfall II (US patent 4,644,495): eight data
// fetchers, each with a top and bottom register, an 11-bit counter and a flag; the
// three last fetchers can run in "music mode", clocked by an on-cartridge oscillator;
// plus an 8-bit linear feedback shift register used as a random number source.
struct DpcState {
  uint8_t top[8];
  uint8_t bottom[8];
  uint8_t flag[8];
  uint16_t counter[8];       // 11 bits
  uint8_t music;             // bit i: fetcher 5 + i is in music mode
  uint8_t random;            // shift register (never zero)
  int32_t last_cycles;       // system cycle of the last music-mode update
  double frac_clocks;        // oscillator clocks not yet applied (a fraction)
};

struct CartState {
  uint8_t bank;              // current 4K bank (F8 / F6 / F8SC / F6SC / DPC)
  uint8_t slice[3];          // E0: the 1K ROM slice in segments 0-2 (segment 3 is fixed)
  union {
    uint8_t ram[128];        // F8SC / F6SC: 128 bytes of cartridge RAM
    DpcState dpc;            // DPC
  };
};

}  // namespace cule
