// cule: Python bindings of the preprocessed vector environment (module cule._vector).
// The VecEnv steps the consoles of a cule._core.CpuBatch (shared with cule.Atari), so
// the batch is passed in and kept alive.  Buffers are NumPy arrays the Python side
// allocates; the GIL is released while the consoles run.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "vector_env.hpp"
#include "py_config.hpp"

namespace py = pybind11;
using namespace cule;
using namespace cule::vec;

namespace {

template <class T>
T* out_array(py::array& a, const char* what, size_t count) { return writable<T>(a, what, count); }

template <class T>
const T* in_array(const py::array& a, const char* what, size_t count) { return readable<T>(a, what, count); }

VecOutputs outputs(VecEnv& v, py::array& obs, py::array& reward, py::array& term, py::array& trunc,
                   py::array& env_id, py::array& lives, py::array& fn, py::array& efn) {
  const size_t n = (size_t)v.num_envs();
  VecOutputs o{};
  o.obs = out_array<uint8_t>(obs, "obs", n * v.stacked_obs_size());
  o.reward = out_array<int32_t>(reward, "reward", n);
  o.terminated = out_array<uint8_t>(term, "terminated", n);
  o.truncated = out_array<uint8_t>(trunc, "truncated", n);
  o.env_id = out_array<int32_t>(env_id, "env_id", n);
  o.lives = out_array<int32_t>(lives, "lives", n);
  o.frame_number = out_array<int32_t>(fn, "frame_number", n);
  o.episode_frame_number = out_array<int32_t>(efn, "episode_frame_number", n);
  o.final_obs = nullptr;
  return o;
}

py::array byte_view(uint8_t* data, size_t rows, size_t cols, py::handle owner) {
  return py::array(py::dtype::of<uint8_t>(), {rows, cols}, {cols, (size_t)1}, data, owner);
}

}  // namespace

