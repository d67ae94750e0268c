// cule: helpers shared by the pybind11 modules (cule._core, cule._vector, cule._cuda):
// checked views of NumPy arrays, and the GameConfig the native core takes, from the
// dict cule/roms.py builds (native_config).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ale_env.hpp"
#include "games/dispatch.hpp"
#include "state.hpp"

namespace cule {

// A writable C-contiguous array of T with `count` elements, or std::invalid_argument
// naming `what`.
template <class T>
T* writable(pybind11::array& a, const char* what, size_t count) {
  if (!pybind11::isinstance<pybind11::array_t<T>>(a) || !(a.flags() & pybind11::array::c_style) || !a.writeable())
    throw std::invalid_argument(std::string(what) + ": expected a writable C-contiguous array of the right dtype");
  if ((size_t)a.size() != count)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(count) + " elements, got " +
                                std::to_string(a.size()));
  return static_cast<T*>(a.mutable_data());
}

// EnvParams from the bindings' arguments (max_lives: kNoLivesLimit when
// truncate_on_loss_of_life is off).
inline EnvParams ale_params(int frameskip, float p, int32_t max_frames, int32_t max_lives) {
  EnvParams e{frameskip, p, max_frames};
  e.max_lives = max_lives;
  return e;
}

// A C-contiguous array of T with `count` elements, or std::invalid_argument.
template <class T>
const T* readable(const pybind11::array& a, const char* what, size_t count) {
  if (!pybind11::isinstance<pybind11::array_t<T>>(a) || !(a.flags() & pybind11::array::c_style))
    throw std::invalid_argument(std::string(what) + ": expected a C-contiguous array of the right dtype");
  if ((size_t)a.size() != count)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(count) + " elements, got " +
                                std::to_string(a.size()));
  return static_cast<const T*>(a.data());
}

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
  g.sound = d.contains("sound") ? d["sound"].cast<bool>() : false;
  g.cpu_high = d.contains("cpu_high") ? d["cpu_high"].cast<bool>() : false;
  g.system_seed = d.contains("system_random_seed") ? (uint32_t)d["system_random_seed"].cast<int64_t>()
                                                   : kSystemRandomSeed;
  if (g.cart_type >= CART_COUNT) throw std::invalid_argument("unknown cartridge type");
  if (g.game_id >= GAME_COUNT) throw std::invalid_argument("unknown game id");
  return g;
}

}  // namespace cule
