// cule: the 32-bit Mersenne Twister (MT19937), as std::mt19937 defines it
// (Matsumoto & Nishimura 1998; C++11 [rand.predef]).  ALE keeps two per console:
// the system RNG (seeded from system_random_seed, 4753849 by default; RAM contents,
// RIOT timer, cartridge RAM) and the
// environment RNG (seeded from random_seed; sticky actions).  A plain struct so the
// state can live in device memory.
#pragma once
#include "common.hpp"

namespace cule {

struct Mt19937 {
  uint32_t mt[624];
  uint32_t index;
};

CULE_HD void mt_seed(Mt19937& r, uint32_t seed) {
  r.mt[0] = seed;
  for (uint32_t i = 1; i < 624; ++i) {
    uint32_t prev = r.mt[i - 1];
    r.mt[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
  }
  r.index = 624;
}

CULE_HD void mt_twist(Mt19937& r) {
  for (uint32_t i = 0; i < 624; ++i) {
    uint32_t y = (r.mt[i] & 0x80000000u) | (r.mt[(i + 1) % 624] & 0x7fffffffu);
    uint32_t v = r.mt[(i + 397) % 624] ^ (y >> 1);
    if (y & 1u) v ^= 0x9908b0dfu;
    r.mt[i] = v;
  }
  r.index = 0;
}

CULE_HD uint32_t mt_next(Mt19937& r) {
  if (r.index >= 624) mt_twist(r);
  uint32_t y = r.mt[r.index++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

// ALE's Random::nextDouble(): one 32-bit draw divided by 2^32.
CULE_HD double mt_next_double(Mt19937& r) {
  return (double)mt_next(r) / 4294967296.0;
}

}  // namespace cule
