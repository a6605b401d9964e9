// Note [Direct max pooling]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// float32 MaxPool and MaxPoolGrad in the oneDNN provider (Note [Convolution providers]) are these
// kernels, not oneDNN's. oneDNN 2.6's float32 max pooling drops NaN (Note [MaxPool and NaN]), so
// every batch block had to be scanned for one first (5% of the seed CNN's training step), and its
// backward pass reran the forward for a workspace of argmax positions.
//  - The channels are the vector dimension, 16 lanes at a time (GCC's generic vectors, compiled
//    in each CPU variant), contiguous in NHWC.
//  - Each output's lanes take the window's elements in row-major order with the reference's
//    rule (a larger value or a NaN replaces the maximum), so the results are the reference's
//    bits, NaN included. VALID 2x2 and 3x3 windows have their size at compile time.
//  - The input is read one window row at a time, in memory order, with the next output row's
//    window rows prefetched: an image row is a short stream, and in a training step the pooled
//    activations come from memory (reading them window by window had made the first pooling of
//    the seed CNN slower than oneDNN's, which ran after the NaN scan had cached them).
//  - MaxPoolGrad finds each window's first maximum (or first NaN) as a window index per lane.
//    Where windows do not overlap (stride >= window in both dimensions, Keras's default), each
//    input element is written once: the gradient where it is its window's pick, zero elsewhere
//    and where no window reaches, so no pass zeroes the output first; threads split the output
//    rows, each owning the input rows up to the next one's windows. Overlapping windows zero an
//    image and add in the reference's window order, one image per thread.
// Every output element is computed by one thread, so the bits do not depend on the thread count
// or the CPU variant (max_pool_direct_test, cpu_variant_test). Measured in docs/performance.md,
// "Direct max pooling and fused convolutions".
#include "cpu/max_pool_direct.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/intra_op_pool.hpp"
#include "cpu/lanes.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using opdefs::Pool2DAttrs;
using std::int64_t;

using namespace simd;  // NOLINT: the vector helpers of cpu/lanes.hpp

// The input rows and columns under the window of output (oh, ow), clipped to the input (SAME's
// padding holds no elements); never empty, as SAME pads less than a window on each side.
struct Window {
  int64_t h0, h1, w0, w1;
};

EAGLE_ALWAYS_INLINE Window window_of(const opdefs::Pool2DAttrs& a, int64_t oh, int64_t ow) {
  const int64_t hs = oh * a.stride_h - a.pad_top, ws = ow * a.stride_w - a.pad_left;
  return {std::max<int64_t>(hs, 0), std::min(hs + a.window_h, a.in_height),
          std::max<int64_t>(ws, 0), std::min(ws + a.window_w, a.in_width)};
}

// The reference's step: x replaces the maximum when larger or NaN (so the last NaN is kept).
EAGLE_ALWAYS_INLINE Lanes pool_step(const Lanes& best, const Lanes& x) {
  return ((x > best) | (x != x)) ? x : best;
}

// The pick's step: x becomes the window's pick when larger, or when it is the first NaN.
EAGLE_ALWAYS_INLINE Mask takes_over(const Lanes& best, const Lanes& x) {
  return (x > best) | ((x != x) & (best == best));
}

// A window's rows and columns: kSize x kSize known at compile time where no window is clipped
// (VALID 2x2 and 3x3, the common pools), else the clipped window's (kSize 0).
template <int kSize>
struct Extent {
  int64_t rows, cols;
  explicit Extent(const Window& w)
      : rows(kSize ? kSize : w.h1 - w.h0), cols(kSize ? kSize : w.w1 - w.w0) {}
};

// Asks for the window rows of output row r + 1 (of the batch) while row r is computed: the
// input rows' short streams (one image row each) start before the loads reach them.
EAGLE_ALWAYS_INLINE void prefetch_next_rows(const opdefs::Pool2DAttrs& a, const float* input,
                                            int64_t r, int64_t end) {
  if (r + 1 >= end) return;
  const int64_t n = (r + 1) / a.out_height, oh = (r + 1) % a.out_height;
  const Window rows = window_of(a, oh, 0);
  const int64_t row = a.in_width * a.channels;
  const char* first = reinterpret_cast<const char*>(input + (n * a.in_height + rows.h0) * row);
  const int64_t bytes = (rows.h1 - rows.h0) * row * static_cast<int64_t>(sizeof(float));
  for (int64_t at = 0; at < bytes; at += 64) __builtin_prefetch(first + at, 0, 3);
}

