// Note [Narrow convolutions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A network's first convolution sees the image's 1 to 4 channels, and oneDNN 2.6 (Debian's) has
// no good kernel for it: on the seed CNN's first layer (28x28x1 -> 32, batch 128, one thread)
// its backprop-input took 4.0 ms for 50 MFLOP, and its forward and filter gradient trailed
// PyTorch's (docs/performance.md). These kernels compute such convolutions directly, without
// im2col, and are what the oneDNN provider runs for them (Note [Convolution providers]):
//  - The output channels are the vector dimension, 16 lanes at a time (GCC's generic vectors:
//    one AVX-512 register, two AVX2 ones, four SSE2 ones), contiguous in NHWC and HWIO.
//  - Conv2D: each output pixel's lanes sum the products of its taps that lie inside the input,
//    in (kh, kw, channel) order. Inner pixels (no tap in the padding) run in register tiles of
//    pixels x vectors sharing each weight load; border pixels skip the padding's taps.
//  - Backprop-input is gathered, not scattered (no two threads write one element): each input
//    pixel sums, lane by lane, the output gradient times the filter over the taps that reach it
//    and the vectors of output channels, then adds its 16 lanes in a fixed tree (8, 4, 2, 1
//    apart).
//  - Backprop-filter keeps a tile of filter taps x vectors of output channels in registers over
//    a block of output rows, adding each pixel's products in row and column order; each block
//    writes its own partial sums, which are added in block order. The blocks depend on the
//    geometry alone.
// Every sum thus has an order fixed by the geometry: results are the same on any thread count and
// in every CPU variant (lanes are elementwise, tiles only group independent sums, and
// -ffp-contract=off keeps multiplies and adds apart), which nn_conv_test and cpu_variant_test
// check. They differ from the reference's im2col + GEMM in rounding only.
#include "cpu/conv_narrow.hpp"

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <vector>

#include "cpu/conv_epilogue.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/lanes.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using opdefs::Conv2DAttrs;
using std::int64_t;

using namespace simd;  // NOLINT: the vector helpers of cpu/lanes.hpp

// The multiply-adds one item (row) of work does, counted as this many bytes by parallel_for.
constexpr int64_t kBytesPerMac = 4;

// Register tiles: how many vectors of sums an inner loop keeps in flight, sized to the variant's
// registers (32 zmm, 16 ymm, 16 xmm; a Lanes value takes 1, 2 or 4 of them).
#if defined(__AVX512F__)
constexpr int kPixels = 4, kVectors = 2, kFilterTaps = 9;
#elif defined(__AVX2__)
constexpr int kPixels = 4, kVectors = 1, kFilterTaps = 3;
#else
constexpr int kPixels = 2, kVectors = 1, kFilterTaps = 2;
#endif

