// cule: OpenCV's cv::resize(..., INTER_AREA) for 8-bit images, host side: the CPU
// resizer (whole images, row by row) and the plan vc_area_element (vector_core.hpp)
// computes single output elements from, with the same float operations.  Host only
// (std::vector); this file must be compiled with -ffp-contract=off.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#define CULE_AREA_SSE2 1
#else
#define CULE_AREA_SSE2 0
#endif

#include "vector_core.hpp"

namespace cule {
namespace vec {

// ---------------------------------------------------------------------------------
// OpenCV cv::resize(..., INTER_AREA) for 8-bit images when shrinking (both scale
// factors >= 1), as imgproc/src/resize.cpp computes it: the integer-scale "fast area"
// path (2x2 with rounding (s + 2) >> 2, other integer scales sum * (1/area) rounded to
// nearest even) and the general path (float weights from computeResizeAreaTab,
// row sums accumulated in float; this file must be compiled with -ffp-contract=off
// so no multiply-add is fused, as OpenCV's generic code is).  Enlarging is not supported.

struct AreaTab {
  int di, si;
  float alpha;
};

inline int cv_floor(double v) { int i = (int)v; return i - (i > v); }
inline int cv_ceil(double v) { int i = (int)v; return i + (i < v); }
inline int cv_round_float(float v) { return (int)std::nearbyint(v); }   // round half to even
inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v)); }

inline int compute_area_tab(int ssize, int dsize, int cn, double scale, std::vector<AreaTab>& tab) {
  tab.clear();
  for (int dx = 0; dx < dsize; dx++) {
    double fsx1 = dx * scale;
    double fsx2 = fsx1 + scale;
    double cell = std::min(scale, ssize - fsx1);
    int sx1 = cv_ceil(fsx1), sx2 = cv_floor(fsx2);
    sx2 = std::min(sx2, ssize - 1);
    sx1 = std::min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) tab.push_back({dx * cn, (sx1 - 1) * cn, (float)((sx1 - fsx1) / cell)});
    for (int sx = sx1; sx < sx2; sx++) tab.push_back({dx * cn, sx * cn, (float)(1.0 / cell)});
    if (fsx2 - sx2 > 1e-3)
      tab.push_back({dx * cn, sx2 * cn, (float)(std::min(std::min(fsx2 - sx2, 1.), cell) / cell)});
  }
  return (int)tab.size();
}

class AreaResizer {
 public:
  enum Mode { COPY, FAST, GENERAL };

  AreaResizer() = default;
  AreaResizer(int sh, int sw, int dh, int dw, int cn) : sh_(sh), sw_(sw), dh_(dh), dw_(dw), cn_(cn) {
    if (sh < 1 || sw < 1 || dh < 1 || dw < 1 || cn < 1)
      throw std::invalid_argument("INTER_AREA sizes and channels must be >= 1");
    if (dh > sh || dw > sw) throw std::invalid_argument("INTER_AREA enlarging is not supported");
    if (dh == sh && dw == sw) { mode_ = COPY; return; }
    // cv::resize: inv_scale = dsize / ssize, scale = 1 / inv_scale.
    const double inv_x = (double)dw / sw, inv_y = (double)dh / sh;
    const double sx = 1. / inv_x, sy = 1. / inv_y;
    const int isx = (int)std::lround(sx), isy = (int)std::lround(sy);
    const double eps = std::numeric_limits<double>::epsilon();
    if (std::abs(sx - isx) < eps && std::abs(sy - isy) < eps) {
      mode_ = FAST;
      isx_ = isx; isy_ = isy;
      return;
    }
    mode_ = GENERAL;
    compute_area_tab(sw, dw, cn, sx, xtab_);
    compute_area_tab(sh, dh, 1, sy, ytab_);
    build_taps();
    y_begin_.assign((size_t)dh_ + 1, 0);
    for (const AreaTab& t : ytab_) {
      y_begin_[(size_t)t.di + 1]++;
      y_si_.push_back(t.si);
      y_a_.push_back(t.alpha);
    }
    for (int d = 0; d < dh_; ++d) y_begin_[(size_t)d + 1] += y_begin_[(size_t)d];
  }

  Mode mode() const { return mode_; }

