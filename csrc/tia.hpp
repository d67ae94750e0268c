// cule: the TIA (Television Interface Adaptor) video chip.
//
// Behaviour facts: the TIA hardware manual, and the scanline TIA of Stella 2.x as
// shipped in ALE 0.12.1 (which ALE's frames are made of: object masks, write delays,
// HMOVE motion and blanking, RESPx timing, collision latches, paddle pots).
// Audio register writes go to tia_sound.hpp when the batch has sound observations.
//
// Pixels are palette indices written into a frame buffer the backend owns; the core
// draws lazily, catching up to the current colour clock whenever the CPU touches the
// TIA, exactly when Stella does, so frames and collisions come out the same.
#pragma once
#include <string.h>
#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#endif

#include "state.hpp"
#include "controls.hpp"

namespace cule {

enum TiaBits : uint8_t {
  BIT_P0 = 0x01, BIT_M0 = 0x02, BIT_P1 = 0x04, BIT_M1 = 0x08,
  BIT_BL = 0x10, BIT_PF = 0x20, BIT_SCORE = 0x40, BIT_PRIORITY = 0x80
};

// Where a RESPx strobe lands relative to the copies being drawn: -1 while a copy's
// start is being decoded, +1 while a copy is being drawn, 0 elsewhere.
CULE_HD int player_reset_when(int mode, int oldx, int newx) {
  int d = newx - oldx;
  if (d < 0) d += 160;
  int width = (mode == 5) ? 16 : (mode == 7) ? 32 : 8;
  int starts[3] = {0, -1, -1};
  switch (mode) {
    case 1: starts[1] = 16; break;
    case 2: starts[1] = 32; break;
    case 3: starts[1] = 16; starts[2] = 32; break;
    case 4: starts[1] = 64; break;
    case 6: starts[1] = 32; starts[2] = 64; break;
    default: break;
  }
  for (int i = 0; i < 3; ++i) {
    int s = starts[i];
    if (s < 0) continue;
    if (d >= s && d < s + 4) return -1;
    if (d >= s + 4 && d < s + 4 + width) return 1;
  }
  return 0;
}

// The byte with its bit order reversed (bit 0 <-> bit 7, ...).
CULE_FI uint8_t reflect_byte(uint8_t v) {
  uint32_t r = v;
  r = ((r & 0xF0u) >> 4) | ((r & 0x0Fu) << 4);
  r = ((r & 0xCCu) >> 2) | ((r & 0x33u) << 2);
  r = ((r & 0xAAu) >> 1) | ((r & 0x55u) << 1);
  return (uint8_t)r;
}

CULE_HD int wrap160(int v) { v %= 160; return v < 0 ? v + 160 : v; }

// HMOVE motion in pixels for a strobe at CPU cycle x (0..75) of the line, for a
// motion register value hm (0..15).  Hardware behaviour (the extra clocks HMOVE feeds
// the position counters, and how many of them a strobe late in the line still gets),
// in the form Stella 2.x tabulates it, expressed here in closed form.
// What a strobe at cycle x does to every object's motion (the part of hmove_motion
// that depends on x only, so one HMOVE works it out once for its five objects).
struct HmoveStrobe {
  int8_t kind;   // 0: at least `k` pixels; 1: no motion; 2: nominal; 3: late strobe, `k` clocks
  int8_t k;
};

CULE_HD HmoveStrobe hmove_strobe(int x) {
  if (x <= 20) {
    // Strobes during HBLANK: motion is at least the clocks that are still to come.
    const int lim = (x < 4) ? -7 : (x < 5) ? -6 : (x < 7) ? -5 : (x < 8) ? -4 : (x < 9) ? -3 :
                    (x < 11) ? -2 : (x < 12) ? -1 : (x < 13) ? 0 : (x < 15) ? 1 : (x < 16) ? 2 :
                    (x < 17) ? 3 : (x < 19) ? 4 : (x < 20) ? 5 : 6;
    return HmoveStrobe{0, (int8_t)lim};
  }
  if (x < 55) return HmoveStrobe{1, 0};
  if (x == 75) return HmoveStrobe{2, 0};
  // Strobes late in the line: the extra clocks spill into the next line's HBLANK.
  const int late = (x < 57) ? x - 54 : (x < 59) ? 3 : (x < 61) ? x - 55 : (x < 63) ? 6 :
                   (x < 65) ? x - 56 : (x < 67) ? 9 : (x < 69) ? x - 57 : (x < 71) ? 12 :
                   (x < 73) ? x - 58 : 15;
  return HmoveStrobe{3, (int8_t)late};
}

CULE_HD int hmove_apply(HmoveStrobe s, int hm) {
  const int nominal = (hm < 8) ? -hm : 16 - hm;   // 0..-7 left, +8..+1 right
  switch (s.kind) {
    case 0: return nominal < s.k ? s.k : nominal;
    case 1: return 0;
    case 2: return nominal;
    default: {
      const int v = (hm ^ 8) + s.k - 15;
      return v > 0 ? -v : 0;
    }
  }
}

CULE_HD int hmove_motion(int x, int hm) { return hmove_apply(hmove_strobe(x), hm); }

// ---- mask snapshots (where Stella would re-point its mask tables) ----

CULE_HD void tia_point_p0(TiaState& t, uint8_t en) { t.p0m_pos = t.posp0; t.p0m_en = en; t.p0m_mode = t.nusiz0 & 7; }
CULE_HD void tia_point_p1(TiaState& t, uint8_t en) { t.p1m_pos = t.posp1; t.p1m_en = en; t.p1m_mode = t.nusiz1 & 7; }
CULE_HD void tia_point_m0(TiaState& t, uint8_t size_or) {
  t.m0m_pos = t.posm0; t.m0m_num = t.nusiz0 & 7; t.m0m_size = ((t.nusiz0 & 0x30) >> 4) | size_or; t.m0m_off = 0;
}
CULE_HD void tia_point_m1(TiaState& t) {
  t.m1m_pos = t.posm1; t.m1m_num = t.nusiz1 & 7; t.m1m_size = (t.nusiz1 & 0x30) >> 4;
}
CULE_HD void tia_point_bl(TiaState& t) { t.blm_pos = t.posbl; t.blm_size = (t.ctrlpf & 0x30) >> 4; }

CULE_HD void tia_set_bit(uint8_t& e, uint8_t bit, bool on) { if (on) e |= bit; else e &= (uint8_t)~bit; }

CULE_HD void tia_update_grp(TiaState& t) {
  uint8_t g0 = t.vdelp0 ? t.dgrp0 : t.grp0;
  t.cur_grp0 = t.refp0 ? reflect_byte(g0) : g0;
  uint8_t g1 = t.vdelp1 ? t.dgrp1 : t.grp1;
  t.cur_grp1 = t.refp1 ? reflect_byte(g1) : g1;
  tia_set_bit(t.enabled, BIT_P0, t.cur_grp0 != 0);
  tia_set_bit(t.enabled, BIT_P1, t.cur_grp1 != 0);
}

// ---- frame timing ----

// Stella TIA::frameReset(): called from a system reset.
CULE_HD void tia_frame_reset(Console& c, uint8_t* fbs) {
  TiaState& t = c.tia;
  memset(fbs, 0, 2 * kFrameBufferBytes);
  t.fb_pos = 0;
  t.fb_exact = 3;        // both buffers are all zeros, as Stella's
  t.frame_rendered = 1;
  int start_offset = kClocksPerLine * t.ystart;
  int stop_offset = start_offset + kClocksPerLine * t.height;
  t.clk_frame_start = (int32_t)(c.cycles * 3);
  t.clk_disp_start = t.clk_frame_start + start_offset;
  t.clk_disp_stop = t.clk_frame_start + stop_offset;
  t.clk_last_update = t.clk_frame_start;
  t.clk_pending = t.clk_frame_start;
  t.clks_to_eol = kClocksPerLine;
  t.vsync_finish_clk = 0x7FFFFFFF;
  t.scanline_count_last = 0;
  t.current_scanline = 0;
}

// Stella TIA::reset().  ystart/height/pal are the console's properties at that moment.
CULE_HD void tia_reset(Console& c, uint8_t* fbs, uint16_t ystart, uint16_t height, bool pal, bool hmove_blanks) {
  TiaState& t = c.tia;
  t.enabled = 0;
  t.vsync = t.vblank = 0;
  t.nusiz0 = t.nusiz1 = 0;
  t.colup0 = t.colup1 = t.colupf = t.colubk = 0;
  t.prio_score = 0;
  t.ctrlpf = 0;
  t.refp0 = t.refp1 = 0;
  t.pf = 0;
  t.grp0 = t.grp1 = t.dgrp0 = t.dgrp1 = 0;
  t.enam0 = t.enam1 = t.enabl = t.denabl = 0;
  t.hmp0 = t.hmp1 = t.hmm0 = t.hmm1 = t.hmbl = 0;
  t.vdelp0 = t.vdelp1 = t.vdelbl = 0;
  t.resmp0 = t.resmp1 = 0;
  t.collision = 0;
  t.posp0 = t.posp1 = t.posm0 = t.posm1 = t.posbl = 0;
  t.cur_grp0 = t.cur_grp1 = 0;
  t.blm_pos = 0; t.blm_size = 0;
  t.m0m_pos = 0; t.m0m_num = 0; t.m0m_size = 0; t.m0m_off = 0;
  t.m1m_pos = 0; t.m1m_num = 0; t.m1m_size = 0;
  t.p0m_pos = 0; t.p0m_en = 0; t.p0m_mode = 0;
  t.p1m_pos = 0; t.p1m_en = 0; t.p1m_mode = 0;
  t.pfm_reflect = 0;
  t.last_hmove_clk = 0;
  t.hmove_blank = 0;
  t.cosmic_enabled = 0;
  t.cosmic_counter = 0;
  t.dump_enabled = 0;
  t.dump_disabled_cycle = 0;
  t.allow_hmove_blanks = hmove_blanks ? 1 : 0;
  t.color_loss = pal ? 1 : 0;
  t.max_scanlines = pal ? 342 : 290;
  t.ystart = ystart;
  t.height = height;
  tia_frame_reset(c, fbs);
}

// Part of System::resetCycles(): the TIA rebases its clocks on cycle 0.
CULE_HD void tia_cycles_reset(Console& c) {
  TiaState& t = c.tia;
  uint32_t cycles = c.cycles;
  t.dump_disabled_cycle -= (int32_t)cycles;
  int32_t clocks = (int32_t)(cycles * 3);
  t.clk_frame_start -= clocks;
  t.clk_disp_start -= clocks;
  t.clk_disp_stop -= clocks;
  t.clk_last_update -= clocks;
  t.clk_pending -= clocks;
  t.vsync_finish_clk -= clocks;
  t.last_hmove_clk -= clocks;
}

// ---- drawing ----
//
// A draw call covers a stretch of one line.  The stretch is handled in windows of at
// most 64 pixels; inside a window every object becomes a 64-bit mask (bit i: the
// object covers pixel x + i), so priorities and collisions are plain bit operations.
// Pixels are then written run by run (a run: pixels of one colour), or, on host
// builds with SSE2, sixteen at a time when a window holds several runs.

// Count of trailing zero bits of a non-zero word.
CULE_FI int tia_ctz64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __ffsll((long long)v) - 1;
#else
  return __builtin_ctzll(v);
#endif
}

