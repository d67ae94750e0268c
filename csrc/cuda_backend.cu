// cule: the CUDA backend.  Every kernel calls the same per-console core functions as
// the CPU backend (csrc/ale_env.hpp and what it includes); only layout, launches and
// pixel conversion are GPU-specific.
//
// Layout: the consoles of a warp sit in adjacent lanes.  Console state is stored
// interleaved by 32-bit word across each group of 32 consoles, so a warp loading word
// w of its 32 consoles touches one contiguous 128-byte line.  A kernel copies its
// console into a thread-local Console (local memory, which the hardware interleaves
// the same way), runs the whole frameskip, and writes it back, all coalesced.
// The ROM lives in ordinary device memory, one copy per batch, so several games can
// share a process and ROMs of any size fit.
#if defined(__CUDACC__)
#include <cuda_runtime.h>
// CULE_LAUNCH(kernel, grid, block, stream, args...): a kernel launch.  Under nvcc it
// is the triple-chevron launch; host builds (cule._cuda_emu, see cuda_shim.hpp) run
// the grid's threads one by one on the CPU instead.
#define CULE_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
// The stepping kernels (k_act, k_vec_step) ask nvcc to fit CULE_STEP_MIN_BLOCKS blocks
// of 128 threads per SM, which caps their registers (4: 128 registers, 16 warps per SM;
// uncapped they take 132-162, 12 warps).  On an H200, 65,536 consoles (512 blocks) then
// run in one wave over the 132 SMs instead of 1.3.  0 leaves the compiler's choice.
#ifndef CULE_STEP_MIN_BLOCKS
#define CULE_STEP_MIN_BLOCKS 4
#endif
#if CULE_STEP_MIN_BLOCKS > 0
#define CULE_STEP_BOUNDS __launch_bounds__(128, CULE_STEP_MIN_BLOCKS)
#else
#define CULE_STEP_BOUNDS
#endif
#else
#include "cuda_shim.hpp"
#define CULE_STEP_BOUNDS
#endif

#include <stddef.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ale_env.hpp"
#include "area_resize.hpp"
#include "cuda_backend.hpp"
#include "host_switches.hpp"
#include "palette_lut.hpp"

namespace cule {

// A batch's device buffers, passed to every kernel by value.  (Outside the anonymous
// namespace: CudaBatch::Impl holds one.)
struct DeviceBatch {
  uint32_t* states;   // interleaved consoles, see word_index
  uint8_t* fbs;       // two frame buffers per env
  const uint8_t* rom;
  int n;
  ResetMemo* memo;    // the batch's reset_game memo (ale_env.hpp), or null
  const PowerOnState* power_on;   // the power-on's hardware part (ale_env.hpp), or null
  uint8_t* audio;     // 512 audio samples per env (sound observations), or null
};

namespace {

constexpr int kWords = (int)((sizeof(Console) + 3) / 4);
constexpr int kConsoleBytes = (int)sizeof(Console);
constexpr int kThreads = 128;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  // A failed call is also recorded as the thread's last error; clear it so the next
  // launch's check does not report it again.
  (void)cudaGetLastError();
  throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

__device__ __forceinline__ size_t word_index(int env, int w) {
  return (size_t)(env >> 5) * (size_t)kWords * 32u + (size_t)w * 32u + (size_t)(env & 31);
}

// Console words are padded to a multiple of 4 bytes; keep the union big enough.
union ConsoleStorage {
  Console c;
  uint32_t words[kWords];
};

__device__ __forceinline__ void load_console(const uint32_t* __restrict__ states, int env, ConsoleStorage& s) {
  for (int w = 0; w < kWords; ++w) s.words[w] = states[word_index(env, w)];
}

__device__ __forceinline__ void store_console(uint32_t* __restrict__ states, int env, const ConsoleStorage& s) {
  for (int w = 0; w < kWords; ++w) states[word_index(env, w)] = s.words[w];
}

__device__ __forceinline__ Machine machine(const DeviceBatch& b, Console& c, const GameConfig& g, int env) {
  Machine m{c, g, b.rom, b.fbs + (size_t)env * 2 * kFrameBufferBytes, b.memo};
  m.power_on = b.power_on;
  return m;
}

// A cule.Atari kernel's machine: with the env's audio row when the batch has sound
// (the vector env's kernels never do, and leave it out).
__device__ __forceinline__ Machine atari_machine(const DeviceBatch& b, Console& c, const GameConfig& g, int env) {
  Machine m = machine(b, c, g, env);
  if (b.audio) m.audio = b.audio + (size_t)env * kAudioSamplesPerFrame;
  return m;
}

// The console this thread runs in a led launch pair (a leader first, alone, then the
// rest: CudaBatch::load, CudaVecEnv::reset) of n consoles: with only >= 0 thread 0 runs
// console `only`; else each thread its own console but `skip` (none if < 0).  -1: none.
__device__ __forceinline__ int led_env(int only, int skip, int n) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (only >= 0) {
    if (env != 0) return -1;
    env = only;
  }
  return (env < n && env != skip) ? env : -1;
}

__global__ void k_load(DeviceBatch b, GameConfig g, const uint32_t* seeds, const uint16_t* modes,
                       const uint8_t* diffs, EnvParams p, int only, int skip) {
  const int env = led_env(only, skip, b.n);
  if (env < 0) return;
  // Start from all-zero bytes, as the CPU backend's value-initialised consoles do.
  // (Power-on writes every byte today; this keeps snapshots byte-identical to the CPU
  // backend's even if it stops doing so.)
  ConsoleStorage s;
  for (int w = 0; w < kWords; ++w) s.words[w] = 0;
  Machine m = atari_machine(b, s.c, g, env);
  m.after_power_on = true;   // the memo's power-on slots (ale_env.hpp)
  ale_power_on(m, seeds[env], modes[env], diffs[env]);
  ale_reset_game(m, p);
  store_console(b.states, env, s);
}

// ale_set on the envs whose mask byte is set, env i getting values[i].
__global__ void k_set(DeviceBatch b, const uint8_t* mask, int32_t what, int32_t index, const int32_t* values) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= b.n || !mask[env]) return;
  ConsoleStorage s;
  load_console(b.states, env, s);
  ale_set(s.c, what, index, values[env]);
  store_console(b.states, env, s);
}

