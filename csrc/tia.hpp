// cule: the TIA (Television Interface Adaptor) video chip.
//
// Behaviour facts: the TIA hardware manual, and the scanline TIA of Stella 2.x as
// shipped in ALE 0.12.1 (which ALE's frames are made of: object masks, write delays,
// HMOVE motion and blanking, RESPx timing, collision latches, paddle pots).
// Audio register writes are accepted and ignored.
//
// Pixels are palette indices written into a frame buffer the backend owns; the core
// draws lazily, catching up to the current colour clock whenever the CPU touches the
// TIA, exactly when Stella does, so frames and collisions come out the same.
#pragma once
#include "state.hpp"
#include "controls.hpp"

namespace cule {

enum TiaBits : uint8_t {
  BIT_P0 = 0x01, BIT_M0 = 0x02, BIT_P1 = 0x04, BIT_M1 = 0x08,
  BIT_BL = 0x10, BIT_PF = 0x20, BIT_SCORE = 0x40, BIT_PRIORITY = 0x80
};

// ---- object masks, as functions of the distance from the object's position ----

// Player graphics bit (0x80 >> n) shown d clocks right of the player's position.
// mode = NUSIZ & 7; en = 1 suppresses the first copy (a RESPx in the middle of drawing).
CULE_HD uint8_t player_mask_bit(int en, int mode, int d) {
  switch (mode) {
    case 5: return (!en && d > 0 && d <= 16) ? (uint8_t)(0x80 >> ((d - 1) / 2)) : 0;
    case 7: return (!en && d > 0 && d <= 32) ? (uint8_t)(0x80 >> ((d - 1) / 4)) : 0;
    default: break;
  }
  if (d < 8) return en ? 0 : (uint8_t)(0x80 >> d);
  int c1 = -1, c2 = -1;
  switch (mode) {
    case 1: c1 = 16; break;
    case 2: c1 = 32; break;
    case 3: c1 = 16; c2 = 32; break;
    case 4: c1 = 64; break;
    case 6: c1 = 32; c2 = 64; break;
    default: break;
  }
  if (c1 >= 0 && d >= c1 && d < c1 + 8) return (uint8_t)(0x80 >> (d - c1));
  if (c2 >= 0 && d >= c2 && d < c2 + 8) return (uint8_t)(0x80 >> (d - c2));
  return 0;
}

CULE_HD bool missile_mask(int num, int size, int d) {
  int w = 1 << size;
  if (d < w) return true;
  switch (num) {
    case 1: return d >= 16 && d < 16 + w;
    case 2: return d >= 32 && d < 32 + w;
    case 3: return (d >= 16 && d < 16 + w) || (d >= 32 && d < 32 + w);
    case 4: return d >= 64 && d < 64 + w;
    case 6: return (d >= 32 && d < 32 + w) || (d >= 64 && d < 64 + w);
    default: return false;
  }
}

// Playfield bit (of the 20-bit PF0|PF1|PF2 register) shown at pixel x.
CULE_HD uint32_t playfield_mask(int reflect, int x) {
  if (x < 16) return 0x00001u << (x / 4);
  if (x < 48) return 0x00800u >> ((x - 16) / 4);
  if (x < 80) return 0x01000u << ((x - 48) / 4);
  if (!reflect) {
    if (x < 96) return 0x00001u << ((x - 80) / 4);
    if (x < 128) return 0x00800u >> ((x - 96) / 4);
    return 0x01000u << ((x - 128) / 4);
  }
  if (x < 112) return 0x80000u >> ((x - 80) / 4);
  if (x < 144) return 0x00010u << ((x - 112) / 4);
  return 0x00008u >> ((x - 144) / 4);
}

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

CULE_HD uint8_t reflect_byte(uint8_t v) {
  uint8_t r = 0;
  for (int i = 0; i < 8; ++i) r = (uint8_t)((r << 1) | ((v >> i) & 1));
  return r;
}

CULE_HD int wrap160(int v) { v %= 160; return v < 0 ? v + 160 : v; }

// HMOVE motion in pixels for a strobe at CPU cycle x (0..75) of the line, for a
// motion register value hm (0..15).  Hardware behaviour (the extra clocks HMOVE feeds
// the position counters, and how many of them a strobe late in the line still gets),
// in the form Stella 2.x tabulates it, expressed here in closed form.
CULE_HD int hmove_motion(int x, int hm) {
  int nominal = (hm < 8) ? -hm : 16 - hm;   // 0..-7 left, +8..+1 right
  if (x <= 20) {
    // Strobes during HBLANK: motion is at least the clocks that are still to come.
    const int lim = (x < 4) ? -7 : (x < 5) ? -6 : (x < 7) ? -5 : (x < 8) ? -4 : (x < 9) ? -3 :
                    (x < 11) ? -2 : (x < 12) ? -1 : (x < 13) ? 0 : (x < 15) ? 1 : (x < 16) ? 2 :
                    (x < 17) ? 3 : (x < 19) ? 4 : (x < 20) ? 5 : 6;
    return nominal < lim ? lim : nominal;
  }
  if (x < 55) return 0;
  if (x == 75) return nominal;
  // Strobes late in the line: the extra clocks spill into the next line's HBLANK.
  const int late = (x < 57) ? x - 54 : (x < 59) ? 3 : (x < 61) ? x - 55 : (x < 63) ? 6 :
                   (x < 65) ? x - 56 : (x < 67) ? 9 : (x < 69) ? x - 57 : (x < 71) ? 12 :
                   (x < 73) ? x - 58 : 15;
  int v = (hm ^ 8) + late - 15;
  return v > 0 ? -v : 0;
}

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
  for (int i = 0; i < 2 * kFrameBufferBytes; ++i) fbs[i] = 0;
  t.fb_pos = 0;
  int start_offset = kClocksPerLine * t.ystart;
  int stop_offset = start_offset + kClocksPerLine * t.height;
  t.clk_frame_start = (int32_t)(c.cycles * 3);
  t.clk_disp_start = t.clk_frame_start + start_offset;
  t.clk_disp_stop = t.clk_frame_start + stop_offset;
  t.clk_last_update = t.clk_frame_start;
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
  t.vsync_finish_clk -= clocks;
  t.last_hmove_clk -= clocks;
}