// Bit k of a byte moved to bit 2k and 2k+1 (a double-width player).
CULE_FI uint32_t tia_spread2(uint32_t v) {
  v = (v | (v << 4)) & 0x0F0Fu;
  v = (v | (v << 2)) & 0x3333u;
  v = (v | (v << 1)) & 0x5555u;
  return v * 3u;
}

// Bit k of a byte moved to bits 4k..4k+3 (a quad-width player).
CULE_FI uint64_t tia_spread4_8(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 12)) & 0x000F000Full;
  x = (x | (x << 6)) & 0x03030303ull;
  x = (x | (x << 3)) & 0x11111111ull;
  return x * 15u;
}

// Bit k of a 16-bit value moved to bits 4k..4k+3 (playfield groups to pixels).
CULE_FI uint64_t tia_spread4_16(uint32_t v) {
  uint64_t x = v & 0xFFFFu;
  x = (x | (x << 24)) & 0x000000FF000000FFull;
  x = (x | (x << 12)) & 0x000F000F000F000Full;
  x = (x | (x << 6)) & 0x0303030303030303ull;
  x = (x | (x << 3)) & 0x1111111111111111ull;
  return x * 15u;
}

// Copies an object draws for NUSIZ mode m: bit k set for a copy starting 16 * k
// pixels after the position.  Five bits a mode: 0:{0} 1:{0,16} 2:{0,32} 3:{0,16,32}
// 4:{0,64} 5:{0} 6:{0,32,64} 7:{0}.
CULE_FI uint32_t tia_copies(int mode) {
  const uint64_t kCopies = 1ull | (3ull << 5) | (5ull << 10) | (7ull << 15) | (17ull << 20) |
                           (1ull << 25) | (21ull << 30) | (1ull << 35);
  return (uint32_t)(kCopies >> (mode * 5)) & 31u;
}

