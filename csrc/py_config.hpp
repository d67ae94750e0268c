// cule: the GameConfig the native core takes, from the dict cule/roms.py builds
// (native_config).  Shared by the CPU and CUDA bindings.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <vector>

#include "games/dispatch.hpp"
#include "state.hpp"

namespace cule {

inline GameConfig config_from_dict(const pybind11::dict& d) {
  GameConfig g{};
  g.rom_size = d["rom_size"].cast<uint32_t>();
  g.cart_type = d["cart_type"].cast<uint8_t>();
  g.game_id = d["game_id"].cast<uint8_t>();
  g.pal = d["pal"].cast<bool>();
  g.autodetect = d["autodetect"].cast<bool>();
  auto types = d["ctrl_type"].cast<std::vector<int>>();
  auto jacks = d["ctrl_jack"].cast<std::vector<int>>();
  for (int i = 0; i < 2; ++i) { g.ctrl_type[i] = (uint8_t)types.at(i); g.ctrl_jack[i] = (uint8_t)jacks.at(i); }
  g.swap_paddles = d["swap_paddles"].cast<bool>();
  g.left_diff_a = d["left_diff_a"].cast<bool>();
  g.right_diff_a = d["right_diff_a"].cast<bool>();
  g.hmove_blanks = d["hmove_blanks"].cast<bool>();
  g.use_paddles = g.ctrl_type[0] == CTRL_PADDLES || g.ctrl_type[1] == CTRL_PADDLES;
  g.ystart = d["ystart"].cast<uint16_t>();
  g.height = d["height"].cast<uint16_t>();
  g.screen_height = d["screen_height"].cast<uint16_t>();
  g.paddle_min = d["paddle_min"].cast<int32_t>();
  g.paddle_max = d["paddle_max"].cast<int32_t>();
  if (g.cart_type >= CART_COUNT) throw std::invalid_argument("unknown cartridge type");
  if (g.game_id >= GAME_COUNT) throw std::invalid_argument("unknown game id");
  return g;
}

}  // namespace cule
