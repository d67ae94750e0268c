// cule: the CUDA vector environment (cule.AtariVectorEnv on a GPU): ale-py's
// AtariVectorEnv step, preprocessing included, on the consoles of a CudaBatch.
// Included at the end of cuda_backend.cu (it uses that file's layout helpers), so it is
// compiled by nvcc into cule._cuda and by the host compiler into cule._cuda_emu.
//
// The per-env logic is vector_core.hpp's, the same functions the CPU VecEnv calls:
//   k_vec_step / k_vec_reset: one thread per env runs the frames (console loaded and
//     stored in the warp-interleaved layout, like k_act) and notes, for each of the env's
//     two pooled screens, where its pixels are (VecDev::pend): a screen left alone in a
//     frame buffer, or (stale_frame_on_early_stop off) copied into one of the env's
//     history slots, is converted later, by k_vec_pool.  A screen whose buffer the next
//     frame goes on drawing into (a frame stopped by the instruction limit) is
//     converted by the thread itself, or with stale_frame_on_early_stop off copied into
//     a history slot; with it off, the other screens stay in their frame buffers;
//   k_vec_pool: one block per env, its threads striding through the screens a 4-byte
//     word each: the noted screens converted from the frame buffers or history slots
//     (palette -> gray / RGB through the LUT), coalesced, then screen 0 := max(screen
//     0, screen 1), in place as on the CPU (a step that stops early pools that result
//     again);
//   k_vec_process: one block per env that has new screens, a thread per INTER_AREA
//     element (vc_area_element) of screen 0 in turn, written into the env's frame-stack
//     ring (a reset zeroes the other slots);
//   k_vec_obs: one block per env: the stacked observations, oldest first, from the ring.
// SAME_STEP runs step, process, final_obs, reset of the envs whose episode ended,
// process, obs.  Nothing is copied to the host.

namespace cule {

// The vector env's device buffers, passed to every kernel by value.
struct VecDev {
  vec::VecOptions o;
  int n;
  int fire_reset;
  int cn;
  int raw_px;          // screen pixels (height x 160)
  int raw_size;        // a converted screen's bytes (raw_px x cn)
  int obs_size;        // one stacked frame's bytes
  vec::EnvSlot* slots;
  uint8_t* raw;        // n x 2 x raw_size gray / RGB screens (the pooled pair)
  uint8_t* hist;       // n x 2 x raw_px palette indices (stale_frames off) or null
  uint8_t* stack;      // n x stack_num x obs_size
  int32_t* write_slot; // per env: the ring slot the new screens go to, -1: none
  uint8_t* clear;      // per env: a reset, zero the other slots
  uint8_t* pend;       // per env and pooled screen k (n x 2): kPendNone, kPendZero,
                       // kPendBuffer + b: convert frame buffer b into it, or kPendHist + h:
                       // convert history slot h into it (k_vec_pool)
  const uint8_t* action_set;
  int num_actions;
  const uint8_t* lut;  // 256 x (r, g, b, gray)
  vec::AreaPlan plan;  // pointers into device memory
  // The envs a step runs on (set per call by CudaVecEnv::step): thread or block t of the
  // step's kernels works on env ids[t], t < count; ids null: env t, count n.  (Asynchronous
  // mode steps batch_size envs, as the CPU VecEnv::step's ids.)
  const int64_t* ids;
  int count;
};

namespace {

// VecDev::pend values.
constexpr uint8_t kPendNone = 0;     // the pooled screen is up to date
constexpr uint8_t kPendZero = 1;     // it becomes all zeros
constexpr uint8_t kPendBuffer = 2;   // + b: it becomes frame buffer b, converted
constexpr uint8_t kPendHist = 4;     // + h: it becomes history slot h, converted

// The env that thread or block t of a step's kernels works on (VecDev::ids), or -1
// past the step's envs.
CULE_HD int vec_env(const VecDev& d, long long t) {
  if (t >= d.count) return -1;
  return d.ids ? (int)d.ids[t] : (int)t;
}

CULE_HD size_t vec_word_index(int env, int w) {
  return (size_t)(env >> 5) * (size_t)kWords * 32u + (size_t)w * 32u + (size_t)(env & 31);
}

// Byte j of a converted screen (gray, or RGB interleaved) from its palette indices `pal`,
// through the LUT (4 bytes a palette index: red, green, blue, gray).
CULE_HD uint8_t vec_screen_byte(const VecDev& d, const uint8_t* pal, int j) {
  return d.cn == 1 ? d.lut[pal[j] * 4 + 3] : d.lut[pal[j / 3] * 4 + j % 3];
}

// vector_core.hpp's screen callbacks for one env: screens are copied as palette indices.
struct GpuOps {
  const DeviceBatch* b;
  const VecDev* d;
  int env;
  Console* c;

