// ALE 0.12.1 src/ale/games/supported/Superman.cpp
// cule-game: superman Superman
#pragma once
#include "game_api.hpp"

namespace cule { namespace games {

// The game ends when Clark Kent (bit 6 of 0x9F) is back in the room at 0x80/0x81 ==
// 0xF2AC; the reward, given then only, is 99:59 minus the clock (minutes BCD 0xE3,
// seconds BCD 0xE2) in seconds.
struct Superman : GameBase {
  CULE_HD static void reset(GameVars& v) { v.reward = 0; v.score = 0; v.terminal = 0; }
  CULE_HD static void step(Console& c) {
    GameVars& v = c.game;
    int seconds = bcd_byte(c, 0xE3) * 60 + bcd_byte(c, 0xE2);
    v.score = seconds;
    int room = ram_at(c, 0x80) + (ram_at(c, 0x81) << 8);
    bool clark = (ram_at(c, 0x9F) & 0x40) != 0;
    v.terminal = clark && room == 0xF2AC;
    v.reward = v.terminal ? (99 * 60 + 59) - seconds : 0;
  }
};

}}  // namespace cule::games