__global__ void k_reset(DeviceBatch b, GameConfig g, const uint8_t* mask, EnvParams p) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= b.n || !mask[env]) return;
  ConsoleStorage s;
  load_console(b.states, env, s);
  Machine m = atari_machine(b, s.c, g, env);
  ale_reset_game(m, p);
  store_console(b.states, env, s);
}

// Sets *bad (zeroed before the launch) if any action id is outside [0, 18).  Every
// thread that finds one stores the same value, so no atomic is needed.
__global__ void k_check_actions(int n, const int64_t* actions, int32_t* bad) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= n) return;
  const int64_t a = actions[env];
  if (a < 0 || a >= 18) *bad = 1;
}

// One agent step for every console: the whole frameskip in one launch.  If k_check_actions
// found a bad action id, nothing changes (rewards are 0).  Only the last p.render_last
// frames are drawn; when that leaves a frame buffer inexact, the console is reloaded
// from global memory (still as it was before the step) and the step redone drawing
// every frame (ale_act_observed).
__global__ void CULE_STEP_BOUNDS k_act(DeviceBatch b, GameConfig g, const int64_t* actions, int32_t* rewards, EnvParams p,
                      const int32_t* bad) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= b.n) return;
  if (*bad) {
    rewards[env] = 0;
    return;
  }
  ConsoleStorage s;
  load_console(b.states, env, s);
  Machine m = atari_machine(b, s.c, g, env);
  const uint8_t a = (uint8_t)actions[env];
  if (ale_draws_partially(p))
    rewards[env] = ale_act_observed(m, a, p, [&]() { load_console(b.states, env, s); });
  else
    rewards[env] = ale_act(m, a, p);
  store_console(b.states, env, s);
}

__global__ void k_info(DeviceBatch b, GameConfig g, int32_t* lives, uint8_t* term, uint8_t* trunc,
                       int32_t* ep, int32_t* fr, uint8_t* ram) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= b.n) return;
  ConsoleStorage s;
  load_console(b.states, env, s);
  if (lives) {
    lives[env] = game_lives(s.c, g.game_id);
    term[env] = s.c.game.terminal;
    trunc[env] = s.c.truncated;
    ep[env] = s.c.episode_frame_number;
    fr[env] = s.c.frame_number;
  }
  if (ram)
    for (int i = 0; i < 128; ++i) ram[(size_t)env * 128 + i] = s.c.riot.ram[i];
}

