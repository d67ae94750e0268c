// cule: Python bindings of the CUDA backend (module cule._cuda).  Compiled by the host
// compiler; the kernels are in cuda_backend.cu.  Device buffers are passed as raw
// pointers of tensors PyTorch allocated, with PyTorch's current stream.
//
// The same file also builds cule._cuda_emu, the backend compiled for the host
// (cuda_emu.cpp), with CULE_CUDA_MODULE defined as _cuda_emu.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cuda_backend.hpp"
#include "py_config.hpp"

#ifndef CULE_CUDA_EMULATED
#define CULE_CUDA_EMULATED 0
#endif
#ifndef CULE_CUDA_MODULE
#define CULE_CUDA_MODULE _cuda
#endif
// PYBIND11_MODULE pastes its first argument, so expand the macro first.
#define CULE_PYBIND11_MODULE(name, var) PYBIND11_MODULE(name, var)

namespace py = pybind11;
using namespace cule;

CULE_PYBIND11_MODULE(CULE_CUDA_MODULE, m) {
  m.doc() = "cule CUDA backend";
  // module_local: cule._cuda and cule._cuda_emu both bind a C++ class named
  // cule::CudaBatch; without it, importing both in one process fails.
  py::class_<CudaBatch>(m, "CudaBatch", py::module_local())
      .def(py::init([](const py::dict& cfg, const py::bytes& rom, int num_envs, int device) {
             const GameConfig config = config_from_dict(cfg);
             if (config.cpu_high && !CudaBatch::supports_cpu_high())
               throw std::invalid_argument("this CUDA build has no cpu='high' core (built with "
                                           "-DCULE_DEVICE_CPU_HIGH=0): use device='cpu'");
             const std::string rom_bytes(rom);
             // Allocations and copies that may wait for the device: other Python
             // threads (other batches' streams) go on meanwhile.
             py::gil_scoped_release nogil;
             return new CudaBatch(config, rom_bytes, num_envs, device);
           }),
           py::arg("config"), py::arg("rom"), py::arg("num_envs"), py::arg("device"))
      .def_property_readonly("num_envs", &CudaBatch::num_envs)
      .def_property_readonly("device_bytes", &CudaBatch::device_bytes)
      .def("reset_memo_stats", &CudaBatch::reset_memo_stats)
      .def("power_on_memo_stats", &CudaBatch::power_on_memo_stats)
      .def("start_memo_stats", &CudaBatch::start_memo_stats)
      .def_property_readonly_static("console_state_bytes", [](py::object) { return CudaBatch::console_state_bytes(); })
      .def_property_readonly_static("frame_buffer_bytes", [](py::object) { return CudaBatch::frame_buffer_bytes(); })
      .def_property_readonly_static("reset_memo_bytes", [](py::object) { return CudaBatch::reset_memo_bytes(); })
      .def_property_readonly_static("start_memo_bytes", [](py::object) { return CudaBatch::start_memo_bytes(); })
      .def("load", [](CudaBatch& b, py::array_t<uint32_t, py::array::c_style | py::array::forcecast> seeds,
                      py::array_t<uint16_t, py::array::c_style | py::array::forcecast> modes,
                      py::array_t<uint8_t, py::array::c_style | py::array::forcecast> diffs, int frameskip, float p,
                      int32_t max_frames, int32_t max_lives, uintptr_t stream) {
        if (seeds.size() != b.num_envs() || modes.size() != b.num_envs() || diffs.size() != b.num_envs())
          throw std::invalid_argument("load: one seed, mode and difficulty per env");
        py::gil_scoped_release nogil;
        b.load(seeds.data(), modes.data(), diffs.data(), EnvParamsHost{frameskip, p, max_frames, max_lives}, stream);
      })
      .def("set_masked", [](CudaBatch& b, uintptr_t mask, int32_t what, int32_t index, uintptr_t values,
                            uintptr_t stream) {
        if (what < 0 || what > 2 || index < 0 || index > 127) throw std::out_of_range("set: bad field");
        b.set_masked(mask, what, index, values, stream);
      })
      .def("reset_masked", [](CudaBatch& b, uintptr_t mask, int frameskip, float p, int32_t max_frames,
                              int32_t max_lives, uintptr_t stream) {
        b.reset_masked(mask, EnvParamsHost{frameskip, p, max_frames, max_lives}, stream);
      })
      .def("act", [](CudaBatch& b, uintptr_t actions, uintptr_t rewards, uintptr_t bad, int frameskip, float p,
                     int32_t max_frames, int32_t max_lives, uintptr_t stream) {
        b.act(actions, rewards, bad, EnvParamsHost{frameskip, p, max_frames, max_lives}, stream);
      })
      .def_property("render_last", &CudaBatch::render_last, &CudaBatch::set_render_last)
      .def("set_audio", &CudaBatch::set_audio)
      .def("read_ram", &CudaBatch::read_ram)
      .def("read_info", &CudaBatch::read_info)
      .def("screen_rgb", &CudaBatch::screen_rgb)
      .def("screen_grayscale", &CudaBatch::screen_gray)
      .def("export_state", &CudaBatch::export_state, py::arg("ids"), py::arg("count"), py::arg("consoles"),
           py::arg("frame_buffers"), py::arg("stream"))
      .def("import_state", &CudaBatch::import_state, py::arg("ids"), py::arg("count"), py::arg("consoles"),
           py::arg("frame_buffers"), py::arg("stream"));
  py::class_<CudaVecEnv>(m, "CudaVecEnv", py::module_local())
      .def(py::init([](CudaBatch& batch, const std::vector<uint8_t>& action_set, int frameskip, int stack_num,
                       int img_height, int img_width, bool grayscale, bool maxpool, int noop_max, bool use_fire_reset,
                       bool episodic_life, bool life_loss_info, bool reward_clipping, int64_t max_episode_frames,
                       float repeat_action_probability, bool same_step, bool stale_frames, int default_mode,
                       py::array_t<uint32_t, py::array::c_style | py::array::forcecast> noop_seeds) {
             if (noop_seeds.size() != batch.num_envs()) throw std::invalid_argument("one noop seed per env");
             vec::VecOptions o;
             o.frameskip = frameskip; o.stack_num = stack_num; o.img_height = img_height; o.img_width = img_width;
             o.grayscale = grayscale; o.maxpool = maxpool; o.noop_max = noop_max; o.use_fire_reset = use_fire_reset;
             o.episodic_life = episodic_life; o.life_loss_info = life_loss_info; o.reward_clipping = reward_clipping;
             o.max_episode_frames = max_episode_frames; o.repeat_action_probability = repeat_action_probability;
             o.same_step = same_step; o.stale_frames = stale_frames; o.default_mode = (uint16_t)default_mode;
             o.render_observed_only = true;
             return new CudaVecEnv(batch, o, action_set, noop_seeds.data());
           }),
           py::keep_alive<1, 2>(), py::arg("batch"), py::arg("action_set"), py::arg("frameskip"),
           py::arg("stack_num"), py::arg("img_height"), py::arg("img_width"), py::arg("grayscale"), py::arg("maxpool"),
           py::arg("noop_max"), py::arg("use_fire_reset"), py::arg("episodic_life"), py::arg("life_loss_info"),
           py::arg("reward_clipping"), py::arg("max_episode_frames"), py::arg("repeat_action_probability"),
           py::arg("same_step"), py::arg("stale_frames"), py::arg("default_mode"), py::arg("noop_seeds"))
      .def_property_readonly("num_envs", &CudaVecEnv::num_envs)
      .def_property_readonly("device_bytes", &CudaVecEnv::device_bytes)
      .def_property_readonly("stacked_obs_size", &CudaVecEnv::stacked_obs_size)
      .def("seed_noops", [](CudaVecEnv& v, py::array_t<uint32_t, py::array::c_style | py::array::forcecast> seeds,
                            uintptr_t stream) {
        if (seeds.size() != v.num_envs()) throw std::invalid_argument("one noop seed per env");
        v.seed_noops(seeds.data(), stream);
      })
      // outputs: (obs, reward, terminated, truncated, env_id, lives, frame_number,
      // episode_frame_number) device pointers.
      // leader: an env that is reset, run first (see CudaVecEnv::reset in cuda_backend.hpp), or -1.
      .def("reset", [](CudaVecEnv& v, uintptr_t seeds, const std::vector<uintptr_t>& outs, uintptr_t stream,
                       int leader) {
        if (outs.size() != 8) throw std::invalid_argument("reset: 8 output pointers");
        v.reset(seeds, CudaVecOutputs{outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6], outs[7]},
                leader, stream);
      }, py::arg("seeds"), py::arg("outs"), py::arg("stream"), py::arg("leader") = -1)
      // ids / count: the envs to step (device int64 [count]), or 0 / -1 for every env.
      .def("step", [](CudaVecEnv& v, uintptr_t actions, uintptr_t strengths, uintptr_t bad,
                      const std::vector<uintptr_t>& outs, uintptr_t final_obs, uintptr_t stream, uintptr_t ids,
                      int count) {
        if (outs.size() != 8) throw std::invalid_argument("step: 8 output pointers");
        v.step(actions, strengths, bad,
               CudaVecOutputs{outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6], outs[7]}, final_obs,
               stream, ids, ids ? count : v.num_envs());
      }, py::arg("actions"), py::arg("strengths"), py::arg("bad"), py::arg("outs"), py::arg("final_obs"),
         py::arg("stream"), py::arg("ids") = 0, py::arg("count") = -1)
      .def("state_parts", &CudaVecEnv::state_parts)
      .def("state_part_bytes", &CudaVecEnv::state_part_bytes)
      .def("copy_state", &CudaVecEnv::copy_state, py::arg("part"), py::arg("ptr"), py::arg("to_device"),
           py::arg("stream"));
  m.attr("emulated") = py::bool_(CULE_CUDA_EMULATED);
}
