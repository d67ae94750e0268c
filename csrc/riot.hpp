// cule: the RIOT (MOS 6532): 128 bytes of RAM, the I/O ports (SWCHA joystick/paddle
// lines, SWCHB console switches) and the interval timer (TIM1T, TIM8T, TIM64T,
// T1024T, INTIM, the interrupt flag).
// Behaviour facts: the 6532 data sheet and Stella 2.x's M6532 (ALE 0.12.1), whose
// timer model (including reads after the timer has wrapped) ALE's games see.
#pragma once
#include "state.hpp"
#include "controls.hpp"

namespace cule {

// Stella M6532::reset(): one draw from the system RNG sets the power-on timer.
CULE_HD void riot_reset(Console& c) {
  RiotState& r = c.riot;
  r.timer = 25 + (mt_next(c.sys_rng) % 75);
  r.interval_shift = 6;
  r.cycles_when_timer_set = 0;
  r.cycles_when_irq_reset = 0;
  r.timer_read_after_irq = 0;
  r.ddra = 0;
  r.ddrb = 0;
}

// Part of System::resetCycles().
CULE_HD void riot_cycles_reset(Console& c) {
  c.riot.cycles_when_timer_set -= (int32_t)c.cycles;
  c.riot.cycles_when_irq_reset -= (int32_t)c.cycles;
}

CULE_HD uint8_t riot_read_timer(Console& c) {
  RiotState& r = c.riot;
  uint32_t cycles = c.cycles - 1;
  uint32_t delta = cycles - (uint32_t)r.cycles_when_timer_set;
  int timer = (int)r.timer - (int)(delta >> r.interval_shift) - 1;
  if (timer >= 0) return (uint8_t)timer;
  // The timer has passed zero: it now counts down once per cycle.
  timer = (int)(r.timer << r.interval_shift) - (int)delta - 1;
  if (timer <= -2 && !r.timer_read_after_irq) {
    r.timer_read_after_irq = 1;
    r.cycles_when_irq_reset = (int32_t)c.cycles;
  }
  if (r.timer_read_after_irq) {
    int offset = (int)((uint32_t)r.cycles_when_irq_reset -
                       ((uint32_t)r.cycles_when_timer_set + (r.timer << r.interval_shift)));
    timer = (int)r.timer - (int)(delta >> r.interval_shift) - offset;
  }
  return (uint8_t)timer;
}

CULE_HD uint8_t riot_peek(Console& c, const GameConfig& g, uint16_t addr) {
  switch (addr & 0x07) {
    case 0x00: return swcha_read(c, g);          // SWCHA
    case 0x01: return c.riot.ddra;               // SWACNT
    case 0x02: return switches_read(c);          // SWCHB
    case 0x03: return c.riot.ddrb;               // SWBCNT
    case 0x04: case 0x06: return riot_read_timer(c);   // INTIM
    default: {                                   // TIMINT: interrupt flag in bit 7
      RiotState& r = c.riot;
      uint32_t cycles = c.cycles - 1;
      uint32_t delta = cycles - (uint32_t)r.cycles_when_timer_set;
      int timer = (int)r.timer - (int)(delta >> r.interval_shift) - 1;
      return (timer >= 0 || r.timer_read_after_irq) ? 0x00 : 0x80;
    }
  }
}

CULE_HD void riot_set_timer(Console& c, uint8_t value, uint32_t shift) {
  c.riot.timer = value;
  c.riot.interval_shift = shift;
  c.riot.cycles_when_timer_set = (int32_t)c.cycles;
  c.riot.timer_read_after_irq = 0;
}

CULE_HD void riot_poke(Console& c, uint16_t addr, uint8_t value) {
  if ((addr & 0x07) == 0x00) return;             // SWCHA: joysticks and paddles ignore writes
  if ((addr & 0x07) == 0x01) { c.riot.ddra = value; return; }   // SWACNT
  if ((addr & 0x07) == 0x02 || (addr & 0x07) == 0x03) return;   // SWCHB, SWBCNT
  switch (addr & 0x17) {
    case 0x14: riot_set_timer(c, value, 0); return;    // TIM1T
    case 0x15: riot_set_timer(c, value, 3); return;    // TIM8T
    case 0x16: riot_set_timer(c, value, 6); return;    // TIM64T
    case 0x17: riot_set_timer(c, value, 10); return;   // T1024T
    default: return;                                   // edge-detect control: no effect here
  }
}

}  // namespace cule
