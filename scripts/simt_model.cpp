// cule: a host model of how the lanes of one CUDA warp share their CPU loop, for
// comparing lane-scheduling policies without a GPU (scripts/simt_model.py drives it).
//
// 32 consoles of one game run frame by frame, each with its own seed, noop start and
// random actions (sticky, as the vector env runs them).  Inside each frame the CPU loop
// is run in rounds, as a warp runs it: in a round the lanes a policy picks execute one
// instruction each, the others wait.  Every console still runs its own instructions in
// its own order, so the result must equal running the consoles one by one with ale_act:
// checked at the end (the whole Console struct and both frame buffers).
//
// Per round it records what a warp would pay for: the lanes executing, the distinct
// addressing modes and operation cases among them (the parts of Core::step that branch
// on the opcode), the distinct opcodes (what a per-opcode switch, CULE_DEVICE_OPCODE_SWITCH=1,
// runs one after the other), the paths of the partial switch (=2: its distinct copies,
// plus one if some lane takes the table-driven form) and the lanes whose instruction
// calls out of the loop (TIA, RIOT I/O, cart hotspots; Core::next_is_io).  Policies:
//   0 free      every lane executes every round (what cpu_run does now)
//   1 io_wait   CULE_IO_CONVERGE: a lane whose next instruction is I/O waits up to
//               `param` rounds while some lane has a plain one
//   2 min_pc    only the lanes at the lowest PC execute
//   3 min_cyc   only the lanes whose cycle count is within `param` of the lowest execute
//   4 min_pc_w  min_pc, but a lane that waited `param` rounds executes anyway
//   5 cyc_pc    min_cyc, then of those lanes only the ones at their lowest PC
// Built by scripts/simt_model.py (g++, pybind11); not part of the package.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ale_env.hpp"
#include "py_config.hpp"

namespace py = pybind11;
using namespace cule;