// A copy's pattern (bit d: pixel d after the copy's start) in a 64-pixel window, the
// copy starting s pixels (0..159, modulo the line) after the window's first pixel.
// Patterns are at most 33 pixels long; a copy with s > 96 can only show its tail,
// wrapped around from the end of the line.
CULE_FI uint64_t tia_place(uint64_t pat, int s) {
  if (s < 64) return pat << s;
  if (s > 96) return pat >> (160 - s);
  return 0;
}

// One object's mask in the window: `pat` for every copy in `copies`, the first copy
// starting `base` pixels (0..159) after the window's first pixel.
CULE_FI uint64_t tia_object_window(uint64_t pat, uint32_t copies, int base) {
  uint64_t w = 0;
  if (copies & 1u) w |= tia_place(pat, base);
  if (copies & 2u) { int s = base + 16; if (s >= 160) s -= 160; w |= tia_place(pat, s); }
  if (copies & 4u) { int s = base + 32; if (s >= 160) s -= 160; w |= tia_place(pat, s); }
  if (copies & 16u) { int s = base + 64; if (s >= 160) s -= 160; w |= tia_place(pat, s); }
  return w;
}

// Pixels from the object's position to the window's first pixel x, as an offset of
// the object's first copy from the window (0..159).
CULE_FI int tia_window_base(int pos, int x) {
  int b = pos - x;
  return b < 0 ? b + 160 : b;
}

// A missile's or the ball's pattern: 1, 2, 4 or 8 pixels for size 0..3.
CULE_FI uint64_t tia_size_pattern(int size) { return (1ull << (1 << size)) - 1; }

// A player's mask.  grp is the graphics byte as drawn (bit 7 first); en = 1 hides
// the first copy (a RESPx while the copy was being drawn); double and quad widths
// start one pixel after the position.
CULE_FI uint64_t tia_player_window(uint8_t grp, uint8_t en, uint8_t mode, int pos, int x) {
  const uint32_t r = reflect_byte(grp);   // bit d: pixel d of a single-width copy
  uint64_t pat;
  uint32_t copies;
  if (mode == 5) {
    if (en) return 0;
    pat = (uint64_t)tia_spread2(r) << 1;
    copies = 1;
  } else if (mode == 7) {
    if (en) return 0;
    pat = tia_spread4_8(r) << 1;
    copies = 1;
  } else {
    pat = r;
    copies = tia_copies(mode) & (en ? ~1u : ~0u);
  }
  return tia_object_window(pat, copies, tia_window_base(pos, x));
}

