// cule: per-console cartridge state (bank, cartridge RAM, coprocessor registers).
// Kept in its own header so mappers can grow without touching the console state.
#pragma once
#include "common.hpp"

namespace cule {

struct CartState {
  uint8_t bank;              // current 4K bank (F8/F6 ...)
};

}  // namespace cule
