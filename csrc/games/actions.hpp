// cule: ALE action numbers (ALE 0.12.1 Action enum, player A) for the per-game rule
// sets' starting actions and mode selection.  Same values as AleAction in
// csrc/ale_env.hpp, which is only declared after the games are included.
#pragma once
#include <stdint.h>

namespace cule { namespace games { namespace action {

constexpr uint8_t NOOP = 0;
constexpr uint8_t FIRE = 1;
constexpr uint8_t UP = 2;
constexpr uint8_t RIGHT = 3;
constexpr uint8_t LEFT = 4;
constexpr uint8_t DOWN = 5;
constexpr uint8_t RESET = 40;

}}}  // namespace cule::games::action