// Byte k of a 4-byte word read from memory (little-endian, on the GPU and the host).
CULE_HD uint32_t byte_of(uint32_t w, int k) { return (w >> (8 * k)) & 0xFFu; }

// Four palette indices (a word, byte k pixel k) -> their four gray levels, through the
// LUT (4 bytes a palette index: red, green, blue, gray).
CULE_HD uint32_t lut_gray4(const uint8_t* lut, uint32_t idx) {
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= (uint32_t)lut[byte_of(idx, k) * 4 + 3] << (8 * k);
  return r;
}

// Palette conversion: one block per env, its threads striding through the screen four
// pixels (a word of palette indices; pixels is a multiple of 160) at a time, writing
// whole words (out's address is a multiple of 4: a gray group of 4 pixels is one word,
// an RGB group three).  (One thread per pixel of the whole batch needed a 64-bit
// division per pixel to find its env.)
__global__ void k_screen(DeviceBatch b, const uint8_t* cur_buf, int pixels, const uint8_t* lut, int channels,
                         uint8_t* out) {
  const int env = blockIdx.x;
  if (env >= b.n) return;
  const uint32_t* fb =
      (const uint32_t*)(b.fbs + (size_t)env * 2 * kFrameBufferBytes + (cur_buf[env] ? kFrameBufferBytes : 0));
  uint32_t* row = (uint32_t*)(out + (size_t)env * pixels * channels);
  for (int q = threadIdx.x; q < pixels / 4; q += blockDim.x) {
    const uint32_t idx = fb[q];
    if (channels == 3) {
      uint32_t v[3] = {0, 0, 0};
      for (int j = 0; j < 12; ++j) v[j / 4] |= (uint32_t)lut[byte_of(idx, j / 3) * 4 + j % 3] << (8 * (j % 4));
      for (int w = 0; w < 3; ++w) row[(size_t)q * 3 + w] = v[w];
    } else {
      row[q] = lut_gray4(lut, idx);
    }
  }
}

// Byte offset of TiaState::cur_buf inside a Console.
constexpr size_t kCurBufOffset = offsetof(Console, tia) + offsetof(TiaState, cur_buf);

__global__ void k_cur_buf(DeviceBatch b, uint8_t* cur) {
  int env = blockIdx.x * blockDim.x + threadIdx.x;
  if (env >= b.n) return;
  // cur_buf is a byte inside the TiaState: read its word and extract the byte.
  uint32_t word = b.states[word_index(env, (int)(kCurBufOffset / 4))];
  cur[env] = (uint8_t)((word >> (8 * (kCurBufOffset % 4))) & 0xFF);
}

// Save / restore.  Snapshots are rows of plain bytes, the CPU backend's layout: row r
// holds console ids[r] as its Console struct (sizeof(Console) bytes) and, in a second
// array, its two frame buffers.  One block per row, its threads striding through the
// row's console words / frame buffer bytes (the rows may come from any tensor, so no
// alignment is assumed for them).
__global__ void k_export_consoles(DeviceBatch b, const int64_t* ids, int k, uint8_t* out) {
  const int row = blockIdx.x;
  if (row >= k) return;
  const int env = (int)ids[row];
  uint8_t* dst = out + (size_t)row * kConsoleBytes;
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) {
    const uint32_t word = b.states[word_index(env, w)];
    for (int j = 0; j < 4 && 4 * w + j < kConsoleBytes; ++j) dst[4 * w + j] = (uint8_t)(word >> (8 * j));
  }
}

__global__ void k_import_consoles(DeviceBatch b, const int64_t* ids, int k, const uint8_t* in) {
  const int row = blockIdx.x;
  if (row >= k) return;
  const int env = (int)ids[row];
  const uint8_t* src = in + (size_t)row * kConsoleBytes;
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) {
    uint32_t word = 0;
    for (int j = 0; j < 4 && 4 * w + j < kConsoleBytes; ++j) word |= (uint32_t)src[4 * w + j] << (8 * j);
    b.states[word_index(env, w)] = word;
  }
}

