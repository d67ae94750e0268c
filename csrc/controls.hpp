// cule: controllers and console switches as the console reads them.
// Facts: Stella 2.x Joystick / Paddles / Switches (the versions inside ALE 0.12.1),
// ALE 0.12.1 ALEState (how actions become events).
//
// Digital pins One..Four of a port appear in SWCHA (left port: bits 4-7, right: 0-3),
// pin Six is the fire button (INPT4 / INPT5), analog pins Nine and Five are the pots
// read through INPT0/1 (left) and INPT2/3 (right).  A pin reads true when released.
#pragma once
#include "state.hpp"

namespace cule {

enum Pin : uint8_t { PIN_ONE = 0, PIN_TWO, PIN_THREE, PIN_FOUR, PIN_SIX, PIN_FIVE, PIN_NINE };

constexpr int32_t kMaxResistance = 0x7FFFFFFF;
constexpr int32_t kMinResistance = 0;

// Paddle number a jack's pin belongs to.  Jack 0 carries paddles 0/1, jack 1 paddles
// 2/3; Controller.SwapPaddles exchanges which of the pair answers each pin.
CULE_HD int paddle_for_pin(uint8_t jack, uint8_t swap, Pin pin) {
  // Unswapped: pin Three/Five -> odd paddle of the pair, pin Four/Nine -> even one.
  bool odd = (pin == PIN_THREE || pin == PIN_FIVE);
  if (swap) odd = !odd;
  return (jack ? 2 : 0) + (odd ? 1 : 0);
}

CULE_HD bool controller_read_digital(const Console& c, const GameConfig& g, int port, Pin pin) {
  uint8_t jack = g.ctrl_jack[port];
  if (g.ctrl_type[port] == CTRL_PADDLES) {
    if (pin == PIN_THREE || pin == PIN_FOUR)
      return !((c.in.paddle_fire >> paddle_for_pin(jack, g.swap_paddles, pin)) & 1);
    return true;
  }
  uint8_t j = c.in.joy[jack];
  switch (pin) {
    case PIN_ONE: return !(j & 0x01);
    case PIN_TWO: return !(j & 0x02);
    case PIN_THREE: return !(j & 0x04);
    case PIN_FOUR: return !(j & 0x08);
    case PIN_SIX: return !(j & 0x10);
    default: return true;
  }
}

CULE_HD int32_t controller_read_analog(const Console& c, const GameConfig& g, int port, Pin pin) {
  if (g.ctrl_type[port] != CTRL_PADDLES) return kMaxResistance;
  if (pin != PIN_FIVE && pin != PIN_NINE) return kMaxResistance;
  return c.in.paddle_res[paddle_for_pin(g.ctrl_jack[port], g.swap_paddles, pin)];
}

// SWCHB: Stella's Switches keep a latched byte that each read updates from the events.
CULE_HD uint8_t switches_read(Console& c) {
  uint8_t s = c.riot.swchb;
  uint8_t e = c.in.console;
  if (e & 0x10) s |= 0x80; else if (e & 0x20) s &= (uint8_t)~0x80;
  if (e & 0x04) s |= 0x40; else if (e & 0x08) s &= (uint8_t)~0x40;
  if (e & 0x02) s &= (uint8_t)~0x02; else s |= 0x02;
  if (e & 0x01) s &= (uint8_t)~0x01; else s |= 0x01;
  c.riot.swchb = s;
  return s;
}

CULE_HD uint8_t swcha_read(const Console& c, const GameConfig& g) {
  uint8_t v = 0;
  for (int port = 0; port < 2; ++port) {
    int shift = port == 0 ? 4 : 0;
    for (int p = 0; p < 4; ++p)
      if (controller_read_digital(c, g, port, (Pin)p)) v |= (uint8_t)(1u << (shift + p));
  }
  return v;
}

}  // namespace cule