  // The plan of vc_area_element (vector_core.hpp): the scalars, with the pointers
  // aimed at the host tables below (a device copy replaces them).
  AreaPlan plan() const {
    AreaPlan p{};
    p.mode = mode_ == COPY ? 0 : (mode_ == FAST ? 1 : 2);
    p.sh = sh_; p.sw = sw_; p.dh = dh_; p.dw = dw_; p.cn = cn_;
    p.isx = isx_; p.isy = isy_;
    p.inv_area = 1.f / (float)(isx_ * isy_);
    p.taps = taps_;
    p.tap_si = tap_si_.data();
    p.tap_a = tap_a_.data();
    p.y_begin = y_begin_.data();
    p.y_si = y_si_.data();
    p.y_a = y_a_.data();
    return p;
  }
  const std::vector<int>& tap_si() const { return tap_si_; }
  const std::vector<float>& tap_a() const { return tap_a_; }
  const std::vector<int>& y_begin() const { return y_begin_; }
  const std::vector<int>& y_si() const { return y_si_; }
  const std::vector<float>& y_a() const { return y_a_; }
  // Scratch floats a GENERAL resize needs: the one-row path two output rows and one
  // source row; the SSE2 path every source row's horizontal sums and four interleaved
  // source rows.
  size_t scratch_floats() const {
    if (mode_ != GENERAL) return 0;
    const size_t width = (size_t)dw_ * cn_, sw = (size_t)sw_ * cn_;
    const size_t one_row = 2 * width + sw;
    return CULE_AREA_SSE2 ? std::max(one_row, (size_t)sh_ * width + 4 * sw + 4) : one_row;
  }

  // src: sh x sw x cn, dst: dh x dw x cn, both tightly packed.  reference: take the
  // portable one-row path even where the SSE2 one exists (for tests; same bytes).
  void run(const uint8_t* src, uint8_t* dst, float* scratch, bool reference = false) const {
    if (mode_ == COPY) { std::memcpy(dst, src, (size_t)sh_ * sw_ * cn_); return; }
    if (mode_ == FAST) { run_fast(src, dst); return; }
#if CULE_AREA_SSE2
    if (!reference) {
      switch (taps_) {
        case 2: run_general_sse2<2>(src, dst, scratch); return;
        case 3: run_general_sse2<3>(src, dst, scratch); return;
        case 4: run_general_sse2<4>(src, dst, scratch); return;
        default: run_general_sse2<0>(src, dst, scratch); return;
      }
    }
#else
    (void)reference;
#endif
    switch (taps_) {   // the tap count as a constant, so the inner loop unrolls
      case 2: run_general<2>(src, dst, scratch); return;
      case 3: run_general<3>(src, dst, scratch); return;
      case 4: run_general<4>(src, dst, scratch); return;
      default: run_general<0>(src, dst, scratch); return;
    }
  }

 private:
  void run_fast(const uint8_t* src, uint8_t* dst) const {
    const int cn = cn_, sx = isx_, sy = isy_;
    const size_t step = (size_t)sw_ * cn;
    const int wd = dw_ * cn;
    if (sx == 2 && sy == 2 && (cn == 1 || cn == 3 || cn == 4)) {
      for (int dy = 0; dy < dh_; ++dy) {
        const uint8_t* S = src + (size_t)(dy * 2) * step;
        const uint8_t* N = S + step;
        uint8_t* D = dst + (size_t)dy * wd;
        for (int dx = 0; dx < dw_; ++dx)
          for (int k = 0; k < cn; ++k) {
            int i = dx * 2 * cn + k;
            D[dx * cn + k] = (uint8_t)((S[i] + S[i + cn] + N[i] + N[i + cn] + 2) >> 2);
          }
      }
      return;
    }
    const int area = sx * sy;
    const float scale = 1.f / (float)area;
    for (int dy = 0; dy < dh_; ++dy) {
      const uint8_t* row = src + (size_t)(dy * sy) * step;
      uint8_t* D = dst + (size_t)dy * wd;
      for (int dx = 0; dx < wd; ++dx) {
        int j = dx % cn;
        const uint8_t* S = row + (size_t)(dx - j) * sx + j;
        int sum = 0;
        for (int yy = 0; yy < sy; ++yy)
          for (int xx = 0; xx < sx; ++xx) sum += S[yy * step + xx * cn];
        D[dx] = sat_u8(cv_round_float((float)sum * scale));
      }
    }
  }