// The playfield of one line in pixel order: bit g is the 4-pixel group g (0..39).
CULE_HD uint64_t playfield_line(uint32_t pf, int reflect) {
  // PF0 bits 4-7 (register bits 0-3) draw groups 0-3, PF1 bits 7-0 (register bits
  // 11-4) groups 4-11, PF2 bits 0-7 (register bits 12-19) groups 12-19.
  uint32_t left = (pf & 0x0000Fu) | ((uint32_t)reflect_byte((uint8_t)(pf >> 4)) << 4) | (pf & 0xFF000u);
  uint32_t right = left;
  if (reflect) {
    // The right half mirrors the left one: reverse the 20 bits.
    uint32_t v = left;
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    v = (v >> 16) | (v << 16);
    right = v >> 12;
  }
  return (uint64_t)left | ((uint64_t)right << 20);
}

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#define CULE_TIA_SSE2 1
// Host builds with SSE2 (every x86-64): write the n (16..64) pixels of a window
// from its colour index bits, sixteen at a time; the last group is aligned to the
// window's end and may rewrite pixels of the one before with the same values.
inline void tia_write16(uint8_t* out, uint64_t lo, uint64_t hi, uint32_t cols, int n) {
  const __m128i bits = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  const __m128i k0 = _mm_set1_epi8((char)cols);
  const __m128i k01 = _mm_xor_si128(k0, _mm_set1_epi8((char)(cols >> 8)));
  const __m128i k2 = _mm_set1_epi8((char)(cols >> 16));
  const __m128i k23 = _mm_xor_si128(k2, _mm_set1_epi8((char)(cols >> 24)));
  for (int i = 0;; i += 16) {
    if (i + 16 > n) i = n - 16;
    // Bytes 0-7 hold the low byte of the 16 index bits, bytes 8-15 the high byte;
    // comparing each byte's own bit against the bit pattern gives 0xFF / 0x00.
    __m128i l = _mm_cvtsi32_si128((int)((lo >> i) & 0xFFFFu));
    __m128i h = _mm_cvtsi32_si128((int)((hi >> i) & 0xFFFFu));
    l = _mm_unpacklo_epi8(l, l);
    h = _mm_unpacklo_epi8(h, h);
    l = _mm_unpacklo_epi16(l, l);
    h = _mm_unpacklo_epi16(h, h);
    l = _mm_unpacklo_epi32(l, l);
    h = _mm_unpacklo_epi32(h, h);
    const __m128i ml = _mm_cmpeq_epi8(_mm_and_si128(l, bits), bits);
    const __m128i mh = _mm_cmpeq_epi8(_mm_and_si128(h, bits), bits);
    const __m128i low = _mm_xor_si128(k0, _mm_and_si128(k01, ml));    // index 0 or 1
    const __m128i high = _mm_xor_si128(k2, _mm_and_si128(k23, ml));   // index 2 or 3
    const __m128i v = _mm_xor_si128(low, _mm_and_si128(_mm_xor_si128(low, high), mh));
    _mm_storeu_si128((__m128i*)(out + i), v);
    if (i + 16 >= n) break;
  }
}
#else
#define CULE_TIA_SSE2 0
#endif

// CULE_TIA_WIDE_STORES=1 (a build switch, off by default; meant for the GPU): pixels are
// written with aligned 8-byte stores wherever 8 of them fall in one aligned word, and
// byte by byte only at a window's unaligned ends.  A GPU lane's frame buffer is its own,
// so the 32 lanes of a warp store to 32 different lines: without this switch nvcc turns
// each 8-byte memcpy at an address of unknown alignment into 8 byte stores, so a drawn
// frame costs about one warp-wide store per pixel.  The same bytes land at the same
// addresses either way.
#ifndef CULE_TIA_WIDE_STORES
#define CULE_TIA_WIDE_STORES 0
#endif

// One aligned 8-byte store (p is a multiple of 8).
CULE_FI void tia_store8(uint8_t* p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint64_t*>(p) = v;
#else
  memcpy(p, &v, 8);
#endif
}

// Bytes before the first 8-aligned address at or after p (0..7).
CULE_FI int tia_misalign(const uint8_t* p) { return (int)((8u - ((uint32_t)(uintptr_t)p & 7u)) & 7u); }

// Fill len (>= 0) bytes with v.  Short fills are the rule here, where a library
// memset call costs more than the stores.
CULE_FI void tia_fill(uint8_t* p, uint8_t v, int len) {
  const uint64_t v8 = 0x0101010101010101ull * v;
#if CULE_TIA_WIDE_STORES
  int head = tia_misalign(p);
  if (head > len) head = len;
  for (int i = 0; i < head; ++i) p[i] = v;
  p += head;
  len -= head;
  while (len >= 8) { tia_store8(p, v8); p += 8; len -= 8; }
  for (int i = 0; i < len; ++i) p[i] = v;
#else
  while (len >= 8) { memcpy(p, &v8, 8); p += 8; len -= 8; }
  if (len & 4) { const uint32_t v4 = (uint32_t)v8; memcpy(p, &v4, 4); p += 4; }
  if (len & 2) { const uint16_t v2 = (uint16_t)v8; memcpy(p, &v2, 2); p += 2; }
  if (len & 1) *p = v;
#endif
}

#if CULE_TIA_WIDE_STORES
// The colour of pixel i of a window from its two index bits (0 COLUBK, 1 COLUPF, 2
// COLUP0, 3 COLUP1; cols holds them a byte each).
CULE_FI uint8_t tia_pixel(uint64_t lo, uint64_t hi, uint32_t cols, int i) {
  const uint32_t idx = (uint32_t)((lo >> i) & 1u) | ((uint32_t)((hi >> i) & 1u) << 1);
  return (uint8_t)(cols >> (8 * idx));
}