// ---- MaxPool -----------------------------------------------------------------------------------

// Output rows [begin, end) of the batch. The window rows are read one input row at a time, in
// memory order (a stream the hardware prefetches), each window's maximum carried in the output
// row between them: each window still takes its elements in row-major order.
template <bool kWhole, int kSize>
void pool_rows(const opdefs::Pool2DAttrs& a, const float* input, float* output, int64_t begin,
               int64_t end) {
  const int64_t C = a.channels, row = a.in_width * C;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t n = r / a.out_height, oh = r % a.out_height;
    const float* image = input + n * a.in_height * row;
    float* out = output + r * a.out_width * C;
    prefetch_next_rows(a, input, r, end);
    const Window rows = window_of(a, oh, 0);
    const int64_t num_rows = Extent<kSize>(rows).rows;
    for (int64_t i = 0; i < num_rows; ++i) {
      const float* line = image + (rows.h0 + i) * row;
      for (int64_t ow = 0; ow < a.out_width; ++ow) {
        const Window w = window_of(a, oh, ow);
        const int64_t cols = Extent<kSize>(w).cols;
        const float* at = line + w.w0 * C;
        for (int64_t c = 0; c < C; c += kLanes) {
          const int64_t lanes = lanes_at<kWhole>(c, C);
          Lanes best = load(i == 0 ? at + c : out + ow * C + c, lanes);
          for (int64_t x = 0; x < cols; ++x) best = pool_step(best, load(at + x * C + c, lanes));
          store(out + ow * C + c, best, lanes);
        }
      }
    }
  }
}

// ---- MaxPoolGrad -------------------------------------------------------------------------------

// Where each window of output row oh (of one image) takes its gradient, per vector of channels:
// where[ow * vectors + v] is the row-major index in the (clipped) window of its first maximum or
// first NaN, lane by lane. The window rows are read one input row at a time, in memory order,
// each window's best value carried in `best` between them.
template <bool kWhole, int kSize>
void find_picks(const opdefs::Pool2DAttrs& a, const float* image, int64_t oh, Lanes* best,
                Mask* where) {
  const int64_t C = a.channels, row = a.in_width * C, vectors = (C + kLanes - 1) / kLanes;
  const Window rows = window_of(a, oh, 0);
  const int64_t num_rows = Extent<kSize>(rows).rows;
  for (int64_t i = 0; i < num_rows; ++i) {
    const float* line = image + (rows.h0 + i) * row;
    for (int64_t ow = 0; ow < a.out_width; ++ow) {
      const Window w = window_of(a, oh, ow);
      const int64_t cols = Extent<kSize>(w).cols;
      const float* at = line + w.w0 * C;
      for (int64_t v = 0; v < vectors; ++v) {
        const int64_t c = v * kLanes, lanes = lanes_at<kWhole>(c, C), slot = ow * vectors + v;
        Lanes b = i == 0 ? load(at + c, lanes) : best[slot];
        Mask pick = i == 0 ? Mask{} : where[slot];
        for (int64_t x = 0; x < cols; ++x) {
          const Lanes value = load(at + x * C + c, lanes);
          const Mask take = takes_over(b, value);
          b = take ? value : b;
          pick = take ? Mask{} + static_cast<std::int32_t>(i * cols + x) : pick;
        }
        best[slot] = b;
        where[slot] = pick;
      }
    }
  }
}