  // The general path.  Same float operations in the same order as OpenCV's
  // ResizeArea_Invoker, laid out for speed: each output element's horizontal taps are
  // padded to taps_ slots (a padded slot adds 0 * pixel = +0, which changes no sum of
  // non-negative terms), a source row is converted to float once, and a row's horizontal
  // sums are reused when the next vertical tap reads the same row.
  template <int kTaps>
  void run_general(const uint8_t* src, uint8_t* dst, float* scratch) const {
    const int width = dw_ * cn_;
    const int sw = sw_ * cn_;
    float* __restrict buf = scratch;
    float* __restrict sum = scratch + width;
    float* __restrict rowf = scratch + 2 * width;
    const size_t step = (size_t)sw;
    const int yn = (int)ytab_.size();
    const int T = kTaps > 0 ? kTaps : taps_;
    const int* si = tap_si_.data();
    const float* al = tap_a_.data();
    for (int dx = 0; dx < width; ++dx) sum[dx] = 0.f;
    int prev_dy = ytab_[0].di;
    int buf_row = -1;
    for (int j = 0; j < yn; ++j) {
      const float beta = ytab_[j].alpha;
      const int dy = ytab_[j].di;
      const int sy = ytab_[j].si;
      if (sy != buf_row) {
        const uint8_t* S = src + (size_t)sy * step;
        for (int x = 0; x < sw; ++x) rowf[x] = (float)S[x];
        for (int dx = 0; dx < width; ++dx) {
          float b = 0.f;
          for (int k = 0; k < T; ++k) b += rowf[si[k * width + dx]] * al[k * width + dx];
          buf[dx] = b;
        }
        buf_row = sy;
      }
      if (dy != prev_dy) {
        uint8_t* D = dst + (size_t)prev_dy * width;
        for (int dx = 0; dx < width; ++dx) {
          D[dx] = sat_u8(cv_round_float(sum[dx]));
          sum[dx] = beta * buf[dx];
        }
        prev_dy = dy;
      } else {
        for (int dx = 0; dx < width; ++dx) sum[dx] += beta * buf[dx];
      }
    }
    uint8_t* D = dst + (size_t)prev_dy * width;
    for (int dx = 0; dx < width; ++dx) D[dx] = sat_u8(cv_round_float(sum[dx]));
  }

#if CULE_AREA_SSE2
  // The general path with SSE2, four source rows at a time: the same float operations
  // in the same order as run_general, element for element, so the same bytes.
  //  1. Horizontal: rows r..r+3 are interleaved as floats (one __m128 per source
  //     column, a lane per row), so each output element's taps are a vector load,
  //     multiply and add for four rows at once; 4x4 blocks are transposed back into
  //     row-major horizontal sums H[sy][dx] (a last group short of four rows repeats
  //     its last row and stores only the real ones).  The first tap is a product on
  //     its own where run_general adds it to 0.f: the same value, as every product
  //     here is >= +0.
  //  2. Vertical: the row table in order, four output elements per operation, and
  //     rounding with cvtps (round half to even in the default rounding mode, as
  //     nearbyint) and saturation with packs/packus (as sat_u8).
  template <int kTaps>
  void run_general_sse2(const uint8_t* src, uint8_t* dst, float* scratch) const {
    const int width = dw_ * cn_;
    const int sw = sw_ * cn_;
    const int T = kTaps > 0 ? kTaps : taps_;
    const int* si = tap_si_.data();
    const float* al = tap_a_.data();
    float* __restrict H = scratch;
    // 16-byte aligned interleave buffer after the sums.
    float* __restrict Ib = scratch + (size_t)sh_ * width;
    Ib += (4 - (reinterpret_cast<uintptr_t>(Ib) / sizeof(float)) % 4) % 4;
    const __m128i zero = _mm_setzero_si128();
    // Output element e's horizontal sum for the four interleaved rows (a lane per row).
    auto taps_of = [&](int e) {
      __m128 acc = _mm_mul_ps(_mm_load_ps(Ib + (size_t)si[e] * 4), _mm_set1_ps(al[e]));
      for (int k = 1; k < T; ++k)
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_load_ps(Ib + (size_t)si[k * width + e] * 4),
                                         _mm_set1_ps(al[k * width + e])));
      return acc;
    };
    for (int r0 = 0; r0 < sh_; r0 += 4) {
      const uint8_t* R[4];
      for (int k = 0; k < 4; ++k) R[k] = src + (size_t)std::min(r0 + k, sh_ - 1) * sw;
      int x = 0;
      for (; x + 16 <= sw; x += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(R[0] + x));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(R[1] + x));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(R[2] + x));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(R[3] + x));
        const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        const __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
        const __m128i q[4] = {_mm_unpacklo_epi16(ab_lo, cd_lo), _mm_unpackhi_epi16(ab_lo, cd_lo),
                              _mm_unpacklo_epi16(ab_hi, cd_hi), _mm_unpackhi_epi16(ab_hi, cd_hi)};
        float* out = Ib + (size_t)x * 4;
        for (int k = 0; k < 4; ++k) {   // q[k]: columns x+4k..x+4k+3, four rows each
          const __m128i w_lo = _mm_unpacklo_epi8(q[k], zero), w_hi = _mm_unpackhi_epi8(q[k], zero);
          _mm_store_ps(out + 16 * k, _mm_cvtepi32_ps(_mm_unpacklo_epi16(w_lo, zero)));
          _mm_store_ps(out + 16 * k + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(w_lo, zero)));
          _mm_store_ps(out + 16 * k + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(w_hi, zero)));
          _mm_store_ps(out + 16 * k + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(w_hi, zero)));
        }
      }
      for (; x < sw; ++x)
        for (int k = 0; k < 4; ++k) Ib[(size_t)x * 4 + k] = (float)R[k][x];
      const int rows = std::min(4, sh_ - r0);
      int dx = 0;
      for (; dx + 4 <= width; dx += 4) {
        __m128 v[4];
        for (int j = 0; j < 4; ++j) v[j] = taps_of(dx + j);   // lanes: rows r0..r0+3
        _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);   // v[k]: row r0+k, elements dx..dx+3
        for (int k = 0; k < rows; ++k) _mm_storeu_ps(H + (size_t)(r0 + k) * width + dx, v[k]);
      }
      for (; dx < width; ++dx) {
        alignas(16) float lane[4];
        _mm_store_ps(lane, taps_of(dx));
        for (int k = 0; k < rows; ++k) H[(size_t)(r0 + k) * width + dx] = lane[k];
      }
    }
    // Vertical: y_begin_[d] .. y_begin_[d+1] are output row d's (row, weight) pairs in
    // the row table's order (run_general's order).
    for (int d = 0; d < dh_; ++d) {
      const int jb = y_begin_[(size_t)d], je = y_begin_[(size_t)d + 1];
      uint8_t* D = dst + (size_t)d * width;
      int dx = 0;
      for (; dx + 16 <= width; dx += 16) {
        __m128 s[4];
        {
          const __m128 beta = _mm_set1_ps(y_a_[(size_t)jb]);
          const float* h = H + (size_t)y_si_[(size_t)jb] * width + dx;
          for (int k = 0; k < 4; ++k) s[k] = _mm_mul_ps(beta, _mm_loadu_ps(h + 4 * k));
        }
        for (int j = jb + 1; j < je; ++j) {
          const __m128 beta = _mm_set1_ps(y_a_[(size_t)j]);
          const float* h = H + (size_t)y_si_[(size_t)j] * width + dx;
          for (int k = 0; k < 4; ++k) s[k] = _mm_add_ps(s[k], _mm_mul_ps(beta, _mm_loadu_ps(h + 4 * k)));
        }
        const __m128i lo = _mm_packs_epi32(_mm_cvtps_epi32(s[0]), _mm_cvtps_epi32(s[1]));
        const __m128i hi = _mm_packs_epi32(_mm_cvtps_epi32(s[2]), _mm_cvtps_epi32(s[3]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(D + dx), _mm_packus_epi16(lo, hi));
      }
      for (; dx < width; ++dx) {
        float sum = y_a_[(size_t)jb] * H[(size_t)y_si_[(size_t)jb] * width + dx];
        for (int j = jb + 1; j < je; ++j) sum += y_a_[(size_t)j] * H[(size_t)y_si_[(size_t)j] * width + dx];
        D[dx] = sat_u8(cv_round_float(sum));
      }
    }
  }