// The lanes' sum in a fixed tree (lane j plus lane j + 8, then + 4, + 2, + 1): whatever the
// registers, the same additions in the same order. Each step adds v to itself rotated.
static_assert(kLanes == 16, "sum_lanes's rotations are written for 16 lanes");
#if defined(__clang__)
#define EAGLE_ROTATED(v, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#else
typedef int LaneIndex __attribute__((vector_size(kLanes * sizeof(int))));
#define EAGLE_ROTATED(v, ...) __builtin_shuffle(v, LaneIndex{__VA_ARGS__})
#endif
EAGLE_ALWAYS_INLINE float sum_lanes(const Lanes& lanes) {
  Lanes v = lanes;
  v += EAGLE_ROTATED(v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  v += EAGLE_ROTATED(v, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3);
  v += EAGLE_ROTATED(v, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1);
  v += EAGLE_ROTATED(v, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0);
  return v[0];
}
#undef EAGLE_ROTATED

// The geometry in locals (the kernels' stores cannot alias them, so they stay in registers).
struct Geometry {
  int64_t in_h, in_w, k_h, k_w, out_c, out_h, out_w;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
  // Output columns all of whose taps lie inside the input: [inner_begin, inner_end).
  int64_t inner_begin, inner_end;
};

Geometry geometry_of(const opdefs::Conv2DAttrs& a) {
  Geometry g{a.in_height,
             a.in_width,
             a.filter_height,
             a.filter_width,
             a.out_channels,
             a.out_height,
             a.out_width,
             a.stride_h,
             a.stride_w,
             a.dilation_h,
             a.dilation_w,
             a.pad_top,
             a.pad_left,
             0,
             0};
  // ow * stride - pad >= 0, and ow * stride - pad + (k_w - 1) * dilation <= in_w - 1.
  g.inner_begin = std::min(g.out_w, (g.pad_l + g.stride_w - 1) / g.stride_w);
  const int64_t last = g.in_w - 1 - (g.k_w - 1) * g.dil_w + g.pad_l;
  g.inner_end = last < 0 ? 0 : std::min(g.out_w, last / g.stride_w + 1);
  g.inner_end = std::max(g.inner_end, g.inner_begin);
  return g;
}

// ---- Conv2D -------------------------------------------------------------------------------------

// One output pixel some of whose taps fall outside the input (skipped), channels [co, co + lanes).
template <int C>
void conv2d_border_pixel(const Geometry& g, const float* image, const float* filter, int64_t oh,
                         int64_t ow, int64_t co, int64_t lanes, float* out_row) {
  Lanes acc = {};
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    const int64_t ih = oh * g.stride_h - g.pad_t + kh * g.dil_h;
    if (ih < 0 || ih >= g.in_h) continue;
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      const int64_t iw = ow * g.stride_w - g.pad_l + kw * g.dil_w;
      if (iw < 0 || iw >= g.in_w) continue;
      const float* x = image + (ih * g.in_w + iw) * C;
      const float* taps = filter + (kh * g.k_w + kw) * C * g.out_c + co;
      for (int c = 0; c < C; ++c) acc += x[c] * load(taps + c * g.out_c, lanes);
    }
  }
  store(out_row + ow * g.out_c + co, acc, lanes);
}