  CULE_HD const uint8_t* screen() const {
    return b->fbs + (size_t)env * 2 * kFrameBufferBytes + (c->tia.cur_buf ? kFrameBufferBytes : 0);
  }
  CULE_HD uint8_t* raw(int k) const { return d->raw + ((size_t)env * 2 + k) * d->raw_size; }
  CULE_HD uint8_t* hist(int k) const { return d->hist + ((size_t)env * 2 + k) * d->raw_px; }
  // Palette indices -> gray / RGB, as the CPU VecEnv's convert.
  CULE_HD void convert(const uint8_t* pal, uint8_t* dst) const {
    for (int j = 0; j < d->raw_size; ++j) dst[j] = vec_screen_byte(*d, pal, j);
  }

  CULE_HD uint8_t& pend(int k) const { return d->pend[(size_t)env * 2 + k]; }
  // The screen stays in its frame buffer until the step ends unless the frame is
  // unfinished (stopped by the instruction limit): the next frame then goes on drawing
  // into the same buffer, so that screen is converted now.  A one-thread-per-env
  // conversion touches each env's own buffers, 32 lines per warp access; k_vec_pool
  // converts with a block of threads per env instead, coalesced.
  CULE_HD void capture(int k) {
    if (c->tia.partial_frame) {
      convert(screen(), raw(k));
      pend(k) = kPendNone;
    } else {
      pend(k) = (uint8_t)(kPendBuffer + (c->tia.cur_buf ? 1 : 0));
    }
  }
  CULE_HD void zero(int k) { pend(k) = kPendZero; }
  CULE_HD void hist_store(int k) {
    const uint32_t* src = (const uint32_t*)screen();
    uint32_t* dst = (uint32_t*)hist(k);
    for (int w = 0; w < d->raw_px / 4; ++w) dst[w] = src[w];
  }
  // The history slot is converted by k_vec_pool (a block per env, coalesced), which
  // runs before anything writes the slot again: a step writes its history only before
  // its hist_to_raw calls (a redo calls them again), and pend is cleared by
  // k_vec_process.
  CULE_HD void hist_to_raw(int h, int k) { pend(k) = (uint8_t)(kPendHist + h); }
  // Frame buffer b is converted by k_vec_pool too: nothing draws into it before that.
  CULE_HD void buffer_to_raw(int b, int k) { pend(k) = (uint8_t)(kPendBuffer + b); }
  // Global memory still holds the console as it was before the step.
  CULE_HD void save() {}
  CULE_HD void restore() {
    uint32_t* words = (uint32_t*)c;
    for (int w = 0; w < kWords; ++w) words[w] = b->states[vec_word_index(env, w)];
  }
};

// After vc_reset_env / vc_step_env: the new screens go to the ring's next slot.
__device__ __forceinline__ void vec_queue_screens(const VecDev& d, int env, bool reset) {
  vec::EnvSlot& s = d.slots[env];
  d.write_slot[env] = s.stack_idx;
  d.clear[env] = reset ? 1 : 0;
  s.stack_idx = (s.stack_idx + 1) % d.o.stack_num;
}

// Out of line: the reset path (reset_game, its memo, the noop-start walk) is rare in a
// step, and inlined into k_vec_step it made the step path spill more (ptxas, sm_90:
// 304 / 716 bytes of spill stores / loads inlined, 80 / 284 out of line).
#if defined(__CUDACC__)
#define CULE_RESET_NOINLINE __device__ __noinline__
#else
#define CULE_RESET_NOINLINE inline __attribute__((noinline))
#endif

CULE_RESET_NOINLINE void vec_reset_one(const DeviceBatch& b, const GameConfig& g, const VecDev& d, int env,
                                              ConsoleStorage& cs, int64_t seed) {
  Machine m = machine(b, cs.c, g, env);
  GpuOps ops{&b, &d, env, &cs.c};
  vc_reset_env(m, d.slots[env], d.o, d.fire_reset != 0, seed, ops);
  vec_queue_screens(d, env, true);
}

__global__ void k_vec_init(VecDev d, const uint32_t* seeds) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= d.n) return;
  vec::EnvSlot& s = d.slots[env];
  uint8_t* bytes = (uint8_t*)&s;
  for (size_t i = 0; i < sizeof(vec::EnvSlot); ++i) bytes[i] = 0;
  s.elapsed_frames = d.o.max_episode_frames > 0 ? d.o.max_episode_frames + 1 : 0;
  s.sticky_strength = vec::kInitialStrength;
  mt_seed(s.noop_rng, seeds[env]);
  d.write_slot[env] = -1;
  d.clear[env] = 0;
  d.pend[(size_t)env * 2] = d.pend[(size_t)env * 2 + 1] = kPendNone;
  const size_t stack_bytes = (size_t)d.o.stack_num * d.obs_size;
  for (size_t i = 0; i < stack_bytes; ++i) d.stack[(size_t)env * stack_bytes + i] = 0;
  for (size_t i = 0; i < 2 * (size_t)d.raw_size; ++i) d.raw[(size_t)env * 2 * d.raw_size + i] = 0;
  if (d.hist)
    for (size_t i = 0; i < 2 * (size_t)d.raw_px; ++i) d.hist[(size_t)env * 2 * d.raw_px + i] = 0;
}