#endif

  // Per output element (dx * cn + c), its horizontal taps in OpenCV's order, padded.
  void build_taps() {
    const int width = dw_ * cn_;
    std::vector<int> count(dw_, 0);
    for (const AreaTab& t : xtab_) count[t.di / cn_]++;
    taps_ = 1;
    for (int c : count) taps_ = std::max(taps_, c);
    tap_si_.assign((size_t)taps_ * width, 0);
    tap_a_.assign((size_t)taps_ * width, 0.f);
    std::vector<int> filled(dw_, 0);
    for (const AreaTab& t : xtab_) {
      const int d = t.di / cn_;
      const int k = filled[d]++;
      for (int c = 0; c < cn_; ++c) {
        tap_si_[(size_t)k * width + t.di + c] = t.si + c;
        tap_a_[(size_t)k * width + t.di + c] = t.alpha;
      }
    }
    for (int d = 0; d < dw_; ++d)
      for (int k = filled[d]; k < taps_; ++k)
        for (int c = 0; c < cn_; ++c) tap_si_[(size_t)k * width + d * cn_ + c] = c;   // weight 0
  }

  int sh_ = 0, sw_ = 0, dh_ = 0, dw_ = 0, cn_ = 1;
  Mode mode_ = COPY;
  int isx_ = 1, isy_ = 1;
  std::vector<AreaTab> xtab_, ytab_;
  int taps_ = 1;
  std::vector<int> tap_si_;
  std::vector<float> tap_a_;
  std::vector<int> y_begin_, y_si_;   // the vertical table by output row (for plan())
  std::vector<float> y_a_;
};

}  // namespace vec
}  // namespace cule