// to_rows: copy frame buffers of envs ids[] into rows of out; otherwise rows into envs.
__global__ void k_copy_frame_buffers(DeviceBatch b, const int64_t* ids, int k, uint8_t* rows, int to_rows) {
  const int row = blockIdx.x;
  if (row >= k) return;
  const int per_env = 2 * kFrameBufferBytes;
  uint8_t* fb = b.fbs + (size_t)ids[row] * per_env;
  uint8_t* r = rows + (size_t)row * per_env;
  const uint8_t* from = to_rows ? fb : r;
  uint8_t* to = to_rows ? r : fb;
  for (int i = threadIdx.x; i < per_env; i += blockDim.x) to[i] = from[i];
}

int blocks(long long n) { return (int)((n + kThreads - 1) / kThreads); }

// Makes the batch's GPU the calling thread's current device for a scope and restores
// the previous one after: allocations, copies and launches must go to the device
// that holds the batch (and its stream), whichever device the caller (PyTorch) has
// current, and the caller's current device must not change behind its back.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
    else previous_ = -1;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// The palette the CPU backend uses (palette_lut.hpp), packed as r, g, b, gray per
// palette index.
void make_lut(bool pal, uint8_t lut[256 * 4]) {
  const PaletteLut p = make_palette(pal);
  for (int i = 0; i < 256; ++i) {
    lut[4 * i] = p.rgb[i][0];
    lut[4 * i + 1] = p.rgb[i][1];
    lut[4 * i + 2] = p.rgb[i][2];
    lut[4 * i + 3] = p.gray[i];
  }
}

}  // namespace

struct CudaBatch::Impl {
  GameConfig cfg;
  int n = 0;
  int device = 0;
  DeviceBatch b{};
  uint8_t* rom = nullptr;
  uint8_t* lut = nullptr;       // 256 x (r, g, b, gray)
  uint8_t* scratch = nullptr;   // per-env cur_buf bytes
  size_t bytes = 0;
  int render_last = 2;          // frames drawn per act (see CpuBatch::render_last)
  StartNodes* start = nullptr;  // the noop-start memo's nodes (enable_start_memo), or null
  PowerOnState* power_on = nullptr;   // device copy of the power-on's hardware part, or null

  // Frees what was allocated, also when the constructor failed half-way.
  ~Impl() {
    if (!rom && !b.states && !b.fbs && !lut && !scratch && !b.memo && !start && !power_on) return;
    int previous = -1;
    if (cudaGetDevice(&previous) == cudaSuccess && previous != device) cudaSetDevice(device);
    else previous = -1;
    cudaFree(rom);
    cudaFree(b.states);
    cudaFree(b.fbs);
    cudaFree(lut);
    cudaFree(scratch);
    cudaFree(b.memo);
    cudaFree(start);
    cudaFree(power_on);
    if (previous >= 0) cudaSetDevice(previous);
  }
};