__global__ void k_vec_seed_noops(VecDev d, const uint32_t* seeds) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= d.n) return;
  mt_seed(d.slots[env].noop_rng, seeds[env]);
}

// seeds[env]: -2 not reset, -1 reset keeping the RNGs, >= 0 reseed.  Every row of `out`
// is written.  only / skip: see led_env (the leader, CudaVecEnv::reset).
__global__ void k_vec_reset(DeviceBatch b, GameConfig g, VecDev d, const int64_t* seeds, vec::VecOutputs out,
                            int only, int skip) {
  const int env = led_env(only, skip, d.n);
  if (env < 0) return;
  ConsoleStorage cs;
  load_console(b.states, env, cs);
  const int64_t seed = seeds[env];
  if (seed != -2) {
    vec_reset_one(b, g, d, env, cs, seed);
    store_console(b.states, env, cs);
  } else {
    d.write_slot[env] = -1;
  }
  vc_write_scalars(d.slots[env], cs.c, d.o, env, out);
}

// Sets *bad (zeroed before) when an action index is outside the action set.
__global__ void k_vec_check(int n, const int64_t* actions, int num_actions, int32_t* bad) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= n) return;
  const int64_t a = actions[env];
  if (a < 0 || a >= num_actions) *bad = 1;
}

// One agent step of the call's envs (thread t: env vec_env(d, t), with action_idx[t] and
// strengths[t]).  same_step 0 (NEXT_STEP): an env whose episode is over is reset
// instead.  same_step 1: every env steps (k_vec_reset_done resets after final_obs).
// With a bad action index nothing changes.
__global__ void CULE_STEP_BOUNDS k_vec_step(DeviceBatch b, GameConfig g, VecDev d, const int64_t* action_idx, const float* strengths,
                           const int32_t* bad, int same_step, vec::VecOutputs out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int env = vec_env(d, t);
  if (env < 0) return;
  ConsoleStorage cs;
  load_console(b.states, env, cs);
  vec::EnvSlot& s = d.slots[env];
  if (*bad) {
    d.write_slot[env] = -1;
  } else if (!same_step && vc_episode_over(s, d.o)) {
    vec_reset_one(b, g, d, env, cs, -1);
    store_console(b.states, env, cs);
  } else {
    Machine m = machine(b, cs.c, g, env);
    GpuOps ops{&b, &d, env, &cs.c};
    const uint8_t a = d.action_set[action_idx[t]];
    vc_step_env(m, s, d.o, a, strengths ? strengths[t] : 1.0f, ops);
    vec_queue_screens(d, env, false);
    store_console(b.states, env, cs);
  }
  vc_write_scalars(s, cs.c, d.o, env, out);
}