// Write the n (1..64) pixels of a window: bytes up to the first aligned word, then whole
// aligned words (one colour repeated when the word's 8 pixels share it), then bytes.
CULE_FI void tia_write_window(uint8_t* out, uint64_t lo, uint64_t hi, uint32_t cols, int n) {
  int i = tia_misalign(out);
  if (i > n) i = n;
  for (int k = 0; k < i; ++k) out[k] = tia_pixel(lo, hi, cols, k);
  for (; i + 8 <= n; i += 8) {
    const uint32_t l8 = (uint32_t)(lo >> i) & 0xFFu, h8 = (uint32_t)(hi >> i) & 0xFFu;
    uint64_t w;
    if ((l8 == 0 || l8 == 0xFFu) && (h8 == 0 || h8 == 0xFFu)) {
      w = 0x0101010101010101ull * tia_pixel(lo, hi, cols, i);
    } else {
      w = 0;
      for (int k = 0; k < 8; ++k) w |= (uint64_t)tia_pixel(lo, hi, cols, i + k) << (8 * k);
    }
    tia_store8(out + i, w);
  }
  for (; i < n; ++i) out[i] = tia_pixel(lo, hi, cols, i);
}
#endif

// Stella's drawing loop (ALE 0.12.1 TIA::updateFrameScanline) writes four pixels at a
// time from a 4-aligned pixel w whenever its case allows: in the playfield-only cases
// always, in most cases of one or two objects when the objects' masks cover none of
// pixels w..w+3 (then in COLUBK, or the playfield's colour where the playfield is one
// of the objects); the background-only, VBLANK and other cases go pixel by pixel.  A
// draw that ends inside such a group of four still writes all of it: the pixels past
// its end show the state of that draw until a later draw covers them, which only a
// frame that stops mid-line (the instruction limit, an illegal opcode, an early VSYNC)
// leaves undone.  This writes those pixels the same way, after a draw of pixels
// [x0, x_end) to `out` (the pixel x_end's place) whose objects are t's.
CULE_FI void tia_overshoot(const TiaState& t, uint8_t* out, int x0, int x_end) {
  const int w = x_end & ~3;
  if (w == x_end || x0 > w) return;   // ends on a group boundary, or began past w
  const uint8_t o = t.enabled & 0x3F;
  const bool score = (t.prio_score & BIT_SCORE) != 0;
  // Whether an object's mask covers any of pixels w..w+3 (players: their copies' whole
  // span, whatever the graphics; a missile turned off by its mask pointer covers none).
  const bool p0 = (o & BIT_P0) && (tia_player_window(0xFF, t.p0m_en, t.p0m_mode, t.p0m_pos, w) & 0xFu);
  const bool p1 = (o & BIT_P1) && (tia_player_window(0xFF, t.p1m_en, t.p1m_mode, t.p1m_pos, w) & 0xFu);
  const bool m0 = (o & BIT_M0) && !t.m0m_off &&
                  (tia_object_window(tia_size_pattern(t.m0m_size), tia_copies(t.m0m_num),
                                     tia_window_base(t.m0m_pos, w)) & 0xFu);
  const bool m1 = (o & BIT_M1) && (tia_object_window(tia_size_pattern(t.m1m_size), tia_copies(t.m1m_num),
                                                      tia_window_base(t.m1m_pos, w)) & 0xFu);
  const bool bl = (o & BIT_BL) &&
                  (tia_object_window(tia_size_pattern(t.blm_size), 1u, tia_window_base(t.blm_pos, w)) & 0xFu);
  const bool pf = (o & BIT_PF) && ((playfield_line(t.pf, t.pfm_reflect) >> (w >> 2)) & 1u);
  uint8_t v;
  switch (o) {
    case BIT_PF:
      v = !pf ? t.colubk : !score ? t.colupf : w < 80 ? t.colup0 : t.colup1;
      break;
    case BIT_P0: case BIT_P1: case BIT_P0 | BIT_P1: case BIT_M0: case BIT_M1: case BIT_BL:
    case BIT_M0 | BIT_M1: case BIT_BL | BIT_M0: case BIT_BL | BIT_M1: case BIT_BL | BIT_P1:
      if (p0 || p1 || m0 || m1 || bl) return;
      v = t.colubk;
      break;
    case BIT_PF | BIT_P0: case BIT_PF | BIT_P1: case BIT_PF | BIT_BL:
      if (score || p0 || p1 || bl) return;   // (with the score bit: pixel by pixel)
      v = pf ? t.colupf : t.colubk;
      break;
    default:
      return;
  }
  for (int i = x_end; i < w + 4; ++i) out[i - x_end] = v;
}