CudaBatch::CudaBatch(const GameConfig& cfg, const std::string& rom, int num_envs, int device)
    : impl_(new Impl) {
  if (num_envs < 1) throw std::invalid_argument("num_envs must be >= 1");
  const bool use_memo = reset_memo_enabled();   // a bad CULE_RESET_MEMO fails before any allocation
  Impl& d = *impl_;
  d.cfg = cfg;
  d.n = num_envs;
  d.device = device;
  DeviceGuard guard(device);
  size_t rom_bytes = rom.size() < 16384 ? 16384 : rom.size();
  std::vector<uint8_t> rom_host(rom_bytes, 0);
  for (size_t i = 0; i < rom.size(); ++i) rom_host[i] = (uint8_t)rom[i];
  size_t groups = ((size_t)num_envs + 31) / 32;
  size_t state_bytes = groups * 32 * (size_t)kWords * 4;
  size_t fb_bytes = (size_t)num_envs * 2 * kFrameBufferBytes;
  check(cudaMalloc(&d.rom, rom_bytes), "cudaMalloc(rom)");
  check(cudaMalloc(&d.b.states, state_bytes), "cudaMalloc(states)");
  check(cudaMalloc(&d.b.fbs, fb_bytes), "cudaMalloc(frame buffers)");
  check(cudaMalloc(&d.lut, 256 * 4), "cudaMalloc(palette)");
  check(cudaMalloc(&d.scratch, (size_t)num_envs), "cudaMalloc(scratch)");
  d.bytes = rom_bytes + state_bytes + fb_bytes + 256 * 4 + (size_t)num_envs;
  if (use_memo) {
    check(cudaMalloc(&d.b.memo, sizeof(ResetMemo)), "cudaMalloc(reset memo)");
    check(cudaMemset(d.b.memo, 0, sizeof(ResetMemo)), "clear the reset memo");   // empty
    d.bytes += sizeof(ResetMemo);
  }
  check(cudaMemcpy(d.rom, rom_host.data(), rom_bytes, cudaMemcpyHostToDevice), "copy rom");
  if (use_memo) {
    // The power-on's hardware part (ale_env.hpp, PowerOnState), emulated once here on the
    // host by the same core code and copied by every power-on on the device; with the
    // memos off (CULE_RESET_MEMO=0) each console emulates it.
    std::unique_ptr<PowerOnState> host(new PowerOnState());   // value-initialised: zeros
    make_power_on_state(*host, cfg, rom_host.data());
    check(cudaMalloc(&d.power_on, sizeof(PowerOnState)), "cudaMalloc(power-on state)");
    check(cudaMemcpy(d.power_on, host.get(), sizeof(PowerOnState), cudaMemcpyHostToDevice), "copy power-on state");
    d.bytes += sizeof(PowerOnState);
  }
  uint8_t lut[256 * 4];
  make_lut(cfg.pal != 0, lut);
  check(cudaMemcpy(d.lut, lut, sizeof(lut), cudaMemcpyHostToDevice), "copy palette");
  // cudaMemcpy from pageable memory may return before the copy has landed, and
  // cudaMemset is asynchronous; the batch's kernels may run on a non-blocking stream
  // (PyTorch's side streams), which the legacy default stream does not order.  So wait
  // for that stream (and only it) here.
  check(cudaStreamSynchronize((cudaStream_t)0), "batch set-up");
  d.b.rom = d.rom;
  d.b.n = num_envs;
  d.b.power_on = d.power_on;
}

CudaBatch::~CudaBatch() = default;

int CudaBatch::num_envs() const { return impl_->n; }
size_t CudaBatch::device_bytes() const { return impl_->bytes; }

// Two adjacent int32 counters of the memo slots [first, first + count), from `offset` in
// ResetMemoSlot, after the device is idle; empty when the memo is off.
static std::vector<std::pair<int, int>> memo_slot_pairs(const DeviceBatch& b, int device, size_t offset, int first,
                                                        int count, const char* what) {
  std::vector<std::pair<int, int>> out;
  if (!b.memo) return out;
  DeviceGuard guard(device);
  check(cudaDeviceSynchronize(), what);
  for (int i = first; i < first + count; ++i) {
    int32_t pair[2];
    check(cudaMemcpy(pair, (const uint8_t*)&b.memo->slot[i] + offset, sizeof(pair), cudaMemcpyDeviceToHost), what);
    out.emplace_back(pair[0], pair[1]);
  }
  return out;
}

static_assert(offsetof(ResetMemoSlot, hits) == offsetof(ResetMemoSlot, state) + sizeof(int32_t) &&
                  offsetof(ResetMemoSlot, start_run) == offsetof(ResetMemoSlot, start_skipped) + sizeof(int32_t),
              "memo_slot_pairs reads each pair of counters at once");

std::vector<std::pair<int, int>> CudaBatch::reset_memo_stats() const {
  return memo_slot_pairs(impl_->b, impl_->device, offsetof(ResetMemoSlot, state), 0, kResetMemoSlots,
                         "reset_memo_stats");
}

std::vector<std::pair<int, int>> CudaBatch::power_on_memo_stats() const {
  return memo_slot_pairs(impl_->b, impl_->device, offsetof(ResetMemoSlot, state), kResetMemoSlots,
                         kPowerOnMemoSlots, "power_on_memo_stats");
}

void CudaBatch::enable_start_memo() {
  Impl& d = *impl_;
  if (!d.b.memo || d.start) return;
  DeviceGuard guard(d.device);
  StartNodes* nodes = nullptr;
  check(cudaMalloc(&nodes, sizeof(StartNodes)), "cudaMalloc(noop-start memo)");
  cudaError_t e = cudaMemset(nodes, 0, sizeof(StartNodes));   // empty
  // Kernels of this batch queued on other streams may be reading the memo: the pointer is
  // written once they are done.
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(&d.b.memo->start, &nodes, sizeof(nodes), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(nodes);
    check(e, "set up the noop-start memo");
  }
  d.start = nodes;
  d.bytes += sizeof(StartNodes);
}