// SAME_STEP, after the final observations: resets the envs whose episode ended and
// reports their new lives and frame counters (reward and flags stay the step's).
__global__ void k_vec_reset_done(DeviceBatch b, GameConfig g, VecDev d, const int32_t* bad, vec::VecOutputs out) {
  const int env = vec_env(d, blockIdx.x * blockDim.x + threadIdx.x);
  if (env < 0) return;
  if (*bad || !vc_episode_over(d.slots[env], d.o)) {
    d.write_slot[env] = -1;
    return;
  }
  ConsoleStorage cs;
  load_console(b.states, env, cs);
  vec_reset_one(b, g, d, env, cs, -1);
  store_console(b.states, env, cs);
  const vec::EnvSlot& s = d.slots[env];
  out.lives[env] = s.lives;
  out.frame_number[env] = cs.c.frame_number;
  out.episode_frame_number[env] = cs.c.episode_frame_number;
}

// The three kernels after a step (k_vec_pool, k_vec_process, k_vec_obs) run one block per
// env of the call (block t: env vec_env(d, t)): its threads stride through the env's bytes (or 4-byte words) together, so a
// warp's accesses are consecutive and every index is a 32-bit offset into one env's
// buffers.  (One thread per byte of the whole batch needed a 64-bit division per byte
// to find its env; at 65,536 envs that was 2.2G threads for the pooled screens alone.)

// Per-byte maximum of two words of 4 bytes.
CULE_HD uint32_t vec_max4(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vmaxu4(a, b);
#else
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) {
    const uint32_t x = byte_of(a, k), y = byte_of(b, k);
    r |= (x > y ? x : y) << (8 * k);
  }
  return r;
#endif
}

// Word w (bytes 4w..4w+3) of the pooled screen whose VecDev::pend value is p: the word
// it holds now (kPendNone), zeros, or converted from the palette indices at `pal` (a
// frame buffer or history slot).
CULE_HD uint32_t vec_pend_word(const VecDev& d, uint8_t p, const uint8_t* pal, uint32_t now, int w) {
  if (p == kPendNone) return now;
  if (p == kPendZero) return 0;
  const int j = 4 * w;
  if (d.cn == 1) {
    // 4-aligned: every screen size is a multiple of 160 bytes.
    return lut_gray4(d.lut, *(const uint32_t*)(pal + j));
  }
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= (uint32_t)vec_screen_byte(d, pal, j + k) << (8 * k);
  return r;
}

// Block `env`: the pooled screens noted in VecDev::pend are written (converted from a
// frame buffer or a history slot, or zeros), then, for an env with new screens, screen
// 0 := max(screen 0, screen 1) in place as the CPU VecEnv does (a later step that
// captures nothing pools this result again).  A word a thread: raw_size is a multiple
// of 160.  pend is cleared by k_vec_process.
__global__ void k_vec_pool(DeviceBatch b, VecDev d) {
  const int env = vec_env(d, blockIdx.x);
  if (env < 0) return;
  const uint8_t p0 = d.pend[(size_t)env * 2], p1 = d.pend[(size_t)env * 2 + 1];
  const bool pool = d.o.maxpool && d.write_slot[env] >= 0;
  if (!pool && p0 == kPendNone && p1 == kPendNone) return;
  uint32_t* r0 = (uint32_t*)(d.raw + (size_t)env * 2 * d.raw_size);
  uint32_t* r1 = r0 + d.raw_size / 4;
  const uint8_t* fb = b.fbs + (size_t)env * 2 * kFrameBufferBytes;
  auto source = [&](uint8_t p) -> const uint8_t* {
    if (p >= kPendHist) return d.hist + ((size_t)env * 2 + (p - kPendHist)) * d.raw_px;
    if (p >= kPendBuffer) return fb + (p - kPendBuffer) * kFrameBufferBytes;
    return nullptr;
  };
  const uint8_t* s0 = source(p0);
  const uint8_t* s1 = source(p1);
  const int words = d.raw_size / 4;
  for (int w = threadIdx.x; w < words; w += blockDim.x) {
    const uint32_t v1 = vec_pend_word(d, p1, s1, p1 == kPendNone ? r1[w] : 0u, w);
    uint32_t v0 = vec_pend_word(d, p0, s0, p0 == kPendNone ? r0[w] : 0u, w);
    if (p1 != kPendNone) r1[w] = v1;
    if (pool) v0 = vec_max4(v0, v1);
    if (pool || p0 != kPendNone) r0[w] = v0;
  }
}