// Windows that do not overlap: output rows [begin, end) of the batch. Each output row owns the
// input rows from its windows' first row (0 for the first) to the next output row's (the input's
// end for the last), so every input element is written by one thread, once: the gradient at each
// pick and zero everywhere else, including where no window reaches, row by row in memory order.
template <bool kWhole, int kSize>
void grad_rows_disjoint(const opdefs::Pool2DAttrs& a, const float* input, const float* grad,
                        float* input_grad, int64_t begin, int64_t end) {
  const int64_t C = a.channels, row = a.in_width * C, vectors = (C + kLanes - 1) / kLanes;
  std::vector<Lanes> best(static_cast<std::size_t>(a.out_width * vectors));
  std::vector<Mask> where(best.size());
  for (int64_t r = begin; r < end; ++r) {
    const int64_t n = r / a.out_height, oh = r % a.out_height;
    float* image_grad = input_grad + n * a.in_height * row;
    prefetch_next_rows(a, input, r, end);
    find_picks<kWhole, kSize>(a, input + n * a.in_height * row, oh, best.data(), where.data());
    const Window rows = window_of(a, oh, 0);
    const int64_t first = oh == 0 ? 0 : oh * a.stride_h - a.pad_top;
    const int64_t last = oh == a.out_height - 1 ? a.in_height : (oh + 1) * a.stride_h - a.pad_top;
    const float* g = grad + r * a.out_width * C;
    for (int64_t h = first; h < last; ++h) {
      float* line = image_grad + h * row;
      if (h < rows.h0 || h >= rows.h1) {
        std::fill(line, line + row, 0.0f);
        continue;
      }
      const int64_t i = h - rows.h0;
      int64_t column = 0;  // the first column after the last window written
      for (int64_t ow = 0; ow < a.out_width; ++ow) {
        const Window w = window_of(a, oh, ow);
        const int64_t cols = Extent<kSize>(w).cols;
        std::fill(line + column * C, line + w.w0 * C, 0.0f);
        column = w.w1;
        float* at = line + w.w0 * C;
        for (int64_t v = 0; v < vectors; ++v) {
          const int64_t c = v * kLanes, lanes = lanes_at<kWhole>(c, C);
          const Mask pick = where[static_cast<std::size_t>(ow * vectors + v)];
          // + 0 as the reference's zeroed output plus the gradient: -0 becomes +0.
          const Lanes value = load(g + ow * C + c, lanes) + Lanes{};
          for (int64_t x = 0; x < cols; ++x) {
            const Mask here = pick == static_cast<std::int32_t>(i * cols + x);
            store(at + x * C + c, here ? value : Lanes{}, lanes);
          }
        }
      }
      std::fill(line + column * C, line + row, 0.0f);
    }
  }
}

// Overlapping windows: images [begin, end), each zeroed, then every window adds its gradient to
// its pick, output row by output row and window by window: the reference's order of additions.
template <bool kWhole, int kSize>
void grad_images_overlapping(const opdefs::Pool2DAttrs& a, const float* input, const float* grad,
                             float* input_grad, int64_t begin, int64_t end) {
  const int64_t C = a.channels, row = a.in_width * C, vectors = (C + kLanes - 1) / kLanes;
  std::vector<Lanes> best(static_cast<std::size_t>(a.out_width * vectors));
  std::vector<Mask> where(best.size());
  for (int64_t n = begin; n < end; ++n) {
    float* image_grad = input_grad + n * a.in_height * row;
    std::fill(image_grad, image_grad + a.in_height * row, 0.0f);
    for (int64_t oh = 0; oh < a.out_height; ++oh) {
      find_picks<kWhole, kSize>(a, input + n * a.in_height * row, oh, best.data(), where.data());
      const Window rows = window_of(a, oh, 0);
      const int64_t num_rows = Extent<kSize>(rows).rows;
      const float* g = grad + (n * a.out_height + oh) * a.out_width * C;
      for (int64_t i = 0; i < num_rows; ++i) {
        float* line = image_grad + (rows.h0 + i) * row;
        for (int64_t ow = 0; ow < a.out_width; ++ow) {
          const Window w = window_of(a, oh, ow);
          const int64_t cols = Extent<kSize>(w).cols;
          float* at = line + w.w0 * C;
          for (int64_t v = 0; v < vectors; ++v) {
            const int64_t c = v * kLanes, lanes = lanes_at<kWhole>(c, C);
            const Mask pick = where[static_cast<std::size_t>(ow * vectors + v)];
            const Lanes value = load(g + ow * C + c, lanes);
            for (int64_t x = 0; x < cols; ++x) {
              const Lanes sum = load(at + x * C + c, lanes);
              const Mask here = pick == static_cast<std::int32_t>(i * cols + x);
              store(at + x * C + c, here ? sum + value : sum, lanes);
            }
          }
        }
      }
    }
  }
}