std::vector<std::pair<int, int>> CudaBatch::start_memo_stats() const {
  return memo_slot_pairs(impl_->b, impl_->device, offsetof(ResetMemoSlot, start_skipped), 0, kMemoSlots,
                         "start_memo_stats");
}
size_t CudaBatch::console_state_bytes() { return sizeof(Console); }
bool CudaBatch::supports_cpu_high() { return CULE_DEVICE_CPU_HIGH != 0; }
size_t CudaBatch::frame_buffer_bytes() { return 2 * (size_t)kFrameBufferBytes; }
size_t CudaBatch::reset_memo_bytes() { return sizeof(ResetMemo); }
size_t CudaBatch::start_memo_bytes() { return sizeof(StartNodes); }

static EnvParams to_params(const EnvParamsHost& p, int render_last) {
  EnvParams e{p.frameskip, p.repeat_p, p.max_frames};
  e.render_last = render_last;
  e.max_lives = p.max_lives;
  return e;
}

void CudaBatch::set_audio(uintptr_t audio) { impl_->b.audio = (uint8_t*)audio; }

int CudaBatch::render_last() const { return impl_->render_last; }
void CudaBatch::set_render_last(int r) {
  if (r < 0 || r == 1) throw std::invalid_argument("render_last must be 0 or >= 2");
  impl_->render_last = r;
}

void CudaBatch::load(const uint32_t* seeds, const uint16_t* modes, const uint8_t* diffs, const EnvParamsHost& p,
                     uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  cudaStream_t s = (cudaStream_t)stream;
  uint32_t* dseeds = nullptr;
  // Stream-ordered: cudaFree would wait for every stream of the device (batches loaded
  // from several threads, each on its own stream, then load side by side).
  check(cudaMallocAsync(&dseeds, (size_t)d.n * 7, s), "cudaMallocAsync(load args)");
  uint16_t* dmodes = (uint16_t*)(dseeds + d.n);
  uint8_t* ddiffs = (uint8_t*)(dmodes + d.n);
  try {
    check(cudaMemcpyAsync(dseeds, seeds, (size_t)d.n * 4, cudaMemcpyHostToDevice, s), "copy seeds");
    check(cudaMemcpyAsync(dmodes, modes, (size_t)d.n * 2, cudaMemcpyHostToDevice, s), "copy modes");
    check(cudaMemcpyAsync(ddiffs, diffs, (size_t)d.n, cudaMemcpyHostToDevice, s), "copy difficulties");
    // As CpuBatch::load: the reset after power-on draws every frame, whatever
    // render_last says (the consoles' bytes, frame buffers included, must match).
    // With the memo on, console 0 powers on and resets first, alone (one thread): its
    // reset records the memo's power-on slot, which the others' then take (ale_env.hpp)
    // instead of emulating the reset's frames beside it.
    const EnvParams ep = to_params(p, kRenderAll);
    const int leader = d.b.memo ? 0 : -1;
    if (leader >= 0) {
      CULE_LAUNCH(k_load, 1, 1, s, d.b, d.cfg, dseeds, dmodes, ddiffs, ep, leader, -1);
      check(cudaGetLastError(), "k_load");
    }
    CULE_LAUNCH(k_load, blocks(d.n), kThreads, s, d.b, d.cfg, dseeds, dmodes, ddiffs, ep, -1, leader);
    check(cudaGetLastError(), "k_load");
    check(cudaStreamSynchronize(s), "load");
  } catch (...) {
    cudaFreeAsync(dseeds, s);
    throw;
  }
  cudaFreeAsync(dseeds, s);
}

void CudaBatch::set_masked(uintptr_t mask, int32_t what, int32_t index, uintptr_t values, uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  CULE_LAUNCH(k_set, blocks(d.n), kThreads, (cudaStream_t)stream, d.b, (const uint8_t*)mask, what, index,
              (const int32_t*)values);
  check(cudaGetLastError(), "k_set");
}

void CudaBatch::reset_masked(uintptr_t mask, const EnvParamsHost& p, uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  CULE_LAUNCH(k_reset, blocks(d.n), kThreads, (cudaStream_t)stream, d.b, d.cfg, (const uint8_t*)mask,
              to_params(p, d.render_last));
  check(cudaGetLastError(), "k_reset");
}