// Block `env`: pend cleared, then, if the env has new screens, each thread computes
// INTER_AREA elements of screen 0 into the ring slot (a reset zeroes the element in
// the other slots).
__global__ void k_vec_process(VecDev d) {
  const int env = vec_env(d, blockIdx.x);
  if (env < 0) return;
  if (threadIdx.x == 0) {
    // k_vec_pool (earlier on this stream) has written the noted screens.
    d.pend[(size_t)env * 2] = kPendNone;
    d.pend[(size_t)env * 2 + 1] = kPendNone;
  }
  const int ws = d.write_slot[env];
  if (ws < 0) return;
  const int width = d.plan.dw * d.cn;
  const uint8_t* r0 = d.raw + (size_t)env * 2 * d.raw_size;
  auto src = [&](int j) -> uint8_t { return r0[j]; };
  uint8_t* st = d.stack + (size_t)env * d.o.stack_num * d.obs_size;
  const bool clear = d.clear[env] != 0;
  for (int e = threadIdx.x; e < d.obs_size; e += blockDim.x) {
    const uint8_t v = vc_area_element(d.plan, e / width, e % width, src);
    st[(size_t)ws * d.obs_size + e] = v;
    if (clear)
      for (int k = 0; k < d.o.stack_num; ++k)
        if (k != ws) st[(size_t)k * d.obs_size + e] = 0;
  }
}

// Block-wide copy of one env's stack ring (S slots of n elements of T at `st`, the
// oldest at slot `first`) into `row`, oldest first; zeros instead when `zero`.
template <class T>
__device__ void vec_copy_stack(T* row, const T* st, int S, int n, int first, bool zero) {
  for (int k = 0; k < S; ++k) {
    T* out = row + (size_t)k * n;
    const T* in = st + (size_t)((first + k) % S) * n;
    for (int e = threadIdx.x; e < n; e += blockDim.x) out[e] = zero ? T(0) : in[e];
  }
}

// Block `env`: its stacked observation, oldest first, into row env of dst.  final_only:
// the row is the observation if the env's step terminated or truncated, else zeros
// (SAME_STEP final_obs).  words: obs_size and both buffers' addresses are multiples of
// 4, so whole words are copied.
__global__ void k_vec_obs(VecDev d, uint8_t* dst, const uint8_t* term, const uint8_t* trunc, int final_only,
                          int words) {
  const int env = vec_env(d, blockIdx.x);
  if (env < 0) return;
  const int S = d.o.stack_num;
  const size_t per_env = (size_t)S * d.obs_size;
  uint8_t* row = dst + (size_t)env * per_env;
  const uint8_t* st = d.stack + (size_t)env * per_env;
  const bool zero = final_only && !term[env] && !trunc[env];
  const int first = d.slots[env].stack_idx;
  if (words)
    vec_copy_stack((uint32_t*)row, (const uint32_t*)st, S, d.obs_size / 4, first, zero);
  else
    vec_copy_stack(row, st, S, d.obs_size, first, zero);
}

template <class T>
T* device_copy(const std::vector<T>& v, const char* what) {
  T* p = nullptr;
  check(cudaMalloc(&p, (v.empty() ? 1 : v.size()) * sizeof(T)), what);
  if (!v.empty()) check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  return p;
}

}  // namespace