// P inner pixels of a row (every tap inside the input), V vectors of channels from co. `base` is
// the offset in `image` of pixel 0's first tap (which may lie in the padding); taps[t] is the
// offset of the row's t-th valid tap from it, tap_filter[t] that tap's offset in the filter.
template <int C, int P, int V>
EAGLE_ALWAYS_INLINE void conv2d_inner_pixels(const Geometry& g, const float* image, int64_t base,
                                             const int64_t* taps, const int64_t* tap_filter,
                                             int64_t num_taps, const float* filter, int64_t co,
                                             int64_t lanes, float* out) {
  Lanes acc[P][V] = {};
  const int64_t pixel_step = g.stride_w * C;
  for (int64_t t = 0; t < num_taps; ++t) {
    const float* xt = image + (base + taps[t]);
    const float* wt = filter + tap_filter[t] + co;
    for (int c = 0; c < C; ++c) {
      Lanes w[V];
      for (int v = 0; v < V; ++v) w[v] = load(wt + c * g.out_c + v * kLanes, lanes);
      for (int p = 0; p < P; ++p) {
        const float xv = xt[p * pixel_step + c];
        for (int v = 0; v < V; ++v) acc[p][v] += xv * w[v];
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    for (int v = 0; v < V; ++v) store(out + p * g.out_c + co + v * kLanes, acc[p][v], lanes);
  }
}

// Output rows [row_begin, row_end), each finished by the epilogue while in cache (Note [Fused
// convolutions]).
template <int C, bool kWhole>
void conv2d_rows(const Geometry& g, const float* input, const float* filter,
                 const ConvEpilogue& epilogue, float* output, int64_t row_begin, int64_t row_end) {
  std::vector<int64_t> taps, tap_filter;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t n = r / g.out_h, oh = r % g.out_h;
    const float* image = input + n * g.in_h * g.in_w * C;
    float* out_row = output + r * g.out_w * g.out_c;
    // The row's taps that lie inside the input (all of them, for inner columns).
    taps.clear();
    tap_filter.clear();
    const int64_t ih0 = oh * g.stride_h - g.pad_t;
    for (int64_t kh = 0; kh < g.k_h; ++kh) {
      const int64_t ih = ih0 + kh * g.dil_h;
      if (ih < 0 || ih >= g.in_h) continue;
      for (int64_t kw = 0; kw < g.k_w; ++kw) {
        taps.push_back((kh * g.dil_h * g.in_w + kw * g.dil_w) * C);
        tap_filter.push_back((kh * g.k_w + kw) * C * g.out_c);
      }
    }
    const int64_t num_taps = static_cast<int64_t>(taps.size());
    const int64_t base = (ih0 * g.in_w - g.pad_l) * C;  // column 0's first tap
    int64_t co = 0;
    if (kWhole) {  // V vectors at a time
      for (; co + kVectors * kLanes <= g.out_c; co += kVectors * kLanes) {
        int64_t ow = g.inner_begin;
        for (; ow + kPixels <= g.inner_end; ow += kPixels) {
          conv2d_inner_pixels<C, kPixels, kVectors>(g, image, base + ow * g.stride_w * C,
                                                    taps.data(), tap_filter.data(), num_taps,
                                                    filter, co, kLanes, out_row + ow * g.out_c);
        }
        for (; ow < g.inner_end; ++ow) {
          conv2d_inner_pixels<C, 1, kVectors>(g, image, base + ow * g.stride_w * C, taps.data(),
                                              tap_filter.data(), num_taps, filter, co, kLanes,
                                              out_row + ow * g.out_c);
        }
      }
    }
    for (; co < g.out_c; co += kLanes) {  // one vector at a time
      const int64_t lanes = lanes_at<kWhole>(co, g.out_c);
      int64_t ow = g.inner_begin;
      for (; ow + kPixels <= g.inner_end; ow += kPixels) {
        conv2d_inner_pixels<C, kPixels, 1>(g, image, base + ow * g.stride_w * C, taps.data(),
                                           tap_filter.data(), num_taps, filter, co, lanes,
                                           out_row + ow * g.out_c);
      }
      for (; ow < g.inner_end; ++ow) {
        conv2d_inner_pixels<C, 1, 1>(g, image, base + ow * g.stride_w * C, taps.data(),
                                     tap_filter.data(), num_taps, filter, co, lanes,
                                     out_row + ow * g.out_c);
      }
    }
    for (int64_t c0 = 0; c0 < g.out_c; c0 += kLanes) {
      const int64_t lanes = lanes_at<kWhole>(c0, g.out_c);
      for (int64_t ow = 0; ow < g.inner_begin; ++ow) {
        conv2d_border_pixel<C>(g, image, filter, oh, ow, c0, lanes, out_row);
      }
      for (int64_t ow = g.inner_end; ow < g.out_w; ++ow) {
        conv2d_border_pixel<C>(g, image, filter, oh, ow, c0, lanes, out_row);
      }
    }
    apply_conv_epilogue(epilogue, out_row, g.out_w, g.out_c);
  }
}

// ---- Conv2DBackpropInput ------------------------------------------------------------------------

// The output position a tap reaches from input position `in` (oh from ih, or ow from iw), or -1.
EAGLE_ALWAYS_INLINE int64_t reached(int64_t in, int64_t pad, int64_t k, int64_t dilation,
                                    int64_t stride, int64_t out_size) {
  const int64_t t = in + pad - k * dilation;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t o = t / stride;
  return o < out_size ? o : -1;
}

// Input pixels [iw0, iw0 + P) of a row, every channel: each sums, lane by lane, over the taps
// that reach it and the vectors of output channels, then adds its lanes (sum_lanes). reach(t, p)
// is the offset in the image's gradients of the output pixel that tap t reaches from pixel p, or
// -1; tap_filter[t] is the tap's offset in the filter.
template <int C, int P, bool kWhole, class Reach>
EAGLE_ALWAYS_INLINE void backprop_input_pixels(const Geometry& g, const float* grads,
                                               const float* filter, const int64_t* tap_filter,
                                               int64_t num_taps, Reach reach, float* dx) {
  Lanes acc[P][C] = {};
  for (int64_t t = 0; t < num_taps; ++t) {
    int64_t at[P];
    for (int p = 0; p < P; ++p) at[p] = reach(t, p);
    const float* wt = filter + tap_filter[t];
    for (int64_t co = 0; co < g.out_c; co += kLanes) {
      const int64_t lanes = lanes_at<kWhole>(co, g.out_c);
      Lanes w[C];
      for (int c = 0; c < C; ++c) w[c] = load(wt + c * g.out_c + co, lanes);
      for (int p = 0; p < P; ++p) {
        if (at[p] < 0) continue;
        const Lanes dy = load(grads + at[p] + co, lanes);
        for (int c = 0; c < C; ++c) acc[p][c] += dy * w[c];
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) dx[p * C + c] = sum_lanes(acc[p][c]);
  }
}

template <int C, bool kWhole>
void backprop_input_rows(const Geometry& g, const float* filter, const float* out_backprop,
                         float* input_backprop, int64_t row_begin, int64_t row_end) {
  // With a column stride of 1, input column iw reaches output column iw + pad - kw * dilation:
  // all taps reach one for iw in [inner_begin, inner_end).
  const bool unit_stride = g.stride_w == 1;
  const int64_t inner_begin =
      unit_stride ? std::clamp<int64_t>((g.k_w - 1) * g.dil_w - g.pad_l, 0, g.in_w) : g.in_w;
  const int64_t inner_end =
      unit_stride ? std::clamp<int64_t>(g.out_w - g.pad_l, inner_begin, g.in_w) : g.in_w;
  std::vector<int64_t> tap_oh, tap_kw, tap_filter;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t n = r / g.in_h, ih = r % g.in_h;
    const float* grads = out_backprop + n * g.out_h * g.out_w * g.out_c;
    float* dx_row = input_backprop + r * g.in_w * C;
    // The taps whose row reaches an output row from ih.
    tap_oh.clear();
    tap_kw.clear();
    tap_filter.clear();
    for (int64_t kh = 0; kh < g.k_h; ++kh) {
      const int64_t oh = reached(ih, g.pad_t, kh, g.dil_h, g.stride_h, g.out_h);
      if (oh < 0) continue;
      for (int64_t kw = 0; kw < g.k_w; ++kw) {
        tap_oh.push_back(oh);
        tap_kw.push_back(kw);
        tap_filter.push_back((kh * g.k_w + kw) * C * g.out_c);
      }
    }
    const int64_t num_taps = static_cast<int64_t>(tap_oh.size());
    const auto checked = [&](int64_t iw0) {
      return [&, iw0](int64_t t, int p) {
        const int64_t ow = reached(iw0 + p, g.pad_l, tap_kw[t], g.dil_w, g.stride_w, g.out_w);
        return ow < 0 ? int64_t{-1} : (tap_oh[t] * g.out_w + ow) * g.out_c;
      };
    };
    int64_t iw = 0;
    if (unit_stride) {
      for (; iw < inner_begin; ++iw) {
        backprop_input_pixels<C, 1, kWhole>(g, grads, filter, tap_filter.data(), num_taps,
                                            checked(iw), dx_row + iw * C);
      }
      for (; iw + kPixels <= inner_end; iw += kPixels) {
        const auto unchecked = [&, iw](int64_t t, int p) {
          return (tap_oh[t] * g.out_w + iw + p + g.pad_l - tap_kw[t] * g.dil_w) * g.out_c;
        };
        backprop_input_pixels<C, kPixels, kWhole>(g, grads, filter, tap_filter.data(), num_taps,
                                                  unchecked, dx_row + iw * C);
      }
    } else {
      for (; iw + kPixels <= g.in_w; iw += kPixels) {
        backprop_input_pixels<C, kPixels, kWhole>(g, grads, filter, tap_filter.data(), num_taps,
                                                  checked(iw), dx_row + iw * C);
      }
    }
    for (; iw < g.in_w; ++iw) {
      backprop_input_pixels<C, 1, kWhole>(g, grads, filter, tap_filter.data(), num_taps,
                                          checked(iw), dx_row + iw * C);
    }
  }
}

// ---- Conv2DBackpropFilter -----------------------------------------------------------------------

// The filter's elements as taps t = (kh, kw, c) in HWI order, padded with dummy taps (row and
// column offset 0, never stored) to whole tiles of kFilterTaps: each one's offset from a pixel's
// first tap in the input, and its row and column offsets (for the border checks).
struct FilterTaps {
  int64_t count = 0;  // the real ones
  std::vector<int64_t> offset, dh, dw;
};

FilterTaps filter_taps(const Geometry& g, int64_t channels) {
  FilterTaps taps;
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      for (int64_t c = 0; c < channels; ++c) {
        taps.offset.push_back((kh * g.dil_h * g.in_w + kw * g.dil_w) * channels + c);
        taps.dh.push_back(kh * g.dil_h);
        taps.dw.push_back(kw * g.dil_w);
      }
    }
  }
  taps.count = static_cast<int64_t>(taps.offset.size());
  while (taps.offset.size() % kFilterTaps != 0) {
    taps.offset.push_back(0);
    taps.dh.push_back(0);
    taps.dw.push_back(0);
  }
  return taps;
}

