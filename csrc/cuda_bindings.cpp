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
             return new CudaBatch(config_from_dict(cfg), std::string(rom), num_envs, device);
           }),
           py::arg("config"), py::arg("rom"), py::arg("num_envs"), py::arg("device"))
      .def_property_readonly("num_envs", &CudaBatch::num_envs)
      .def_property_readonly("device_bytes", &CudaBatch::device_bytes)
      .def_property_readonly_static("console_state_bytes", [](py::object) { return CudaBatch::console_state_bytes(); })
      .def_property_readonly_static("frame_buffer_bytes", [](py::object) { return CudaBatch::frame_buffer_bytes(); })
      .def("load", [](CudaBatch& b, py::array_t<uint32_t, py::array::c_style | py::array::forcecast> seeds,
                      py::array_t<uint16_t, py::array::c_style | py::array::forcecast> modes,
                      py::array_t<uint8_t, py::array::c_style | py::array::forcecast> diffs, int frameskip, float p,
                      int32_t max_frames, uintptr_t stream) {
        if (seeds.size() != b.num_envs() || modes.size() != b.num_envs() || diffs.size() != b.num_envs())
          throw std::invalid_argument("load: one seed, mode and difficulty per env");
        py::gil_scoped_release nogil;
        b.load(seeds.data(), modes.data(), diffs.data(), EnvParamsHost{frameskip, p, max_frames}, stream);
      })
      .def("set_mode", &CudaBatch::set_mode)
      .def("reset_masked", [](CudaBatch& b, uintptr_t mask, int frameskip, float p, int32_t max_frames,
                              uintptr_t stream) {
        b.reset_masked(mask, EnvParamsHost{frameskip, p, max_frames}, stream);
      })
      .def("act", [](CudaBatch& b, uintptr_t actions, uintptr_t rewards, uintptr_t bad, int frameskip, float p, int32_t max_frames,
                     uintptr_t stream) { b.act(actions, rewards, bad, EnvParamsHost{frameskip, p, max_frames}, stream); })
      .def_property("render_last", &CudaBatch::render_last, &CudaBatch::set_render_last)
      .def("read_ram", &CudaBatch::read_ram)
      .def("read_info", &CudaBatch::read_info)
      .def("screen_rgb", &CudaBatch::screen_rgb)
      .def("screen_grayscale", &CudaBatch::screen_gray)
      .def("export_state", &CudaBatch::export_state, py::arg("ids"), py::arg("count"), py::arg("consoles"),
           py::arg("frame_buffers"), py::arg("stream"))
      .def("import_state", &CudaBatch::import_state, py::arg("ids"), py::arg("count"), py::arg("consoles"),
           py::arg("frame_buffers"), py::arg("stream"));
  m.attr("emulated") = py::bool_(CULE_CUDA_EMULATED);
}