struct CudaVecEnv::Impl {
  CudaBatch::Impl* batch = nullptr;
  VecDev d{};
  std::vector<void*> allocations;
  size_t bytes = 0;
  vec::AreaResizer resizer;

  ~Impl() {
    if (allocations.empty()) return;
    int previous = -1;
    if (cudaGetDevice(&previous) == cudaSuccess && previous != batch->device) cudaSetDevice(batch->device);
    else previous = -1;
    for (void* p : allocations) cudaFree(p);
    if (previous >= 0) cudaSetDevice(previous);
  }

  template <class T>
  T* alloc(size_t count, const char* what) {
    T* p = nullptr;
    check(cudaMalloc(&p, (count ? count : 1) * sizeof(T)), what);
    allocations.push_back(p);
    bytes += count * sizeof(T);
    return p;
  }
  template <class T>
  T* upload(const std::vector<T>& v, const char* what) {
    T* p = device_copy(v, what);
    allocations.push_back(p);
    bytes += v.size() * sizeof(T);
    return p;
  }
};

CudaVecEnv::CudaVecEnv(CudaBatch& batch, const vec::VecOptions& o, const std::vector<uint8_t>& action_set,
                       const uint32_t* noop_seeds)
    : impl_(new Impl) {
  if (o.frameskip < 1) throw std::invalid_argument("frameskip must be >= 1");
  if (o.stack_num < 1) throw std::invalid_argument("stack_num must be >= 1");
  if (o.img_height < 1 || o.img_width < 1) throw std::invalid_argument("image sizes must be >= 1");
  if (o.noop_max < 0) throw std::invalid_argument("noop_max must be >= 0");
  if (action_set.empty()) throw std::invalid_argument("empty action set");
  Impl& v = *impl_;
  batch.enable_start_memo();   // the noop starts' memo (ale_env.hpp)
  CudaBatch::Impl& bi = *batch.impl_;
  v.batch = &bi;
  DeviceGuard guard(bi.device);
  VecDev& d = v.d;
  d.o = o;
  d.n = bi.n;
  bool has_fire = false;
  for (uint8_t a : action_set) has_fire = has_fire || a == A_FIRE;
  d.fire_reset = (o.use_fire_reset && has_fire) ? 1 : 0;
  d.cn = o.grayscale ? 1 : 3;
  d.raw_px = bi.cfg.screen_height * 160;
  d.raw_size = d.raw_px * d.cn;
  d.obs_size = o.img_height * o.img_width * d.cn;
  v.resizer = vec::AreaResizer(bi.cfg.screen_height, 160, o.img_height, o.img_width, d.cn);
  d.plan = v.resizer.plan();
  d.plan.tap_si = v.upload(v.resizer.tap_si(), "cudaMalloc(resize taps)");
  d.plan.tap_a = v.upload(v.resizer.tap_a(), "cudaMalloc(resize weights)");
  d.plan.y_begin = v.upload(v.resizer.y_begin(), "cudaMalloc(resize rows)");
  d.plan.y_si = v.upload(v.resizer.y_si(), "cudaMalloc(resize rows)");
  d.plan.y_a = v.upload(v.resizer.y_a(), "cudaMalloc(resize rows)");
  d.action_set = v.upload(action_set, "cudaMalloc(action set)");
  d.num_actions = (int)action_set.size();
  d.lut = bi.lut;
  d.ids = nullptr;   // every env, in order (step sets its call's envs)
  d.count = d.n;
  const size_t n = (size_t)d.n;
  d.slots = v.alloc<vec::EnvSlot>(n, "cudaMalloc(vector env slots)");
  d.raw = v.alloc<uint8_t>(n * 2 * d.raw_size, "cudaMalloc(pooled screens)");
  d.hist = o.stale_frames ? nullptr : v.alloc<uint8_t>(n * 2 * d.raw_px, "cudaMalloc(screen history)");
  d.stack = v.alloc<uint8_t>(n * o.stack_num * d.obs_size, "cudaMalloc(frame stacks)");
  d.write_slot = v.alloc<int32_t>(n, "cudaMalloc(vector env flags)");
  d.clear = v.alloc<uint8_t>(n, "cudaMalloc(vector env flags)");
  d.pend = v.alloc<uint8_t>(2 * n, "cudaMalloc(vector env flags)");
  std::vector<uint32_t> seeds(noop_seeds, noop_seeds + n);
  uint32_t* dseeds = device_copy(seeds, "cudaMalloc(noop seeds)");
  CULE_LAUNCH(k_vec_init, blocks(d.n), kThreads, (cudaStream_t)0, d, (const uint32_t*)dseeds);
  cudaError_t e = cudaGetLastError();
  cudaError_t e2 = cudaDeviceSynchronize();
  cudaFree(dseeds);
  check(e, "k_vec_init");
  check(e2, "k_vec_init");
}

