// cule: Python bindings (pybind11) for the CPU backend and the CPU test bus.
// Buffers cross the boundary as NumPy arrays the Python side allocated (and wraps as
// torch tensors without copying); the GIL is released while consoles run.
#include <cstring>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cpu_backend.hpp"
#include "flat_bus.hpp"
#include "py_config.hpp"

namespace py = pybind11;
using namespace cule;


PYBIND11_MODULE(_core, m) {
  m.doc() = "cule native core: the batched Atari 2600 emulator (CPU backend)";
  m.attr("console_state_bytes") = (int)sizeof(Console);
  m.attr("frame_buffer_bytes") = kFrameBufferBytes;
  // Where a snapshot row (one Console) keeps TIA's current-buffer index (tests).
  m.attr("console_cur_buf_offset") = (int)(offsetof(Console, tia) + offsetof(TiaState, cur_buf));
  // Where a snapshot row keeps the ALE fields that ale_py.ALEState's getters report
  // (cule.ALEState): byte offset and size of each (little-endian, signed for the frames).
  {
    py::dict fields;
    fields["frame_number"] = py::make_tuple((int)offsetof(Console, frame_number), (int)sizeof(int32_t));
    fields["episode_frame_number"] =
        py::make_tuple((int)offsetof(Console, episode_frame_number), (int)sizeof(int32_t));
    fields["mode"] = py::make_tuple((int)offsetof(Console, mode), (int)sizeof(Console::mode));
    fields["difficulty"] = py::make_tuple((int)offsetof(Console, difficulty), (int)sizeof(Console::difficulty));
    m.attr("console_ale_fields") = fields;
  }
  m.def(
      "ale_restore_rows",
      [](py::array& now, const py::array& snap, const py::dict& cfg, bool include_rng, int32_t max_frames,
         int32_t max_lives) {
        if (now.ndim() != 2 || snap.ndim() != 2 || now.shape(0) != snap.shape(0) ||
            now.shape(1) != (py::ssize_t)sizeof(Console) || snap.shape(1) != (py::ssize_t)sizeof(Console))
          throw std::invalid_argument("ale_restore_rows: two uint8 [k, console_state_bytes] arrays");
        const size_t k = (size_t)now.shape(0);
        uint8_t* dst = writable<uint8_t>(now, "now", k * sizeof(Console));
        const uint8_t* src = readable<uint8_t>(snap, "snap", k * sizeof(Console));
        const GameConfig g = config_from_dict(cfg);
        const EnvParams prm = ale_params(1, 0.0f, max_frames, max_lives);
        for (size_t i = 0; i < k; ++i) {
          Console c, s;
          std::memcpy(&c, dst + i * sizeof(Console), sizeof(Console));
          std::memcpy(&s, src + i * sizeof(Console), sizeof(Console));
          ale_restore_state(c, s, g, include_rng, prm);
          std::memcpy(dst + i * sizeof(Console), &c, sizeof(Console));
        }
      },
      py::arg("now"), py::arg("snap"), py::arg("cfg"), py::arg("include_rng"), py::arg("max_frames"),
      py::arg("max_lives"),
      "Rows `now` (consoles as they are) become what ALE 0.12.1's restoreState of the rows "
      "`snap` makes of them (ale_env.hpp, ale_restore_state); in place");
  m.attr("cuda") = false;
  m.attr("NO_LIVES_LIMIT") = kNoLivesLimit;
  m.attr("SYSTEM_RANDOM_SEED") = kSystemRandomSeed;   // ALE's default system_random_seed
  m.def(
      "initial_lives",
      [](int game_id) {
        if (game_id < 0 || game_id > 255) throw std::invalid_argument("game id out of range");
        return game_initial_lives((uint8_t)game_id);
      },
      py::arg("game_id"),
      "ALE's m_max_lives for a game: lives() of its RomSettings as constructed (the limit of "
      "truncate_on_loss_of_life)");
  m.def(
      "palette_lut",
      [](bool pal) {
        const PaletteLut lut = make_palette(pal);
        py::array_t<uint8_t> rgb({256, 3});
        py::array_t<uint8_t> gray(256);
        std::memcpy(rgb.mutable_data(), lut.rgb, sizeof(lut.rgb));
        std::memcpy(gray.mutable_data(), lut.gray, sizeof(lut.gray));
        return py::make_tuple(rgb, gray);
      },
      py::arg("pal"),
      "(rgb uint8 [256, 3], gray uint8 [256]): the RGB and greyscale of every palette index "
      "as ALE 0.12.1's ColourPalette renders them (standard NTSC or PAL palette)");
  m.def(
      "legal_actions",
      [](int game_id) {
        if (game_id < 0 || game_id > 255) throw std::invalid_argument("game id out of range");
        std::vector<int> out;
        for (int a = 0; a < A_NUM_ACTIONS; ++a)
          if (game_legal((uint8_t)game_id, (uint8_t)a)) out.push_back(a);
        return out;
      },
      py::arg("game_id"),
      "ALE's legal action set of a game (ALEInterface.getLegalActionSet): the action ids 0..17 its "
      "RomSettings::isLegal accepts, in increasing order");

  m.attr("SET_RAM") = (int)kSetRam;
  m.attr("SET_MODE") = (int)kSetMode;
  m.attr("SET_DIFFICULTY") = (int)kSetDifficulty;

  py::class_<CpuBatch>(m, "CpuBatch")
      .def(py::init([](const py::dict& cfg, const py::bytes& rom, int num_envs, int num_threads) {
             return new CpuBatch(config_from_dict(cfg), std::string(rom), num_envs, num_threads);
           }),
           py::arg("config"), py::arg("rom"), py::arg("num_envs"), py::arg("num_threads"))
      .def_property_readonly("num_envs", &CpuBatch::num_envs)
      .def_property_readonly("num_threads", &CpuBatch::num_threads)
      .def_property("render_last", &CpuBatch::render_last, &CpuBatch::set_render_last)
      .def("set_audio", [](CpuBatch& b, py::array& audio) {
        // The caller keeps the array alive as long as the batch acts.
        if (!b.config().sound) throw std::invalid_argument("set_audio: the batch was made without sound");
        b.set_audio(writable<uint8_t>(audio, "audio", (size_t)b.num_envs() * kAudioSamplesPerFrame));
      }, py::arg("audio"))
      .def("set_screen_log", [](CpuBatch& b, const py::object& buffer) {
        // The caller keeps `buffer` (uint8 [capacity, 2 * frame_buffer_bytes]) alive while
        // it is set; None stops logging.
        if (buffer.is_none()) {
          b.set_screen_log(nullptr, 0);
          return;
        }
        py::array a = buffer.cast<py::array>();
        if (a.ndim() != 2 || a.shape(1) != 2 * kFrameBufferBytes)
          throw std::invalid_argument("set_screen_log: a uint8 [capacity, 2 * frame_buffer_bytes] array");
        const size_t cap = (size_t)a.shape(0);
        b.set_screen_log(writable<uint8_t>(a, "screen log", cap * 2 * kFrameBufferBytes), (int)cap);
      }, py::arg("buffer"),
      "Log the screen before each act frame (ALE record_screen_dir) into `buffer`, entry k = the "
      "(current, other) frame buffers; None: stop.  A batch of one console only")
      .def_property_readonly("screen_log_count", &CpuBatch::screen_log_count,
                             "Screens logged since set_screen_log (entries past its capacity were not written)")
      .def("reset_memo_stats", &CpuBatch::reset_memo_stats,
           "The reset_game memo's slots as (state, hits): state 0 empty, 1 being recorded, 2 recorded (in use), "
           "3 not usable for this game; [] when CULE_RESET_MEMO=0 turned it off")
      .def("power_on_memo_stats", &CpuBatch::power_on_memo_stats,
           "The same for the memo's slots of the resets that follow a power-on (loadROM, reseeded resets)")
      .def("start_memo_stats", &CpuBatch::start_memo_stats,
           "The noop-start memo per reset_game memo slot, as (frames taken from recorded nodes, frames "
           "emulated) by the vector env's FIRE / noop starts that began at the slot's end state; [] when off")
      .def("load", [](CpuBatch& b, const py::array& seeds, const py::array& modes, const py::array& diffs,
                      int frameskip, float p, int32_t max_frames, int32_t max_lives) {
        size_t n = (size_t)b.num_envs();
        const uint32_t* s = readable<uint32_t>(seeds, "seeds", n);
        const uint16_t* mo = readable<uint16_t>(modes, "modes", n);
        const uint8_t* di = readable<uint8_t>(diffs, "difficulties", n);
        py::gil_scoped_release nogil;
        b.load(s, mo, di, ale_params(frameskip, p, max_frames, max_lives));
      })
      .def("set", [](CpuBatch& b, const py::array& ids, int32_t what, int32_t index, const py::array& values) {
        // ALE setRAM (what 0, RAM byte index) / setMode (1) / setDifficulty (2); the caller
        // checks the values.
        const size_t k = (size_t)ids.size();
        const int64_t* p_ids = readable<int64_t>(ids, "env_ids", k);
        const int32_t* v = readable<int32_t>(values, "values", k);
        for (size_t j = 0; j < k; ++j)
          if (p_ids[j] < 0 || p_ids[j] >= b.num_envs()) throw std::out_of_range("env id out of range");
        if (what < 0 || what > 2 || index < 0 || index > 127) throw std::out_of_range("set: bad field");
        b.set(p_ids, (int)k, what, index, v);
      }, py::arg("env_ids"), py::arg("what"), py::arg("index"), py::arg("values"))
      .def("reset", [](CpuBatch& b, const py::array& ids, int frameskip, float p, int32_t max_frames,
                       int32_t max_lives) {
        const float pr = p;
        const int64_t* p_ids = readable<int64_t>(ids, "env_ids", (size_t)ids.size());
        int count = (int)ids.size();
        for (int k = 0; k < count; ++k)
          if (p_ids[k] < 0 || p_ids[k] >= b.num_envs()) throw std::out_of_range("env id out of range");
        py::gil_scoped_release nogil;
        b.reset(p_ids, count, ale_params(frameskip, pr, max_frames, max_lives));
      })
      .def("act", [](CpuBatch& b, const py::array& actions, py::array& rewards, int frameskip, float p,
                     int32_t max_frames, int32_t max_lives) {
        size_t n = (size_t)b.num_envs();
        const uint8_t* a = readable<uint8_t>(actions, "actions", n);
        int32_t* r = writable<int32_t>(rewards, "rewards", n);
        py::gil_scoped_release nogil;
        b.act(a, r, ale_params(frameskip, p, max_frames, max_lives));
      })
      // The common act() call in one step: actions as any 1-D integer array (a
      // zero-copy view of the caller's tensor), a new int32 rewards array returned.
      // Returns None, having run nothing, when the actions need the full checks (the
      // Python side then raises the precise error or converts them).
      .def("act_fast", [](CpuBatch& b, const py::array& actions, int frameskip, float p, int32_t max_frames,
                          int32_t max_lives) -> py::object {
        const size_t n = (size_t)b.num_envs();
        if (actions.ndim() != 1 || (size_t)actions.shape(0) != n) return py::none();
        const py::dtype dt = actions.dtype();
        const char kind = dt.kind();
        const py::ssize_t size = dt.itemsize();
        if ((kind != 'i' && kind != 'u') || (size != 1 && size != 2 && size != 4 && size != 8)) return py::none();
        if (size > 1 && dt.byteorder() == '>') return py::none();
        const char* data = static_cast<const char*>(actions.data());
        const py::ssize_t stride = actions.strides(0);
        std::vector<uint8_t> a(n);
        for (size_t i = 0; i < n; ++i) {
          const char* q = data + (py::ssize_t)i * stride;
          int64_t v;
          if (kind == 'i') {
            if (size == 1) v = *(const int8_t*)q;
            else if (size == 2) { int16_t t; std::memcpy(&t, q, 2); v = t; }
            else if (size == 4) { int32_t t; std::memcpy(&t, q, 4); v = t; }
            else std::memcpy(&v, q, 8);
          } else {
            uint64_t u;
            if (size == 1) u = *(const uint8_t*)q;
            else if (size == 2) { uint16_t t; std::memcpy(&t, q, 2); u = t; }
            else if (size == 4) { uint32_t t; std::memcpy(&t, q, 4); u = t; }
            else std::memcpy(&u, q, 8);
            if (u >= 18) return py::none();
            v = (int64_t)u;
          }
          if (v < 0 || v >= 18) return py::none();
          a[i] = (uint8_t)v;
        }
        py::array_t<int32_t> rewards((py::ssize_t)n);
        int32_t* r = rewards.mutable_data();
        {
          py::gil_scoped_release nogil;
          b.act(a.data(), r, ale_params(frameskip, p, max_frames, max_lives));
        }
        return std::move(rewards);
      })
      .def("read_ram", [](CpuBatch& b, py::array& out) {
        b.read_ram(writable<uint8_t>(out, "ram", (size_t)b.num_envs() * 128));
      })
      .def("read_info", [](CpuBatch& b, py::array& lives, py::array& term, py::array& trunc, py::array& ep, py::array& fr) {
        size_t n = (size_t)b.num_envs();
        b.read_info(writable<int32_t>(lives, "lives", n), writable<uint8_t>(term, "terminated", n),
                    writable<uint8_t>(trunc, "truncated", n), writable<int32_t>(ep, "episode_frame_number", n),
                    writable<int32_t>(fr, "frame_number", n));
      })
      .def("screen_rgb", [](CpuBatch& b, py::array& out) {
        uint8_t* o = writable<uint8_t>(out, "screen", (size_t)b.num_envs() * b.config().screen_height * 160 * 3);
        py::gil_scoped_release nogil;
        b.screen_rgb(o);
      })
      .def("screen_grayscale", [](CpuBatch& b, py::array& out) {
        uint8_t* o = writable<uint8_t>(out, "screen", (size_t)b.num_envs() * b.config().screen_height * 160);
        py::gil_scoped_release nogil;
        b.screen_gray(o);
      })
      .def("screen_index", [](CpuBatch& b, py::array& out) {
        b.screen_index(writable<uint8_t>(out, "screen", (size_t)b.num_envs() * b.config().screen_height * 160));
      })
      .def("debug_state", [](CpuBatch& b, int i) {
        if (i < 0 || i >= b.num_envs()) throw std::out_of_range("env id out of range");
        const Console& c = b.console(i);
        py::dict d;
        d["pc"] = c.cpu.pc; d["a"] = c.cpu.a; d["x"] = c.cpu.x; d["y"] = c.cpu.y;
        d["sp"] = c.cpu.sp; d["p"] = c.cpu.p; d["halted"] = c.cpu.halted;
        d["cycles"] = c.cycles; d["bank"] = c.cart.bank;
        d["timer"] = c.riot.timer; d["interval_shift"] = c.riot.interval_shift;
        d["cycles_when_timer_set"] = c.riot.cycles_when_timer_set;
        d["cycles_when_irq_reset"] = c.riot.cycles_when_irq_reset;
        d["timer_read_after_irq"] = c.riot.timer_read_after_irq;
        d["posp0"] = c.tia.posp0; d["posp1"] = c.tia.posp1; d["posm0"] = c.tia.posm0;
        d["posm1"] = c.tia.posm1; d["posbl"] = c.tia.posbl; d["collision"] = c.tia.collision;
        d["clk_frame_start"] = c.tia.clk_frame_start; d["scanline_count_last"] = c.tia.scanline_count_last;
        d["partial_frame"] = c.tia.partial_frame; d["fb_pos"] = c.tia.fb_pos;
        d["left_paddle"] = c.left_paddle; d["right_paddle"] = c.right_paddle;
        d["score"] = c.game.score; d["action_a"] = c.action_a;
        d["lives"] = c.game.lives; d["started"] = c.game.started;
        d["aux"] = py::make_tuple(c.game.aux[0], c.game.aux[1], c.game.aux[2], c.game.aux[3]);
        d["dpc_frac_clocks"] = b.config().cart_type == CART_DPC ? c.cart.dpc.frac_clocks : 0.0;
        d["data_bus"] = c.data_bus; d["cur_buf"] = c.tia.cur_buf;
        return d;
      })
      .def("state_views", [](py::object self) {
        // Writable views (rows: envs) of the Console structs and the frame buffers.
        CpuBatch& b = self.cast<CpuBatch&>();
        const size_t n = (size_t)b.num_envs(), cs = sizeof(Console), fs = 2 * (size_t)kFrameBufferBytes;
        py::array consoles(py::dtype::of<uint8_t>(), {n, cs}, {cs, (size_t)1}, b.console_bytes(), self);
        py::array fbs(py::dtype::of<uint8_t>(), {n, fs}, {fs, (size_t)1}, b.frame_buffer_bytes(), self);
        return py::make_tuple(consoles, fbs);
      });

  m.def("cpu_run_flat", [](py::array& mem, uint16_t pc, uint64_t max_instructions, bool stop_on_self_jump,
                           uint8_t a, uint8_t x, uint8_t y, uint8_t sp, uint8_t p, bool table_driven, bool high,
                           uint32_t trace) {
        uint8_t* mm = writable<uint8_t>(mem, "memory", 65536);
        FlatRunResult r;
        std::vector<FlatAccess> log(trace);
        uint64_t accesses = 0;
        {
          py::gil_scoped_release nogil;
          if (high || trace) {
            // The traced bus (table-driven step), as ALE's M6502High or M6502Low.
            auto go = [&](auto& bus) {
              bus.log = log.data();
              bus.cap = trace;
              r = cpu_run_flat_on(bus, mm, pc, max_instructions, stop_on_self_jump, a, x, y, sp, p);
              accesses = bus.n;
            };
            if (high) {
              FlatBusTraced<true> bus;
              go(bus);
            } else {
              FlatBusTraced<false> bus;
              go(bus);
            }
          } else {
            r = cpu_run_flat(mm, pc, max_instructions, stop_on_self_jump, a, x, y, sp, p, table_driven);
          }
        }
        py::dict d;
        d["pc"] = r.pc; d["a"] = r.a; d["x"] = r.x; d["y"] = r.y; d["sp"] = r.sp; d["p"] = r.p;
        d["halted"] = r.halted; d["cycles"] = r.cycles; d["instructions"] = r.instructions;
        if (trace) {
          py::list out;
          for (uint64_t i = 0; i < accesses && i < trace; ++i)
            out.append(py::make_tuple(log[i].cycle, log[i].addr, log[i].value, log[i].write ? "W" : "R"));
          d["accesses"] = out;
        }
        return d;
      },
      py::arg("memory"), py::arg("pc"), py::arg("max_instructions"), py::arg("stop_on_self_jump") = false,
      py::arg("a") = 0, py::arg("x") = 0, py::arg("y") = 0, py::arg("sp") = 0xFF, py::arg("p") = 0x30,
      py::arg("table_driven") = false, py::arg("high") = false, py::arg("trace") = 0,
      "Run the 6507 core over a flat 64 KiB memory (no mirroring), for CPU tests; table_driven runs "
      "Core::step's GPU form (one table-driven copy of the stages) instead of the host's per-opcode copies. "
      "high: as ALE's M6502High (cpu='high'), table-driven.  trace > 0: result['accesses'] lists the first "
      "`trace` bus accesses as (cycle count when made, address, byte, 'R' or 'W'), table-driven.");
}