void CudaBatch::act(uintptr_t actions, uintptr_t rewards, uintptr_t bad, const EnvParamsHost& p, uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  cudaStream_t s = (cudaStream_t)stream;
  check(cudaMemsetAsync((void*)bad, 0, sizeof(int32_t), s), "clear the action check");
  CULE_LAUNCH(k_check_actions, blocks(d.n), kThreads, s, d.n, (const int64_t*)actions, (int32_t*)bad);
  check(cudaGetLastError(), "k_check_actions");
  CULE_LAUNCH(k_act, blocks(d.n), kThreads, s, d.b, d.cfg, (const int64_t*)actions, (int32_t*)rewards,
              to_params(p, d.render_last), (const int32_t*)bad);
  check(cudaGetLastError(), "k_act");
}

void CudaBatch::read_ram(uintptr_t out, uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  CULE_LAUNCH(k_info, blocks(d.n), kThreads, (cudaStream_t)stream, d.b, d.cfg, (int32_t*)nullptr,
              (uint8_t*)nullptr, (uint8_t*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr, (uint8_t*)out);
  check(cudaGetLastError(), "k_info(ram)");
}

void CudaBatch::read_info(uintptr_t lives, uintptr_t term, uintptr_t trunc, uintptr_t ep, uintptr_t fr,
                          uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  CULE_LAUNCH(k_info, blocks(d.n), kThreads, (cudaStream_t)stream, d.b, d.cfg, (int32_t*)lives, (uint8_t*)term,
              (uint8_t*)trunc, (int32_t*)ep, (int32_t*)fr, (uint8_t*)nullptr);
  check(cudaGetLastError(), "k_info");
}

static void screen(CudaBatch::Impl& d, uintptr_t out, int channels, cudaStream_t s) {
  // (The callers' outputs are fresh tensors, whose addresses are aligned.)
  if (out % 4 != 0) throw std::invalid_argument("screen output address must be a multiple of 4");
  DeviceGuard guard(d.device);
  CULE_LAUNCH(k_cur_buf, blocks(d.n), kThreads, s, d.b, d.scratch);
  check(cudaGetLastError(), "k_cur_buf");
  int pixels = d.cfg.screen_height * 160;
  CULE_LAUNCH(k_screen, d.n, kThreads, s, d.b, (const uint8_t*)d.scratch, pixels, (const uint8_t*)d.lut, channels,
              (uint8_t*)out);
  check(cudaGetLastError(), "k_screen");
}

void CudaBatch::screen_rgb(uintptr_t out, uintptr_t stream) { screen(*impl_, out, 3, (cudaStream_t)stream); }
void CudaBatch::screen_gray(uintptr_t out, uintptr_t stream) { screen(*impl_, out, 1, (cudaStream_t)stream); }

void CudaBatch::export_state(uintptr_t ids, int count, uintptr_t consoles, uintptr_t frame_buffers,
                             uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  if (count <= 0) return;   // an empty grid is an invalid launch
  cudaStream_t s = (cudaStream_t)stream;
  CULE_LAUNCH(k_export_consoles, count, kThreads, s, d.b, (const int64_t*)ids, count,
              (uint8_t*)consoles);
  check(cudaGetLastError(), "k_export_consoles");
  CULE_LAUNCH(k_copy_frame_buffers, count, kThreads, s, d.b,
              (const int64_t*)ids, count, (uint8_t*)frame_buffers, 1);
  check(cudaGetLastError(), "k_copy_frame_buffers(export)");
}

void CudaBatch::import_state(uintptr_t ids, int count, uintptr_t consoles, uintptr_t frame_buffers,
                             uintptr_t stream) {
  Impl& d = *impl_;
  DeviceGuard guard(d.device);
  if (count <= 0) return;
  cudaStream_t s = (cudaStream_t)stream;
  CULE_LAUNCH(k_import_consoles, count, kThreads, s, d.b, (const int64_t*)ids, count,
              (const uint8_t*)consoles);
  check(cudaGetLastError(), "k_import_consoles");
  CULE_LAUNCH(k_copy_frame_buffers, count, kThreads, s, d.b,
              (const int64_t*)ids, count, (uint8_t*)frame_buffers, 0);
  check(cudaGetLastError(), "k_copy_frame_buffers(import)");
}

}  // namespace cule

#include "cuda_vector_env.cuh"