CudaVecEnv::~CudaVecEnv() = default;

int CudaVecEnv::num_envs() const { return impl_->d.n; }
size_t CudaVecEnv::device_bytes() const { return impl_->bytes; }
size_t CudaVecEnv::stacked_obs_size() const { return (size_t)impl_->d.o.stack_num * impl_->d.obs_size; }

void CudaVecEnv::seed_noops(const uint32_t* seeds, uintptr_t stream) {
  Impl& v = *impl_;
  DeviceGuard guard(v.batch->device);
  std::vector<uint32_t> s(seeds, seeds + v.d.n);
  uint32_t* ds = device_copy(s, "cudaMalloc(noop seeds)");
  CULE_LAUNCH(k_vec_seed_noops, blocks(v.d.n), kThreads, (cudaStream_t)stream, v.d, (const uint32_t*)ds);
  cudaError_t e = cudaGetLastError();
  cudaError_t e2 = cudaStreamSynchronize((cudaStream_t)stream);
  cudaFree(ds);
  check(e, "k_vec_seed_noops");
  check(e2, "k_vec_seed_noops");
}

static vec::VecOutputs vec_outputs(const CudaVecOutputs& o) {
  vec::VecOutputs r{};
  r.obs = (uint8_t*)o.obs;
  r.reward = (int32_t*)o.reward;
  r.terminated = (uint8_t*)o.terminated;
  r.truncated = (uint8_t*)o.truncated;
  r.env_id = (int32_t*)o.env_id;
  r.lives = (int32_t*)o.lives;
  r.frame_number = (int32_t*)o.frame_number;
  r.episode_frame_number = (int32_t*)o.episode_frame_number;
  r.final_obs = nullptr;
  return r;
}

static void vec_finish(const DeviceBatch& b, const VecDev& d, uint8_t* obs, const vec::VecOutputs& out,
                       int final_only, cudaStream_t s) {
  // One block per env of the call (see k_vec_pool); d.count >= 1 (step returns before).
  CULE_LAUNCH(k_vec_pool, d.count, kThreads, s, b, d);
  check(cudaGetLastError(), "k_vec_pool");
  CULE_LAUNCH(k_vec_process, d.count, kThreads, s, d);
  check(cudaGetLastError(), "k_vec_process");
  const int words = (d.obs_size % 4 == 0 && (uintptr_t)obs % 4 == 0 && (uintptr_t)d.stack % 4 == 0) ? 1 : 0;
  CULE_LAUNCH(k_vec_obs, d.count, kThreads, s, d, obs, (const uint8_t*)out.terminated, (const uint8_t*)out.truncated,
              final_only, words);
  check(cudaGetLastError(), "k_vec_obs");
}

void CudaVecEnv::reset(uintptr_t seeds, const CudaVecOutputs& o, int leader, uintptr_t stream) {
  Impl& v = *impl_;
  DeviceGuard guard(v.batch->device);
  cudaStream_t s = (cudaStream_t)stream;
  const vec::VecOutputs out = vec_outputs(o);
  // The leader (an env that is reset, see cuda_backend.hpp) first, alone (one thread): its
  // resets record the memo slots that the others' then take (ale_env.hpp) instead of
  // emulating beside it.
  if (leader >= v.d.n || !v.batch->b.memo) leader = -1;
  if (leader >= 0) {
    CULE_LAUNCH(k_vec_reset, 1, 1, s, v.batch->b, v.batch->cfg, v.d, (const int64_t*)seeds, out, leader, -1);
    check(cudaGetLastError(), "k_vec_reset");
  }
  CULE_LAUNCH(k_vec_reset, blocks(v.d.n), kThreads, s, v.batch->b, v.batch->cfg, v.d, (const int64_t*)seeds, out,
              -1, leader);
  check(cudaGetLastError(), "k_vec_reset");
  vec_finish(v.batch->b, v.d, out.obs, out, 0, s);
}