// ---- drawing ----

CULE_HD uint8_t tia_priority_colour(const TiaState& t, uint8_t e, int x) {
  int idx = 0;
  if (e & BIT_PRIORITY) {
    if (e & (BIT_P1 | BIT_M1)) idx = 3;
    if (e & (BIT_P0 | BIT_M0)) idx = 2;
    if (e & (BIT_BL | BIT_PF)) idx = 1;
  } else {
    if (e & BIT_BL) idx = 1;
    if (e & BIT_PF) idx = (e & BIT_SCORE) ? (x < 80 ? 2 : 3) : 1;
    if (e & (BIT_P1 | BIT_M1)) idx = (idx != 2) ? 3 : 2;
    if (e & (BIT_P0 | BIT_M0)) idx = 2;
  }
  switch (idx) {
    case 1: return t.colupf;
    case 2: return t.colup0;
    case 3: return t.colup1;
    default: return t.colubk;
  }
}

// Collision latch bits for a set of objects overlapping on one pixel (CXxx registers).
CULE_HD uint16_t tia_collisions(uint8_t e) {
  uint16_t c = 0;
  if ((e & BIT_M0) && (e & BIT_P1)) c |= 0x0001;
  if ((e & BIT_M0) && (e & BIT_P0)) c |= 0x0002;
  if ((e & BIT_M1) && (e & BIT_P0)) c |= 0x0004;
  if ((e & BIT_M1) && (e & BIT_P1)) c |= 0x0008;
  if ((e & BIT_P0) && (e & BIT_PF)) c |= 0x0010;
  if ((e & BIT_P0) && (e & BIT_BL)) c |= 0x0020;
  if ((e & BIT_P1) && (e & BIT_PF)) c |= 0x0040;
  if ((e & BIT_P1) && (e & BIT_BL)) c |= 0x0080;
  if ((e & BIT_M0) && (e & BIT_PF)) c |= 0x0100;
  if ((e & BIT_M0) && (e & BIT_BL)) c |= 0x0200;
  if ((e & BIT_M1) && (e & BIT_PF)) c |= 0x0400;
  if ((e & BIT_M1) && (e & BIT_BL)) c |= 0x0800;
  if ((e & BIT_BL) && (e & BIT_PF)) c |= 0x1000;
  if ((e & BIT_P0) && (e & BIT_P1)) c |= 0x2000;
  if ((e & BIT_M0) && (e & BIT_M1)) c |= 0x4000;
  return c;
}

// The playfield of one line in pixel order: bit g is the 4-pixel group g (0..39).
CULE_HD uint64_t playfield_line(uint32_t pf, int reflect) {
  // PF0 bits 4-7 (register bits 0-3) draw groups 0-3, PF1 bits 7-0 (register bits
  // 11-4) groups 4-11, PF2 bits 0-7 (register bits 12-19) groups 12-19.
  uint32_t left = (pf & 0x0000Fu) | ((uint32_t)reflect_byte((uint8_t)(pf >> 4)) << 4) | (pf & 0xFF000u);
  uint32_t right = left;
  if (reflect) {
    right = 0;
    for (int g = 0; g < 20; ++g) right |= ((left >> g) & 1u) << (19 - g);
  }
  return (uint64_t)left | ((uint64_t)right << 20);
}

