// cule: the TIA's two audio channels, as the sample generator ALE 0.12.1 uses for
// sound observations (ale-py's sound_obs / ALEInterface.getAudio).
//
// Facts (ALE 0.12.1 src/ale/emucore/TIASnd and src/ale/common/SoundRaw; TIA hardware
// manual for the register meanings):
//   * AUDC0/1 ($15/$16, 4 bits) pick the waveform, AUDF0/1 ($17/$18, 5 bits) the
//     frequency divider, AUDV0/1 ($19/$1A, 4 bits) the volume.  A write only stores the
//     register (and the divider's divide-by value; its count runs on).
//   * Each channel has a 4-bit and a 5-bit shift register (P4, P5; 8 bits kept), both
//     1 at power-on, and a divider that fires every (AUDF + 1)-th clock.  Each clock the
//     divider fires, AUDC decides how P5 and P4 move (below).  Bit 3 of P4 is the
//     channel's output.
//   * ALE generates 512 samples per processed frame at the TIA sound clock (its output
//     and TIA frequencies are both 31,400 Hz): one sample per clock, the sum of the
//     channels whose output is high, each AUDV * 4, plus 128.
//   * ALE's sound device is never initialised, so console resets and restoreState leave
//     all of this alone; only loadROM makes a new one.  Register writes are queued and
//     applied just before the samples are made, in order; as a write only stores values,
//     applying it at once gives the same samples.
#pragma once
#include "state.hpp"

namespace cule {

CULE_HD void sound_power_on(SoundState& s) {
  for (int ch = 0; ch < 2; ++ch) {
    s.audc[ch] = s.audf[ch] = s.audv[ch] = 0;
    s.p4[ch] = s.p5[ch] = 1;
    s.div[ch] = 0;
  }
}

// A TIA write to $15..$1A (addr already reduced to the TIA's 6 bits).
CULE_HD void sound_write(SoundState& s, uint16_t addr, uint8_t value) {
  switch (addr) {
    case 0x15: s.audc[0] = value & 0x0F; break;
    case 0x16: s.audc[1] = value & 0x0F; break;
    case 0x17: s.audf[0] = value & 0x1F; break;
    case 0x18: s.audf[1] = value & 0x1F; break;
    case 0x19: s.audv[0] = value & 0x0F; break;
    case 0x1A: s.audv[1] = value & 0x0F; break;
    default: break;
  }
}

// The 4-bit shift register's three ways of moving (8 bits kept, like the hardware model
// ALE uses): a linear feedback step (taps 3 and 2; an all-zero low nibble restarts at 1),
// a toggle (divide by 2) and the 000111 pattern (divide by 6).
CULE_HD uint8_t sound_p4_poly(uint8_t p4) {
  return (p4 & 0x0F) ? (uint8_t)((p4 << 1) | (((p4 >> 3) ^ (p4 >> 2)) & 1)) : (uint8_t)1;
}
CULE_HD uint8_t sound_p4_div2(uint8_t p4) { return (uint8_t)((p4 << 1) | ((p4 & 1) ^ 1)); }
CULE_HD uint8_t sound_p4_div6(uint8_t p4) {
  const bool in = !(p4 & 0x04) && (p4 & 0x07);
  return (uint8_t)((~p4 << 1) | (in ? 1 : 0));
}
// The 5-bit register's linear feedback step (taps 4 and 2; all-zero restarts at 1).
CULE_HD uint8_t sound_p5_poly(uint8_t p5) {
  return (p5 & 0x1F) ? (uint8_t)((p5 << 1) | (((p5 >> 4) ^ (p5 >> 2)) & 1)) : (uint8_t)1;
}

// One divider pulse of a channel.
CULE_HD void sound_clock_channel(uint8_t audc, uint8_t& p4, uint8_t& p5) {
  switch (audc) {
    case 0x00: case 0x0B:        // all ones
      p4 = (uint8_t)((p4 << 1) | 1);
      return;
    case 0x01: p4 = sound_p4_poly(p4); return;
    case 0x04: case 0x05: p4 = sound_p4_div2(p4); return;
    case 0x0C: case 0x0D: p4 = sound_p4_div6(p4); return;
    case 0x08: {                 // the two registers as one 9-bit LFSR (taps 8 and 4)
      const int feedback = ((p4 >> 3) ^ (p5 >> 4)) & 1;
      p5 = ((p5 & 0x1F) || (p4 & 0x0F)) ? (uint8_t)((p5 << 1) | feedback) : (uint8_t)1;
      p4 = (uint8_t)((p4 << 1) | ((p5 >> 5) & 1));
      return;
    }
    default: break;
  }
  // The rest clock P5 first; P4 then moves on a condition of the new P5.
  p5 = sound_p5_poly(p5);
  const bool div31 = (p5 & 0x0F) == 0x08;   // divide by 31 (13:18 duty)
  const bool p5_high = (p5 & 0x10) != 0;
  switch (audc) {
    case 0x02: if (div31) p4 = sound_p4_poly(p4); break;
    case 0x03: if (p5_high) p4 = sound_p4_poly(p4); break;
    case 0x06: if (div31) p4 = sound_p4_div2(p4); break;
    case 0x07: if (p5_high) p4 = sound_p4_div2(p4); break;
    case 0x09: p4 = (uint8_t)((p4 << 1) | ((p5 >> 5) & 1)); break;   // P5 shifted out into P4
    case 0x0A: if (div31) p4 = (uint8_t)((p4 << 1) | ((p5 >> 4) & 1)); break;
    case 0x0E: if (div31) p4 = sound_p4_div6(p4); break;
    default: if (p5_high) p4 = sound_p4_div6(p4); break;              // 0x0F
  }
}

constexpr int kAudioSamplesPerFrame = 512;   // ALE SoundRaw::SamplesPerFrame

// ALE's processAudio: 512 samples from the current registers into out.
CULE_BIG void sound_process(SoundState& s, uint8_t* out) {
  const int v0 = s.audv[0] << 2, v1 = s.audv[1] << 2;
  for (int i = 0; i < kAudioSamplesPerFrame; ++i) {
    for (int ch = 0; ch < 2; ++ch) {
      if (++s.div[ch] > s.audf[ch]) {
        s.div[ch] = 0;
        sound_clock_channel(s.audc[ch], s.p4[ch], s.p5[ch]);
      }
    }
    out[i] = (uint8_t)(((s.p4[0] & 0x08) ? v0 : 0) + ((s.p4[1] & 0x08) ? v1 : 0) + 128);
  }
}

}  // namespace cule