namespace {

struct Lane {
  std::unique_ptr<Console> c;
  std::vector<uint8_t> fbs;
  std::unique_ptr<Machine> m;
  std::unique_ptr<Bus> bus;
  std::unique_ptr<cpu6507::Core<Bus>> core;
  int waited = 0;
  bool running = false;
  long instructions = 0;
};

// ale_act_strength's per-frame input handling (frameskip 1, paddle strength 1): the
// sticky-action draws, then the action applied.
void frame_inputs(Machine& m, uint8_t action, const EnvParams& p) {
  float sticky = 1.0f;
  ale_sticky_draws(m.c, action, 1.0f, sticky, p);
  ale_apply_action(m, sticky);
}

// Whether the opcode has its own copy in CULE_DEVICE_OPCODE_SWITCH=2's partial switch.
bool hot_opcode(uint8_t opcode) {
  switch (opcode) {
#define CULE_HOT_CASE(n) case (n):
    CULE_HOT_OPCODES(CULE_HOT_CASE)
#undef CULE_HOT_CASE
      return true;
    default:
      return false;
  }
}

uint32_t case_key(uint8_t opcode) {
  const uint32_t d = cpu6507::decode_entry(opcode);
  return cpu6507::entry_mode(d) == cpu6507::kSpecial ? 256u + opcode : (d & 0x7Fu);
}

py::dict run(const py::dict& cfg, const py::bytes& rom_bytes, int policy, int param, int lanes, int frames,
             int render, uint32_t seed, int noop_max) {
  const GameConfig g = config_from_dict(cfg);
  const std::string rom_s = rom_bytes;
  std::vector<uint8_t> rom(rom_s.begin(), rom_s.end());
  EnvParams p{1, 0.25f, 0, render ? kRenderAll : 0};
  std::mt19937 rng(seed);
  std::vector<Lane> L(lanes), R(lanes);   // R: the reference, run with ale_act
  for (int i = 0; i < lanes; ++i) {
    for (Lane* x : {&L[i], &R[i]}) {
      x->c = std::make_unique<Console>();
      x->fbs.assign(2 * kFrameBufferBytes, 0);
      x->m = std::make_unique<Machine>(Machine{*x->c, g, rom.data(), x->fbs.data()});
      ale_power_on(*x->m, seed + i, 0, 0);
      ale_reset_game(*x->m, p);
    }
    const int noops = noop_max > 0 ? (int)(rng() % (uint32_t)noop_max) : 0;
    for (int k = 0; k < noops; ++k) {
      (void)ale_act(*L[i].m, A_NOOP, p);
      (void)ale_act(*R[i].m, A_NOOP, p);
    }
  }
  long rounds = 0, lane_steps = 0, modes_sum = 0, cases_sum = 0, io_rounds = 0, io_lane_steps = 0, io_cases_sum = 0,
       max_lane_sum = 0, frame_count = 0, opcodes_sum = 0, hot_paths_sum = 0;
  long hist[33] = {0};
  for (int f = 0; f < frames; ++f) {
    std::vector<uint8_t> acts(lanes);
    for (int i = 0; i < lanes; ++i) acts[i] = (uint8_t)(rng() % 18u);
    for (int i = 0; i < lanes; ++i) {
      Lane& x = L[i];
      Console& c = *x.c;
      if (c.game.terminal) {
        ale_reset_game(*x.m, p);
        ale_reset_game(*R[i].m, p);
      }
      (void)ale_act(*R[i].m, acts[i], p);
      c.tia.render = p.render_last ? 1 : 0;
      frame_inputs(*x.m, acts[i], p);
      run_frame_begin(*x.m);
      x.bus = std::make_unique<Bus>(*x.m);
      const CpuState& s = c.cpu;
      x.core.reset(new cpu6507::Core<Bus>{*x.bus, s.pc, s.a, s.x, s.y, s.sp, s.p, s.halted, 25000});
      x.running = !s.halted;
      x.waited = 0;
      x.instructions = 0;
    }
    for (;;) {
      std::vector<int> active;
      for (int i = 0; i < lanes; ++i)
        if (L[i].running) active.push_back(i);
      if (active.empty()) break;
      std::vector<char> io(lanes, 0), go(lanes, 0);
      bool any_plain = false;
      uint32_t min_pc = 0xFFFFFFFFu, min_cyc = 0xFFFFFFFFu;
      for (int i : active) {
        io[i] = L[i].core->next_is_io() ? 1 : 0;
        if (!io[i]) any_plain = true;
        min_pc = std::min<uint32_t>(min_pc, L[i].core->pc);
        min_cyc = std::min<uint32_t>(min_cyc, L[i].bus->cycles);
      }
      uint32_t min_pc_near = 0xFFFFFFFFu;
      for (int i : active)
        if (L[i].bus->cycles <= min_cyc + (uint32_t)param) min_pc_near = std::min<uint32_t>(min_pc_near, L[i].core->pc);
      for (int i : active) {
        Lane& x = L[i];
        bool g_ = true;
        switch (policy) {
          case 1: g_ = !(io[i] && any_plain && x.waited < param); break;
          case 2: g_ = x.core->pc == min_pc; break;
          case 3: g_ = x.bus->cycles <= min_cyc + (uint32_t)param; break;
          case 4: g_ = x.core->pc == min_pc || x.waited >= param; break;
          case 5: g_ = x.bus->cycles <= min_cyc + (uint32_t)param && x.core->pc == min_pc_near; break;
          default: break;
        }
        go[i] = g_;
      }
      std::set<uint32_t> modes, cases, io_cases, opcodes, hot;
      bool cold = false;
      int e = 0, e_io = 0;
      for (int i : active) {
        Lane& x = L[i];
        if (!go[i]) {
          ++x.waited;
          continue;
        }
        x.waited = 0;
        const uint8_t opcode = x.bus->plain_read(x.core->pc) ? x.bus->plain_byte(x.core->pc) : 0xEA;
        modes.insert(cpu6507::entry_mode(cpu6507::decode_entry(opcode)));
        cases.insert(case_key(opcode));
        opcodes.insert(opcode);
        if (hot_opcode(opcode)) hot.insert(opcode);
        else cold = true;
        ++e;
        if (io[i]) {
          ++e_io;
          io_cases.insert(case_key(opcode));
        }
        x.core->step();
        --x.core->budget;
        ++x.instructions;
        if (x.core->budget <= 0 || x.core->halted || x.bus->stopped()) x.running = false;
      }
      ++rounds;
      lane_steps += e;
      modes_sum += (long)modes.size();
      cases_sum += (long)cases.size();
      opcodes_sum += (long)opcodes.size();
      hot_paths_sum += (long)hot.size() + (cold ? 1 : 0);
      hist[e]++;
      if (e_io) {
        ++io_rounds;
        io_lane_steps += e_io;
        io_cases_sum += (long)io_cases.size();
      }
    }
    long mx = 0;
    for (int i = 0; i < lanes; ++i) {
      Lane& x = L[i];
      x.core->save(x.c->cpu);
      x.bus->store();
      x.core.reset();
      x.bus.reset();
      run_frame_end(*x.m);
      game_step(*x.c, g.game_id);
      ale_process_ram(*x.c);
      x.c->frame_number++;
      x.c->episode_frame_number++;
      mx = std::max(mx, x.instructions);
    }
    max_lane_sum += mx;
    ++frame_count;
  }
  int mismatches = 0;
  for (int i = 0; i < lanes; ++i) {
    if (memcmp(L[i].c.get(), R[i].c.get(), sizeof(Console)) != 0 || L[i].fbs != R[i].fbs) ++mismatches;
  }
  py::dict out;
  out["rounds"] = rounds;
  out["lane_steps"] = lane_steps;
  out["ideal_rounds"] = max_lane_sum;   // the slowest lane's instructions, frame by frame
  out["modes_sum"] = modes_sum;
  out["cases_sum"] = cases_sum;
  out["opcodes_sum"] = opcodes_sum;
  out["hot_paths_sum"] = hot_paths_sum;
  out["io_rounds"] = io_rounds;
  out["io_lane_steps"] = io_lane_steps;
  out["io_cases_sum"] = io_cases_sum;
  out["frames"] = frame_count;
  out["mismatches"] = mismatches;
  std::vector<long> h(hist, hist + 33);
  out["executing_hist"] = h;
  return out;
}

}  // namespace

PYBIND11_MODULE(simt_model, m) {
  m.def("run", &run, py::arg("cfg"), py::arg("rom"), py::arg("policy"), py::arg("param"), py::arg("lanes") = 32,
        py::arg("frames") = 100, py::arg("render") = 0, py::arg("seed") = 1, py::arg("noop_max") = 30);
}