// Draw `count` pixels of the visible line starting at pixel x (0..159).
CULE_BIG void tia_draw_pixels(TiaState& t, uint8_t* fb, int count, int x) {
  uint8_t* out = fb + t.fb_pos;
  t.fb_pos += (uint32_t)count;
  const int x0 = x, x_end = x + count;
  // Pixels are written only inside the frame buffer (with room for tia_overshoot's
  // three).  Normal frames stay far inside it; a restoreState keeps the frame pointer
  // from before while the clocks come from the snapshot (ALE's does the same), and a
  // crashed program can then run it past the end, where ALE would write out of bounds.
  const bool draw = t.render && t.fb_pos <= (uint32_t)kFrameBufferBytes - 3;
  if (!draw) {
    // Not drawn: only collisions matter, and they need two objects showing.
    const uint8_t o = t.enabled;
    if ((t.vblank & 0x02) || (o & (o - 1)) == 0) return;
  }
  if (t.vblank & 0x02) {
    tia_fill(out, 0, count);
    return;
  }
  const uint8_t objs = t.enabled;
  if (objs == 0) {
    tia_fill(out, t.colubk, count);
    return;
  }
  const uint8_t ps = t.prio_score;
  // Stella colours the playfield with COLUP0 / COLUP1 in score mode, and lets priority
  // mode override that, except in its playfield-only fast path, which ignores the
  // priority bit; kept for exactness.
  const bool priority = (ps & BIT_PRIORITY) && objs != BIT_PF;
  const bool score = (ps & BIT_SCORE) != 0;
  const uint64_t pfl = (objs & BIT_PF) ? playfield_line(t.pf, t.pfm_reflect) : 0;
  const uint32_t cols = (uint32_t)t.colubk | ((uint32_t)t.colupf << 8) | ((uint32_t)t.colup0 << 16) |
                        ((uint32_t)t.colup1 << 24);
  // Patterns that don't depend on the window.
  const bool has_bl = (objs & BIT_BL) != 0;
  const bool has_p0 = t.cur_grp0 != 0, has_p1 = t.cur_grp1 != 0;
  const bool has_m0 = (objs & BIT_M0) && !t.m0m_off;
  const bool has_m1 = (objs & BIT_M1) != 0;
  const uint64_t bl_pat = tia_size_pattern(t.blm_size);
  const uint64_t m0_pat = tia_size_pattern(t.m0m_size);
  const uint64_t m1_pat = tia_size_pattern(t.m1m_size);
  uint16_t coll = 0;
  while (count > 0) {
    const int n = count < 64 ? count : 64;
    const uint64_t live = n == 64 ? ~0ull : ((1ull << n) - 1);
    // Playfield: 4-pixel groups from x's group on, shifted to x's phase in its group.
    uint64_t pf = 0;
    if (pfl) {
      const uint64_t g = pfl >> (x >> 2);
      const int ph = x & 3;
      pf = tia_spread4_16((uint32_t)g) >> ph;
      if (ph && ((g >> 16) & 1u)) pf |= ~0ull << (64 - ph);
      pf &= live;
    }
    const uint64_t bl = has_bl ? tia_object_window(bl_pat, 1u, tia_window_base(t.blm_pos, x)) & live : 0;
    const uint64_t p0 = has_p0 ? tia_player_window(t.cur_grp0, t.p0m_en, t.p0m_mode, t.p0m_pos, x) & live : 0;
    const uint64_t p1 = has_p1 ? tia_player_window(t.cur_grp1, t.p1m_en, t.p1m_mode, t.p1m_pos, x) & live : 0;
    const uint64_t m0 = has_m0 ? tia_object_window(m0_pat, tia_copies(t.m0m_num), tia_window_base(t.m0m_pos, x)) & live : 0;
    const uint64_t m1 = has_m1 ? tia_object_window(m1_pat, tia_copies(t.m1m_num), tia_window_base(t.m1m_pos, x)) & live : 0;
    // Colour index per pixel: 0 COLUBK, 1 COLUPF, 2 COLUP0, 3 COLUP1.
    const uint64_t a = p0 | m0, b = p1 | m1;
    uint64_t c1, c2, c3;
    if (priority) {
      c1 = pf | bl;
      c2 = a & ~c1;
      c3 = b & ~c1 & ~a;
    } else if (score) {
      const int left = 80 - x;   // pixels of the window in the left half
      const uint64_t lmask = left <= 0 ? 0 : left >= 64 ? ~0ull : ((1ull << left) - 1);
      c2 = a | (pf & lmask);
      c3 = (b | pf) & ~c2;
      c1 = bl & ~c2 & ~c3;
    } else {
      c2 = a;
      c3 = b & ~a;
      c1 = (pf | bl) & ~a & ~b;
    }
    const uint64_t lo = c1 | c3, hi = c2 | c3;
    // Collisions: any pixel where both objects of a pair show.
    const uint64_t movers = bl | a | b;
    if (movers) {
      coll |= (uint16_t)(((m0 & p1) ? 0x0001 : 0) | ((m0 & p0) ? 0x0002 : 0) | ((m1 & p0) ? 0x0004 : 0) |
                         ((m1 & p1) ? 0x0008 : 0) | ((p0 & pf) ? 0x0010 : 0) | ((p0 & bl) ? 0x0020 : 0) |
                         ((p1 & pf) ? 0x0040 : 0) | ((p1 & bl) ? 0x0080 : 0) | ((m0 & pf) ? 0x0100 : 0) |
                         ((m0 & bl) ? 0x0200 : 0) | ((m1 & pf) ? 0x0400 : 0) | ((m1 & bl) ? 0x0800 : 0) |
                         ((bl & pf) ? 0x1000 : 0) | ((p0 & p1) ? 0x2000 : 0) | ((m0 & m1) ? 0x4000 : 0));
    }
    if (!draw) {
      x += n;
      count -= n;
      continue;
    }
#if CULE_TIA_WIDE_STORES
    tia_write_window(out, lo, hi, cols, n);
#else
    // Write the window run by run (a run: pixels with the same colour index).  Bit i
    // of `edges` marks a run starting at pixel i > 0; walking those bits keeps the
    // loop's only carried dependency short.
    uint64_t edges = ((lo ^ (lo << 1)) | (hi ^ (hi << 1))) & live & ~1ull;
    int start = 0;
#if CULE_TIA_SSE2
    if (edges && n >= 16) {
      // Several runs: sixteen pixels at a time, each byte picking its colour by its
      // two index bits, without branches on the picture's content.
      tia_write16(out, lo, hi, cols, n);
      edges = 0;
      start = n;
    }
#endif
    while (start < n) {
      const int end = edges ? tia_ctz64(edges) : n;
      const uint32_t idx = (uint32_t)((lo >> start) & 1u) | ((uint32_t)((hi >> start) & 1u) << 1);
      const uint8_t v = (uint8_t)(cols >> (8 * idx));
      const int len = end - start;
      if (start + ((len + 7) & ~7) <= n) {
        // Whole 8-byte stores; the last one may run into the next run, which is
        // written afterwards, but never past the window.
        const uint64_t v8 = 0x0101010101010101ull * v;
        for (int j = 0; j < len; j += 8) memcpy(out + start + j, &v8, 8);
      } else {
        tia_fill(out + start, v, len);
      }
      if (!edges) break;
      edges &= edges - 1;
      start = end;
    }
#endif
    out += n;
    x += n;
    count -= n;
  }
  t.collision |= coll;
  if (draw) tia_overshoot(t, out, x0, x_end);
}

