// cule: the RGB / greyscale lookup tables both backends convert screens with (host
// code: the CPU backend uses them directly, the CUDA backend uploads them).
#pragma once
#include <stdint.h>

#include <cmath>

#include "palette.hpp"

namespace cule {

// RGB and greyscale lookup for every palette index the TIA can produce, the way
// ALE's ColourPalette renders them (odd indices, from PAL colour loss, map to the
// greyscale entries ALE interleaves in its tables).
struct PaletteLut {
  uint8_t rgb[256][3];
  uint8_t gray[256];
};

inline uint8_t ale_luminance(uint32_t rgb) {
  double r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
  return (uint8_t)std::round(r * 0.2989 + g * 0.5870 + b * 0.1140);
}

inline PaletteLut make_palette(bool pal) {
  const uint32_t* colours = pal ? kPalPalette : kNtscPalette;
  uint32_t full[257];
  for (int i = 0; i < 128; ++i) {
    full[2 * i] = colours[i];
    uint8_t l = ale_luminance(colours[i]);
    full[2 * i + 1] = ((uint32_t)l << 16) | ((uint32_t)l << 8) | l;
  }
  full[256] = 0;
  PaletteLut lut;
  for (int p = 0; p < 256; ++p) {
    lut.rgb[p][0] = (uint8_t)(full[p] >> 16);
    lut.rgb[p][1] = (uint8_t)(full[p] >> 8);
    lut.rgb[p][2] = (uint8_t)full[p];
    lut.gray[p] = (uint8_t)(full[p + 1] & 0xff);   // ALE reads entry p + 1
  }
  return lut;
}

}  // namespace cule