// The sums of filter taps [t0, t0 + kFilterTaps) times output channels [co, co + V vectors) over
// output rows [row_begin, row_end), in row and column order, written to `partial` (HWIO).
template <int C, int V>
void backprop_filter_tile(const Geometry& g, const FilterTaps& taps, const float* input,
                          const float* out_backprop, int64_t row_begin, int64_t row_end, int64_t t0,
                          int64_t co, int64_t lanes, float* partial) {
  Lanes acc[kFilterTaps][V] = {};
  const int64_t* offset = taps.offset.data() + t0;
  const int64_t* tap_dh = taps.dh.data() + t0;
  const int64_t* tap_dw = taps.dw.data() + t0;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t n = r / g.out_h, oh = r % g.out_h;
    const float* image = input + n * g.in_h * g.in_w * C;
    const float* dy_row = out_backprop + r * g.out_w * g.out_c + co;
    const int64_t ih0 = oh * g.stride_h - g.pad_t;
    const bool inner_row = ih0 >= 0 && ih0 + (g.k_h - 1) * g.dil_h < g.in_h;
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      Lanes dy[V];
      for (int v = 0; v < V; ++v) dy[v] = load(dy_row + ow * g.out_c + v * kLanes, lanes);
      const int64_t iw0 = ow * g.stride_w - g.pad_l;
      const int64_t base = (ih0 * g.in_w + iw0) * C;  // the first tap's offset (maybe padding)
      const bool inner = inner_row && ow >= g.inner_begin && ow < g.inner_end;
      for (int q = 0; q < kFilterTaps; ++q) {
        if (!inner) {
          const int64_t ih = ih0 + tap_dh[q], iw = iw0 + tap_dw[q];
          if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) continue;
        }
        const float xv = image[base + offset[q]];
        for (int v = 0; v < V; ++v) acc[q][v] += xv * dy[v];
      }
    }
  }
  const int64_t count = std::min<int64_t>(kFilterTaps, taps.count - t0);
  for (int q = 0; q < count; ++q) {
    for (int v = 0; v < V; ++v) {
      store(partial + (t0 + q) * g.out_c + co + v * kLanes, acc[q][v], lanes);
    }
  }
}