// Stella TIA::updateFrame(): catch the picture up to colour clock `clock`.
CULE_BIG void tia_update_frame(Console& c, uint8_t* fb, int clock) {
  TiaState& t = c.tia;
  if (clock < t.clk_disp_start || t.clk_last_update >= t.clk_disp_stop || t.clk_last_update >= clock)
    return;
  if (clock > t.clk_disp_stop) clock = t.clk_disp_stop;
  do {
    int todo;
    int from_sol = kClocksPerLine - t.clks_to_eol;
    if (clock > t.clk_last_update + t.clks_to_eol) {
      todo = t.clks_to_eol;
      t.clks_to_eol = kClocksPerLine;
      t.clk_last_update += todo;
    } else {
      todo = clock - t.clk_last_update;
      t.clks_to_eol -= todo;
      t.clk_last_update = clock;
    }
    if (from_sol < kHBlank) {
      int skip = (kHBlank - from_sol) < todo ? (kHBlank - from_sol) : todo;
      from_sol += skip;
      todo -= skip;
    }
    uint32_t line_pos = t.fb_pos;
    if (todo != 0) tia_draw_pixels(t, fb, todo, from_sol - kHBlank);
    if (t.hmove_blank && from_sol < kHBlank + 8) {
      int blanks = (kHBlank + 8) - from_sol;   // 1..8
      if (t.render && line_pos + (uint32_t)blanks <= (uint32_t)kFrameBufferBytes) tia_fill(fb + line_pos, 0, blanks);
      if (todo + from_sol >= kHBlank + 8) t.hmove_blank = 0;
    }
    if (t.clks_to_eol == kClocksPerLine) {
      // A new line begins: the playfield reflection and the player masks follow the
      // registers again; Cosmic Ark's missile trick advances.
      t.pfm_reflect = t.ctrlpf & 0x01;
      tia_point_p0(t, 0);
      tia_point_p1(t, 0);
      if (t.cosmic_enabled) {
        static const int kStep[4] = {18, 33, 0, 17};
        t.cosmic_counter = (t.cosmic_counter + 1) & 3;
        t.posm0 = (int16_t)(t.posm0 - kStep[t.cosmic_counter]);
        if (t.posm0 >= 160) t.posm0 -= 160; else if (t.posm0 < 0) t.posm0 += 160;
        if (t.cosmic_counter == 1) tia_point_m0(t, 1);
        else if (t.cosmic_counter == 2) { t.m0m_off = 1; }
        else tia_point_m0(t, 0);
      }
    }
  } while (t.clk_last_update < clock);
}

// Stella TIA::startFrame().
CULE_HD void tia_start_frame(Console& c);

// Stella TIA::greyOutFrame(): an unfinished frame's remaining lines are dimmed.
CULE_BIG void tia_grey_out(Console& c, uint8_t* fb) {
  TiaState& t = c.tia;
  uint32_t total = c.cycles * 3 - (uint32_t)t.clk_frame_start;
  uint32_t s0 = total / kClocksPerLine;
  if (s0 < t.ystart) s0 = t.ystart;
  for (uint32_t s = s0; s < (uint32_t)(t.height + t.ystart); ++s)
    for (uint32_t i = 0; i < 160; ++i) {
      uint8_t& p = fb[(s - t.ystart) * 160 + i];
      p = (uint8_t)((p & 0x0f) >> 1);
    }
}

// Catching up is split-invariant except for one Stella quirk: an update that ends
// inside HBLANK on a line with an HMOVE blank pending zeroes the line's first
// 76 - (its end) pixels, more than the eight blanked ones; later drawing normally
// covers them, but not when the frame stops first.  So near the start of a line
// with an HMOVE blank pending, accesses always catch up, as Stella does.  (hpos is
// the access's clock in its line; the margins cover the write delays, which can
// carry an update into the next line.)
CULE_FI bool tia_catch_up_needed(const TiaState& t, int hpos) {
  return t.hmove_blank && (hpos < kHBlank + 16 || hpos >= kClocksPerLine - 8);
}