// ---- The two ops -------------------------------------------------------------------------------

// Bytes one output row moves: its windows' input rows read, plus its outputs.
int64_t row_bytes(const opdefs::Pool2DAttrs& a) {
  return (std::min(a.window_h, a.in_height) * a.in_width + 2 * a.out_width) * a.channels *
         static_cast<int64_t>(sizeof(float));
}

template <bool kWhole, int kSize>
struct MaxPool {
  static void run(const opdefs::Pool2DAttrs& a, const float* input, float* output) {
    parallel_for(a.batch * a.out_height, row_bytes(a), [&](int64_t begin, int64_t end) {
      pool_rows<kWhole, kSize>(a, input, output, begin, end);
    });
  }
};

template <bool kWhole, int kSize>
struct MaxPoolGrad {
  static void run(const opdefs::Pool2DAttrs& a, const float* input, const float* grad,
                  float* input_grad) {
    if (a.stride_h >= a.window_h && a.stride_w >= a.window_w) {
      // The input rows are read and written: twice a row's bytes.
      parallel_for(a.batch * a.out_height, 2 * row_bytes(a), [&](int64_t begin, int64_t end) {
        grad_rows_disjoint<kWhole, kSize>(a, input, grad, input_grad, begin, end);
      });
      return;
    }
    parallel_for(a.batch, 2 * a.out_height * row_bytes(a), [&](int64_t begin, int64_t end) {
      grad_images_overlapping<kWhole, kSize>(a, input, grad, input_grad, begin, end);
    });
  }
};

// Op<kWhole, kSize>::run: kWhole where the channels are whole vectors, kSize 2 or 3 for VALID
// windows of that size (never clipped), else 0.
template <template <bool, int> class Op, class... Args>
void dispatch(const opdefs::Pool2DAttrs& a, Args... args) {
  const auto run = [&](auto whole) {
    constexpr bool kWhole = decltype(whole)::value;
    const bool square = !a.same && a.window_h == a.window_w;
    if (square && a.window_h == 2) return Op<kWhole, 2>::run(a, args...);
    if (square && a.window_h == 3) return Op<kWhole, 3>::run(a, args...);
    Op<kWhole, 0>::run(a, args...);
  };
  if (a.channels % kLanes == 0) return run(std::true_type{});
  run(std::false_type{});
}

void max_pool(const opdefs::Pool2DAttrs& a, const float* input, float* output) {
  dispatch<MaxPool>(a, input, output);
}

void max_pool_grad(const opdefs::Pool2DAttrs& a, const float* input, const float* grad,
                   float* input_grad) {
  dispatch<MaxPoolGrad>(a, input, grad, input_grad);
}

const MaxPoolKernels kKernels{max_pool, max_pool_grad};

}  // namespace

void use_direct_max_pool_kernels() { detail::set_direct_max_pool_kernels(&kKernels); }

#if defined(EAGLE_CPU_ISA_LIBRARY_COMPILE)
namespace {
std::atomic<const MaxPoolKernels*> active_kernels{&kKernels};
}  // namespace
#endif

EAGLE_CPU_ISA_END

#if defined(EAGLE_CPU_ISA_LIBRARY_COMPILE)
const MaxPoolKernels& direct_max_pool_kernels() {
  return *active_kernels.load(std::memory_order_acquire);
}

namespace detail {
void set_direct_max_pool_kernels(const MaxPoolKernels* kernels) {
  active_kernels.store(kernels, std::memory_order_release);
}
}  // namespace detail
#endif

}  // namespace eagle::cpu