// Widest reach (in pixels from the position) of a player's copies for NUSIZ mode.
CULE_HD int player_span(int mode) {
  switch (mode) {
    case 0: return 8;
    case 1: return 24;
    case 2: return 40;
    case 3: return 40;
    case 4: return 72;
    case 5: return 17;
    case 6: return 72;
    default: return 33;
  }
}

CULE_HD int missile_span(int num, int size) {
  int w = 1 << size;
  switch (num) {
    case 1: return 16 + w;
    case 2: case 3: return 32 + w;
    case 4: case 6: return 64 + w;
    default: return w;
  }
}

// Draw `count` pixels of the visible line starting at pixel x (0..159).
CULE_BIG void tia_draw_pixels(TiaState& t, uint8_t* fb, int count, int x) {
  uint8_t* out = fb + t.fb_pos;
  t.fb_pos += (uint32_t)count;
  if (t.vblank & 0x02) {
    for (int i = 0; i < count; ++i) out[i] = 0;
    return;
  }
  const uint8_t objs = t.enabled;
  if (objs == 0) {
    const uint8_t bk = t.colubk;
    for (int i = 0; i < count; ++i) out[i] = bk;
    return;
  }
  const uint8_t ps = t.prio_score;
  const uint64_t pfl = playfield_line(t.pf, t.pfm_reflect);
  if (objs == BIT_PF) {
    // Playfield alone.  With score mode on, Stella's fast path colours the playfield
    // with COLUP0/COLUP1 even when the priority bit is set too; kept for exactness.
    for (int i = 0; i < count; ++i, ++x) {
      bool on = (pfl >> (x >> 2)) & 1u;
      out[i] = on ? ((ps & BIT_SCORE) ? (x < 80 ? t.colup0 : t.colup1) : t.colupf) : t.colubk;
    }
    return;
  }
  // Distance of the current pixel from each object's position, stepped along the line.
  int d_bl = wrap160(x - t.blm_pos), d_p0 = wrap160(x - t.p0m_pos), d_p1 = wrap160(x - t.p1m_pos);
  int d_m0 = wrap160(x - t.m0m_pos), d_m1 = wrap160(x - t.m1m_pos);
  const int w_bl = (objs & BIT_BL) ? (1 << t.blm_size) : 0;
  const int s_p0 = t.cur_grp0 ? player_span(t.p0m_mode) : 0;
  const int s_p1 = t.cur_grp1 ? player_span(t.p1m_mode) : 0;
  const int s_m0 = ((objs & BIT_M0) && !t.m0m_off) ? missile_span(t.m0m_num, t.m0m_size) : 0;
  const int s_m1 = (objs & BIT_M1) ? missile_span(t.m1m_num, t.m1m_size) : 0;
  uint16_t coll = 0;
  for (int i = 0; i < count; ++i, ++x) {
    uint8_t e = ((pfl >> (x >> 2)) & 1u) ? BIT_PF : 0;
    if (d_bl < w_bl) e |= BIT_BL;
    if (d_p1 < s_p1 && (t.cur_grp1 & player_mask_bit(t.p1m_en, t.p1m_mode, d_p1))) e |= BIT_P1;
    if (d_m1 < s_m1 && missile_mask(t.m1m_num, t.m1m_size, d_m1)) e |= BIT_M1;
    if (d_p0 < s_p0 && (t.cur_grp0 & player_mask_bit(t.p0m_en, t.p0m_mode, d_p0))) e |= BIT_P0;
    if (d_m0 < s_m0 && missile_mask(t.m0m_num, t.m0m_size, d_m0)) e |= BIT_M0;
    if (e & (e - 1)) coll |= tia_collisions(e);
    out[i] = tia_priority_colour(t, (uint8_t)(e | ps), x);
    if (++d_bl == 160) d_bl = 0;
    if (++d_p0 == 160) d_p0 = 0;
    if (++d_p1 == 160) d_p1 = 0;
    if (++d_m0 == 160) d_m0 = 0;
    if (++d_m1 == 160) d_m1 = 0;
  }
  t.collision |= coll;
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
      int blanks = (kHBlank + 8) - from_sol;
      for (int i = 0; i < blanks; ++i) fb[line_pos + i] = 0;
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
  tia_update_frame(c, fb, (int)(c.cycles * 3));
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