// The clock a catch-up for an access draws to, given the access's own (its clock plus
// its write delay): Stella draws up to each access's and never back, so an earlier
// access whose catch-up was left for later (clk_pending) may have drawn further.  That
// happens only within one instruction, whose accesses share a clock (M6502Low counts
// an instruction's cycles before its accesses): the pushes of JSR or BRK with the stack
// in TIA space, where a first write's delay exceeds the next's.
CULE_FI int tia_catch_up_to(const TiaState& t, int upto) { return upto > t.clk_pending ? upto : t.clk_pending; }

// ---- register reads (Stella TIA::peek) ----

CULE_HD uint8_t tia_read_pot(Console& c, const GameConfig& g, int port, Pin pin, uint8_t noise) {
  int32_t r = controller_read_analog(c, g, port, pin);
  if (r == kMinResistance) return 0x80 | noise;
  if (r == kMaxResistance || c.tia.dump_enabled) return noise;
  // The pot's capacitor charges in 1.6 * R * 0.01 uF seconds, at 1.19 MHz CPU cycles.
  double seconds = (1.6 * r * 0.01E-6);
  uint32_t needed = (uint32_t)(seconds * 1.19E6);
  if (c.cycles > (uint32_t)c.tia.dump_disabled_cycle + needed) return 0x80 | noise;
  return noise;
}

CULE_BIG uint8_t tia_peek(Console& c, const GameConfig& g, uint8_t* fb, uint16_t addr) {
  // Only the collision latches depend on the picture drawn so far (but near a line
  // start with an HMOVE blank pending, always catch up: see tia_catch_up_needed).
  const int clock = (int)(c.cycles * 3);
  if (!(addr & 0x08) || tia_catch_up_needed(c.tia, (clock - c.tia.clk_frame_start) % kClocksPerLine))
    tia_update_frame(c, fb, tia_catch_up_to(c.tia, clock));
  else if (clock > c.tia.clk_pending)
    c.tia.clk_pending = clock;
  const uint16_t col = c.tia.collision;
  const uint8_t noise = c.data_bus & 0x3F;
  switch (addr & 0x0f) {
    case 0x00: return (uint8_t)(((col & 0x0001) ? 0x80 : 0) | ((col & 0x0002) ? 0x40 : 0) | noise);  // CXM0P
    case 0x01: return (uint8_t)(((col & 0x0004) ? 0x80 : 0) | ((col & 0x0008) ? 0x40 : 0) | noise);  // CXM1P
    case 0x02: return (uint8_t)(((col & 0x0010) ? 0x80 : 0) | ((col & 0x0020) ? 0x40 : 0) | noise);  // CXP0FB
    case 0x03: return (uint8_t)(((col & 0x0040) ? 0x80 : 0) | ((col & 0x0080) ? 0x40 : 0) | noise);  // CXP1FB
    case 0x04: return (uint8_t)(((col & 0x0100) ? 0x80 : 0) | ((col & 0x0200) ? 0x40 : 0) | noise);  // CXM0FB
    case 0x05: return (uint8_t)(((col & 0x0400) ? 0x80 : 0) | ((col & 0x0800) ? 0x40 : 0) | noise);  // CXM1FB
    case 0x06: return (uint8_t)(((col & 0x1000) ? 0x80 : 0) | noise);                                // CXBLPF
    case 0x07: return (uint8_t)(((col & 0x2000) ? 0x80 : 0) | ((col & 0x4000) ? 0x40 : 0) | noise);  // CXPPMM
    case 0x08: return tia_read_pot(c, g, 0, PIN_NINE, noise);   // INPT0
    case 0x09: return tia_read_pot(c, g, 0, PIN_FIVE, noise);   // INPT1
    case 0x0A: return tia_read_pot(c, g, 1, PIN_NINE, noise);   // INPT2
    case 0x0B: return tia_read_pot(c, g, 1, PIN_FIVE, noise);   // INPT3
    case 0x0C: return controller_read_digital(c, g, 0, PIN_SIX) ? (uint8_t)(0x80 | noise) : noise;  // INPT4
    case 0x0D: return controller_read_digital(c, g, 1, PIN_SIX) ? (uint8_t)(0x80 | noise) : noise;  // INPT5
    default: return noise;
  }
}

// Colour clocks by which a write takes effect late (Stella's poke delay), -1 for the
// playfield registers whose delay depends on the pixel phase.
CULE_HD int tia_write_delay(uint16_t reg, int hpos) {
  switch (reg) {
    case 0x01: case 0x0B: case 0x0C: case 0x1B: case 0x1C: return 1;   // VBLANK REFP0 REFP1 GRP0 GRP1
    case 0x04: case 0x05: case 0x12: case 0x13: return 8;              // NUSIZ0 NUSIZ1 RESM0 RESM1
    case 0x0D: case 0x0E: case 0x0F: {                                  // PF0 PF1 PF2
      static const int kPhase[4] = {4, 5, 2, 3};
      return kPhase[(hpos / 3) & 3];
    }
    default: return 0;
  }
}

CULE_HD uint8_t tia_colour_value(const TiaState& t, uint8_t v) {
  uint8_t colour = v & 0xfe;
  if (t.color_loss && (t.scanline_count_last & 0x01)) colour |= 0x01;
  return colour;
}

}  // namespace cule