template <int C, bool kWhole>
void backprop_filter_rows(const Geometry& g, const FilterTaps& taps, const float* input,
                          const float* out_backprop, int64_t row_begin, int64_t row_end,
                          float* partial) {
  for (int64_t t0 = 0; t0 < taps.count; t0 += kFilterTaps) {
    int64_t co = 0;
    if (kWhole) {
      for (; co + kVectors * kLanes <= g.out_c; co += kVectors * kLanes) {
        backprop_filter_tile<C, kVectors>(g, taps, input, out_backprop, row_begin, row_end, t0, co,
                                          kLanes, partial);
      }
    }
    for (; co < g.out_c; co += kLanes) {
      backprop_filter_tile<C, 1>(g, taps, input, out_backprop, row_begin, row_end, t0, co,
                                 lanes_at<kWhole>(co, g.out_c), partial);
    }
  }
}

// ---- The three ops ------------------------------------------------------------------------------

// Each op as Op<C, kWhole>::run (dispatch, below, picks C and kWhole).
template <int C, bool kWhole>
struct Forward {
  static void run(const opdefs::Conv2DAttrs& a, const float* input, const float* filter,
                  const ConvEpilogue& epilogue, float* output) {
    const Geometry g = geometry_of(a);
    const int64_t row_macs = g.out_w * g.k_h * g.k_w * C * g.out_c;
    parallel_for(a.batch * g.out_h, kBytesPerMac * row_macs, [&](int64_t begin, int64_t end) {
      conv2d_rows<C, kWhole>(g, input, filter, epilogue, output, begin, end);
    });
  }
};

template <int C, bool kWhole>
struct BackpropInput {
  static void run(const opdefs::Conv2DAttrs& a, const float* filter, const float* out_backprop,
                  float* input_backprop) {
    const Geometry g = geometry_of(a);
    const int64_t row_macs = g.in_w * g.k_h * g.k_w * C * g.out_c;
    parallel_for(a.batch * g.in_h, kBytesPerMac * row_macs, [&](int64_t begin, int64_t end) {
      backprop_input_rows<C, kWhole>(g, filter, out_backprop, input_backprop, begin, end);
    });
  }
};