PYBIND11_MODULE(_vector, m) {
  m.doc() = "cule native vector environment: ALE-py AtariVectorEnv preprocessing over a CpuBatch";
  py::module_::import("cule._core");   // registers CpuBatch

  py::class_<VecEnv>(m, "VecEnv")
      .def(py::init([](CpuBatch& batch, const std::vector<uint8_t>& action_set, int num_threads, int frameskip,
                       int stack_num, int img_height, int img_width, bool grayscale, bool maxpool, int noop_max,
                       bool use_fire_reset, bool episodic_life, bool life_loss_info, bool reward_clipping,
                       int64_t max_episode_frames, float repeat_action_probability, bool same_step,
                       bool stale_frames, int default_mode) {
             VecOptions o;
             o.frameskip = frameskip; o.stack_num = stack_num; o.img_height = img_height; o.img_width = img_width;
             o.grayscale = grayscale; o.maxpool = maxpool; o.noop_max = noop_max; o.use_fire_reset = use_fire_reset;
             o.episodic_life = episodic_life; o.life_loss_info = life_loss_info; o.reward_clipping = reward_clipping;
             o.max_episode_frames = max_episode_frames; o.repeat_action_probability = repeat_action_probability;
             o.same_step = same_step; o.stale_frames = stale_frames; o.default_mode = (uint16_t)default_mode;
             return new VecEnv(batch, o, action_set, num_threads);
           }),
           py::keep_alive<1, 2>(), py::arg("batch"), py::arg("action_set"), py::arg("num_threads"),
           py::arg("frameskip"), py::arg("stack_num"), py::arg("img_height"), py::arg("img_width"),
           py::arg("grayscale"), py::arg("maxpool"), py::arg("noop_max"), py::arg("use_fire_reset"),
           py::arg("episodic_life"), py::arg("life_loss_info"), py::arg("reward_clipping"),
           py::arg("max_episode_frames"), py::arg("repeat_action_probability"), py::arg("same_step"),
           py::arg("stale_frames"), py::arg("default_mode"))
      .def_property_readonly("num_envs", &VecEnv::num_envs)
      .def_property_readonly("num_threads", &VecEnv::num_threads)
      .def_property("render_observed_only", &VecEnv::render_observed_only, &VecEnv::set_render_observed_only)
      .def_property_readonly("stacked_obs_size", &VecEnv::stacked_obs_size)
      .def("seed_noops", [](VecEnv& v, const py::array& seeds) {
        const uint32_t* s = in_array<uint32_t>(seeds, "seeds", (size_t)v.num_envs());
        for (int i = 0; i < v.num_envs(); ++i) v.seed_noops(i, s[i]);
      })
      .def("reset", [](VecEnv& v, const py::array& ids, const py::array& seeds, py::array& obs, py::array& reward,
                       py::array& term, py::array& trunc, py::array& env_id, py::array& lives, py::array& fn,
                       py::array& efn) {
        const int count = (int)ids.size();
        const int64_t* pi = in_array<int64_t>(ids, "env_ids", (size_t)count);
        const int64_t* ps = in_array<int64_t>(seeds, "seeds", (size_t)count);
        std::vector<char> seen(v.num_envs(), 0);
        for (int k = 0; k < count; ++k) {
          if (pi[k] < 0 || pi[k] >= v.num_envs()) throw std::out_of_range("reset env id out of range");
          if (seen[pi[k]]) throw std::invalid_argument("reset has a duplicate env id");
          seen[pi[k]] = 1;
          if (ps[k] < -1 || ps[k] > 0xFFFFFFFFll) throw std::invalid_argument("seed out of range");
        }
        VecOutputs o = outputs(v, obs, reward, term, trunc, env_id, lives, fn, efn);
        py::gil_scoped_release nogil;
        v.reset(pi, ps, count, o);
      })
      .def("step", [](VecEnv& v, const py::array& ids, const py::array& actions, py::array& obs, py::array& reward,
                      py::array& term, py::array& trunc, py::array& env_id, py::array& lives, py::array& fn,
                      py::array& efn, py::object final_obs, py::object strengths) {
        const int count = (int)ids.size();
        const int64_t* pi = in_array<int64_t>(ids, "env_ids", (size_t)count);
        const int64_t* a = in_array<int64_t>(actions, "actions", (size_t)count);
        std::vector<char> seen(v.num_envs(), 0);
        for (int k = 0; k < count; ++k) {
          if (pi[k] < 0 || pi[k] >= v.num_envs()) throw std::out_of_range("step env id out of range");
          if (seen[pi[k]]) throw std::invalid_argument("step has a duplicate env id");
          seen[pi[k]] = 1;
          if (a[k] < 0 || a[k] >= (int64_t)v.num_actions()) throw std::out_of_range("action out of range");
        }
        const float* st = nullptr;
        py::array st_arr;
        if (!strengths.is_none()) {
          st_arr = strengths.cast<py::array>();
          st = in_array<float>(st_arr, "paddle_strengths", (size_t)count);
        }
        VecOutputs o = outputs(v, obs, reward, term, trunc, env_id, lives, fn, efn);
        if (!final_obs.is_none()) {
          py::array fo = final_obs.cast<py::array>();
          o.final_obs = out_array<uint8_t>(fo, "final_obs", (size_t)v.num_envs() * v.stacked_obs_size());
        }
        py::gil_scoped_release nogil;
        v.step(pi, count, a, st, o);
      })
      .def("episode_over", [](VecEnv& v) {
        py::array_t<bool> out(v.num_envs());
        auto r = out.mutable_unchecked<1>();
        for (int i = 0; i < v.num_envs(); ++i) r(i) = v.episode_over(i);
        return out;
      })
      // Raw views of the preprocessing state (per env rows), for save/restore.
      .def("state_views", [](py::object self) {
        VecEnv& v = self.cast<VecEnv&>();
        const size_t n = (size_t)v.num_envs();
        py::dict d;
        d["slots"] = byte_view(v.slots_data(), n, v.slot_bytes(), self);
        d["raw"] = byte_view(v.raw_data(), n, 2 * v.raw_size(), self);
        d["stack"] = byte_view(v.stack_data(), n, v.stack_bytes_per_env(), self);
        if (v.hist_bytes_per_env()) d["hist"] = byte_view(v.hist_data(), n, v.hist_bytes_per_env(), self);
        return d;
      });

  m.def("act_with_strength", [](CpuBatch& b, const py::array& actions, const py::array& strengths,
                                py::array& sticky, py::array& rewards, int frameskip, float p, int32_t max_frames,
                                int32_t max_lives) {
        // ALE act(action, paddle_strength) on every console of the batch (serially), for
        // cule.AtariEnv's continuous actions.  sticky: ALE's m_paddle_a_strength per env.
        const size_t n = (size_t)b.num_envs();
        const uint8_t* a = in_array<uint8_t>(actions, "actions", n);
        const float* s = in_array<float>(strengths, "strengths", n);
        float* st = out_array<float>(sticky, "sticky", n);
        int32_t* r = out_array<int32_t>(rewards, "rewards", n);
        for (size_t i = 0; i < n; ++i) if (a[i] >= A_NUM_ACTIONS) throw std::out_of_range("action id out of range");
        const EnvParams prm = ale_params(frameskip, p, max_frames, max_lives);
        py::gil_scoped_release nogil;
        for (size_t i = 0; i < n; ++i) {
          Machine m = b.machine((int)i);
          r[i] = ale_act_strength(m, a[i], s[i], st[i], prm, true);
          ale_act_audio(m);
        }
      });
  m.attr("initial_paddle_strength") = kInitialStrength;

  m.def("resize_area", [](const py::array& src, int sh, int sw, int cn, int dh, int dw, bool reference) {
        const uint8_t* s = in_array<uint8_t>(src, "src", (size_t)sh * sw * cn);
        AreaResizer r(sh, sw, dh, dw, cn);
        py::array_t<uint8_t> out(std::vector<py::ssize_t>{dh, dw, cn});
        std::vector<float> scratch(std::max<size_t>(r.scratch_floats(), 1));
        r.run(s, out.mutable_data(), scratch.data(), reference);
        return out;
      },
      py::arg("src"), py::arg("src_height"), py::arg("src_width"), py::arg("channels"), py::arg("dst_height"),
      py::arg("dst_width"), py::arg("reference") = false,
      "OpenCV INTER_AREA downscaling of an 8-bit image, bit-exact (for tests).  reference=True takes the "
      "portable one-row path where a SIMD one exists.");
}