void CudaVecEnv::step(uintptr_t action_idx, uintptr_t strengths, uintptr_t bad, const CudaVecOutputs& o,
                      uintptr_t final_obs, uintptr_t stream, uintptr_t ids, int count) {
  Impl& v = *impl_;
  if (count < 0 || count > v.d.n || (!ids && count != v.d.n))
    throw std::invalid_argument("step: count must be num_envs, or at most num_envs with ids");
  DeviceGuard guard(v.batch->device);
  cudaStream_t s = (cudaStream_t)stream;
  const vec::VecOutputs out = vec_outputs(o);
  VecDev d = v.d;   // this call's envs
  d.ids = (const int64_t*)ids;
  d.count = count;
  check(cudaMemsetAsync((void*)bad, 0, sizeof(int32_t), s), "clear action check");
  if (count < 1) return;
  CULE_LAUNCH(k_vec_check, blocks(count), kThreads, s, count, (const int64_t*)action_idx, d.num_actions,
              (int32_t*)bad);
  check(cudaGetLastError(), "k_vec_check");
  const int same = d.o.same_step ? 1 : 0;
  CULE_LAUNCH(k_vec_step, blocks(count), kThreads, s, v.batch->b, v.batch->cfg, d, (const int64_t*)action_idx,
              (const float*)strengths, (const int32_t*)bad, same, out);
  check(cudaGetLastError(), "k_vec_step");
  if (!same) {
    vec_finish(v.batch->b, d, out.obs, out, 0, s);
    return;
  }
  vec_finish(v.batch->b, d, (uint8_t*)final_obs, out, 1, s);
  CULE_LAUNCH(k_vec_reset_done, blocks(count), kThreads, s, v.batch->b, v.batch->cfg, d, (const int32_t*)bad, out);
  check(cudaGetLastError(), "k_vec_reset_done");
  vec_finish(v.batch->b, d, out.obs, out, 0, s);
}

// ---- clone / restore: the buffers are laid out as the CPU VecEnv's ----

std::vector<std::string> CudaVecEnv::state_parts() const {
  std::vector<std::string> parts{"slots", "raw", "stack"};
  if (impl_->d.hist) parts.push_back("hist");
  return parts;
}

static uint8_t* vec_part(const VecDev& d, const std::string& part, size_t& per_env) {
  if (part == "slots") { per_env = sizeof(vec::EnvSlot); return (uint8_t*)d.slots; }
  if (part == "raw") { per_env = 2 * (size_t)d.raw_size; return d.raw; }
  if (part == "stack") { per_env = (size_t)d.o.stack_num * d.obs_size; return d.stack; }
  if (part == "hist" && d.hist) { per_env = 2 * (size_t)d.raw_px; return d.hist; }
  throw std::invalid_argument("no vector env state part " + part);
}

size_t CudaVecEnv::state_part_bytes(const std::string& part) const {
  size_t per_env = 0;
  vec_part(impl_->d, part, per_env);
  return per_env;
}

void CudaVecEnv::copy_state(const std::string& part, uintptr_t ptr, bool to_device, uintptr_t stream) {
  Impl& v = *impl_;
  DeviceGuard guard(v.batch->device);
  size_t per_env = 0;
  uint8_t* buf = vec_part(v.d, part, per_env);
  const size_t bytes = per_env * (size_t)v.d.n;
  void* dst = to_device ? (void*)buf : (void*)ptr;
  const void* src = to_device ? (const void*)ptr : (const void*)buf;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream), "copy vector env state");
}

}  // namespace cule
