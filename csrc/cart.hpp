// cule: cartridge mappers.  The ROM image lives outside the console state (one copy
// per game, in host or device memory); a console only keeps its bank number.
// Bank-switching facts: the hotspot addresses of each scheme (Atari 2K/4K, F8 = 8K
// with hotspots $1FF8/$1FF9, F6 = 16K with $1FF6..$1FF9), which switch on any access.
#pragma once
#include "state.hpp"

namespace cule {

// The bank a cartridge starts in at every system reset.
CULE_HD uint8_t cart_reset_bank(uint8_t type) {
  switch (type) {
    case CART_F8: return 1;
    case CART_F8_SWAPPED: return 0;
    default: return 0;
  }
}

// Power-on state of the cartridge, before the first system reset.
CULE_HD void cart_power_on(Console& c, const GameConfig& g) {
  c.cart.bank = cart_reset_bank(g.cart_type);
}

// The cartridge's part of System::reset() (it runs after the RIOT and the TIA).
// Cartridges with RAM draw its contents from the system RNG here, as ALE does.
CULE_HD void cart_reset(Console& c, const GameConfig& g) {
  c.cart.bank = cart_reset_bank(g.cart_type);
}

// The cartridge's part of System::resetCycles() (for mappers that count cycles).
CULE_HD void cart_cycles_reset(Console& c, const GameConfig& g) {
  (void)c;
  (void)g;
}

CULE_FI void cart_access(Console& c, uint8_t type, uint16_t addr) {
  uint16_t a = addr & 0x0FFF;
  switch (type) {
    case CART_F8:
    case CART_F8_SWAPPED:
      if (a == 0x0FF8) c.cart.bank = 0; else if (a == 0x0FF9) c.cart.bank = 1;
      break;
    case CART_F6:
      if (a >= 0x0FF6 && a <= 0x0FF9) c.cart.bank = (uint8_t)(a - 0x0FF6);
      break;
    default:
      break;
  }
}

CULE_FI uint8_t cart_peek(Console& c, uint8_t type, const uint8_t* rom, uint16_t addr) {
  cart_access(c, type, addr);
  switch (type) {
    case CART_2K: return rom[addr & 0x07FF];
    case CART_4K: return rom[addr & 0x0FFF];
    default: return rom[(uint32_t)c.cart.bank * 4096u + (addr & 0x0FFF)];
  }
}

CULE_FI void cart_poke(Console& c, uint8_t type, uint16_t addr, uint8_t) {
  cart_access(c, type, addr);
}

}  // namespace cule