template <int C, bool kWhole>
struct BackpropFilter {
  static void run(const opdefs::Conv2DAttrs& a, const float* input, const float* out_backprop,
                  float* filter_backprop) {
    const Geometry g = geometry_of(a);
    const FilterTaps taps = filter_taps(g, C);
    const int64_t filter_size = g.k_h * g.k_w * C * g.out_c;
    const int64_t rows = a.batch * g.out_h;
    // Blocks of at least 16 rows, at most 256 of them, their partial sums within 64 MiB.
    constexpr int64_t kMinRows = 16, kMaxBlocks = 256, kPartialFloats = int64_t{16} << 20;
    const int64_t max_blocks =
        std::clamp<int64_t>(kPartialFloats / std::max<int64_t>(filter_size, 1), 1, kMaxBlocks);
    const int64_t blocks = std::clamp<int64_t>((rows + kMinRows - 1) / kMinRows, 1, max_blocks);
    const int64_t rows_per_block = (rows + blocks - 1) / blocks;
    std::vector<float> partials(static_cast<std::size_t>(blocks * filter_size));
    const int64_t block_macs = rows_per_block * g.out_w * filter_size;
    parallel_for(blocks, kBytesPerMac * block_macs, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        backprop_filter_rows<C, kWhole>(g, taps, input, out_backprop, b * rows_per_block,
                                        std::min(rows, (b + 1) * rows_per_block),
                                        partials.data() + b * filter_size);
      }
    });
    std::copy(partials.begin(), partials.begin() + filter_size, filter_backprop);
    for (int64_t b = 1; b < blocks; ++b) {
      const float* partial = partials.data() + b * filter_size;
      for (int64_t k = 0; k < filter_size; ++k) filter_backprop[k] += partial[k];
    }
  }
};

// ---- Dispatch on the input depth ----------------------------------------------------------------

// Op<C, kWhole>::run for the input depth C, in its whole-vector form where the output channels
// are whole vectors.
template <template <int, bool> class Op, class... Args>
void dispatch(const opdefs::Conv2DAttrs& a, Args... args) {
  const auto run = [&](auto depth) {
    constexpr int C = decltype(depth)::value;
    if (a.out_channels % kLanes == 0) {
      Op<C, true>::run(a, args...);
    } else {
      Op<C, false>::run(a, args...);
    }
  };
  switch (a.in_channels) {
    case 1:
      return run(std::integral_constant<int, 1>{});
    case 2:
      return run(std::integral_constant<int, 2>{});
    case 3:
      return run(std::integral_constant<int, 3>{});
    default:
      return run(std::integral_constant<int, 4>{});
  }
}

void conv2d(const opdefs::Conv2DAttrs& a, const float* x, const float* f, const ConvEpilogue& e,
            float* y) {
  dispatch<Forward>(a, x, f, e, y);
}
void backprop_input(const opdefs::Conv2DAttrs& a, const float* f, const float* dy, float* dx) {
  dispatch<BackpropInput>(a, f, dy, dx);
}
void backprop_filter(const opdefs::Conv2DAttrs& a, const float* x, const float* dy, float* df) {
  dispatch<BackpropFilter>(a, x, dy, df);
}

const NarrowConvKernels kKernels{conv2d, backprop_input, backprop_filter};

}  // namespace

void use_narrow_conv_kernels() { detail::set_narrow_conv_kernels(&kKernels); }

#if defined(EAGLE_CPU_ISA_LIBRARY_COMPILE)
namespace {
std::atomic<const NarrowConvKernels*> active_kernels{&kKernels};
}  // namespace
#endif

EAGLE_CPU_ISA_END

#if defined(EAGLE_CPU_ISA_LIBRARY_COMPILE)
const NarrowConvKernels& narrow_conv_kernels() {
  return *active_kernels.load(std::memory_order_acquire);
}

namespace detail {
void set_narrow_conv_kernels(const NarrowConvKernels* kernels) {
  active_kernels.store(kernels, std::memory_order_release);
}
}  // namespace detail
#endif

}  // namespace eagle::cpu
