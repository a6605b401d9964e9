// The CPU loop behind every elementwise binary op: NumPy broadcasting without materializing
// broadcast inputs. Fast paths for equal shapes and scalar operands; otherwise dimensions are
// collapsed and the innermost one runs as a flat loop with input strides of 0 or 1.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/intra_op_pool.hpp"
#include "cpu/isa.hpp"
#include "cpu/numeric.hpp"
#include "cpu/streaming_stores.hpp"
#include "eagle/shape.hpp"

namespace eagle::cpu {

// How much more work per element a functor does than an add, for the intra-op split (Note
// [Intra-op parallelism]): a functor with transcendental math says so with `kCost`.
template <class F, class = void>
struct functor_cost : std::integral_constant<std::int64_t, 1> {};
template <class F>
struct functor_cost<F, std::void_t<decltype(F::kCost)>>
    : std::integral_constant<std::int64_t, F::kCost> {};

namespace detail {
EAGLE_CPU_ISA_BEGIN

template <class In, class Out, class F>
inline void inner_loop(const In* __restrict x, std::int64_t sx, const In* __restrict y,
                       std::int64_t sy, Out* __restrict out, std::int64_t n, F f) {
  using C = compute_t<In>;
  if (sx == 1 && sy == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = convert<Out>(f(C(x[i]), C(y[i])));
  } else if (sx == 0 && sy == 1) {
    const C a = C(x[0]);
    for (std::int64_t i = 0; i < n; ++i) out[i] = convert<Out>(f(a, C(y[i])));
  } else if (sx == 1 && sy == 0) {
    const C b = C(y[0]);
    for (std::int64_t i = 0; i < n; ++i) out[i] = convert<Out>(f(C(x[i]), b));
  } else {
    const Out v = convert<Out>(f(C(x[0]), C(y[0])));
    for (std::int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

#if defined(__SSE2__)
template <class In, class Out, class F>
void contiguous_streaming(const In* __restrict x, const In* __restrict y, Out* __restrict out,
                          std::int64_t n, F f) {
  using C = compute_t<In>;
  // 16 bytes of output at a time, built in registers and streamed; a cache line per step.
  static_assert(16 % sizeof(Out) == 0);
  constexpr std::int64_t kVec = 16 / static_cast<std::int64_t>(sizeof(Out));
  constexpr std::int64_t kLine = 4 * kVec;
  std::int64_t i = 0;
  // Plain stores up to the first 16-byte boundary (none for the allocator's 64-byte blocks).
  while (i < n && reinterpret_cast<std::uintptr_t>(out + i) % 16 != 0) ++i;
  inner_loop(x, 1, y, 1, out, i, f);
  for (; i + kLine <= n; i += kLine) {
    for (std::int64_t q = i; q < i + kLine; q += kVec) {
      alignas(16) Out v[kVec];
      for (std::int64_t k = 0; k < kVec; ++k) v[k] = convert<Out>(f(C(x[q + k]), C(y[q + k])));
      __m128i bits;
      std::memcpy(&bits, v, 16);
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + q), bits);
    }
  }
  inner_loop(x + i, 1, y + i, 1, out + i, n - i, f);
  _mm_sfence();  // order the streamed lines before the output is published
}
#endif

EAGLE_CPU_ISA_END
}  // namespace detail

EAGLE_CPU_ISA_BEGIN

// out (shape `os`) = f(x, y) with x, y broadcast to `os` (already validated). Large outputs are
// split over the intra-op threads (Note [Intra-op parallelism]).
template <class In, class Out, class F>
void broadcast_apply(const In* x, const Shape& xs, const In* y, const Shape& ys, Out* out,
                     const Shape& os, F f) {
  const std::int64_t n = os.num_elements();
  if (n == 0) return;
  constexpr std::int64_t kBytes = 2 * sizeof(In) + sizeof(Out);  // memory one item touches
  constexpr std::int64_t kItemBytes = kBytes * functor_cost<F>::value;
  // Range starts 64 items apart: threads never write to the same cache line.
  constexpr std::int64_t kAlign = 64;
  // An input with the output's element count has its flat layout (broadcasting only added size-1
  // dimensions) and is walked with stride 1; a single value is broadcast with stride 0. When both
  // inputs are one or the other, the op is one flat loop.
  const auto flat_stride = [&](const Shape& s) -> std::int64_t {
    if (s == os) return 1;
    const std::int64_t count = s.num_elements();
    return count == n ? 1 : count == 1 ? 0 : -1;
  };
  const std::int64_t step_x = flat_stride(xs), step_y = flat_stride(ys);
  if (step_x >= 0 && step_y >= 0) {
#if defined(__SSE2__)
    // Streamed when the working set would not stay cached (Note [Streaming stores]).
    if (step_x == 1 && step_y == 1 && streaming_stores_pay_off(n * kBytes)) {
      return parallel_for(
          n, kItemBytes,
          [&](std::int64_t b, std::int64_t e) {
            detail::contiguous_streaming(x + b, y + b, out + b, e - b, f);
          },
          kAlign);
    }
#endif
    return parallel_for(
        n, kItemBytes,
        [&](std::int64_t b, std::int64_t e) {
          detail::inner_loop(x + b * step_x, step_x, y + b * step_y, step_y, out + b, e - b, f);
        },
        kAlign);
  }

  // Strides (in elements) of x and y over the output's dimensions: 0 where broadcast.
  constexpr int kMax = Shape::kMaxRank;
  std::array<std::int64_t, kMax> dims{}, stride_x{}, stride_y{};
  int rank = 0;
  {
    std::int64_t px = 1, py = 1;
    std::array<std::int64_t, kMax> sx{}, sy{};
    for (int i = os.rank() - 1; i >= 0; --i) {
      const int ix = xs.rank() - os.rank() + i, iy = ys.rank() - os.rank() + i;
      const std::int64_t dx = ix >= 0 ? xs[ix] : 1, dy = iy >= 0 ? ys[iy] : 1;
      sx[i] = dx == 1 ? 0 : px;
      sy[i] = dy == 1 ? 0 : py;
      px *= dx;
      py *= dy;
    }
    // Collapse: dimension i merges into the one after it when both inputs walk them as one.
    for (int i = 0; i < os.rank(); ++i) {
      if (os[i] == 1) continue;  // contributes nothing
      if (rank > 0) {
        const int p = rank - 1;
        const bool mergeable_x = stride_x[p] == sx[i] * os[i];
        const bool mergeable_y = stride_y[p] == sy[i] * os[i];
        if (mergeable_x && mergeable_y) {
          dims[p] *= os[i];
          stride_x[p] = sx[i];
          stride_y[p] = sy[i];
          continue;
        }
      }
      dims[rank] = os[i];
      stride_x[rank] = sx[i];
      stride_y[rank] = sy[i];
      ++rank;
    }
  }
  const int last = rank - 1;
  const std::int64_t inner = dims[last];
  // Rows [r0, r1) of `inner` outputs each; the odometer over the outer dimensions starts at r0.
  const auto rows = [&](std::int64_t r0, std::int64_t r1) {
    std::array<std::int64_t, kMax> index{};
    std::int64_t offset_x = 0, offset_y = 0;
    for (std::int64_t d = last - 1, rest = r0; d >= 0; --d) {
      index[d] = rest % dims[d];
      rest /= dims[d];
      offset_x += index[d] * stride_x[d];
      offset_y += index[d] * stride_y[d];
    }
    for (std::int64_t r = r0; r < r1; ++r) {
      detail::inner_loop(x + offset_x, stride_x[last], y + offset_y, stride_y[last],
                         out + r * inner, inner, f);
      // Advance the outer odometer.
      for (int d = last - 1; d >= 0; --d) {
        offset_x += stride_x[d];
        offset_y += stride_y[d];
        if (++index[d] < dims[d]) break;
        offset_x -= stride_x[d] * dims[d];
        offset_y -= stride_y[d] * dims[d];
        index[d] = 0;
      }
    }
  };
  // Whole rows per thread unless rows are shorter than a cache line.
  parallel_for(n / inner, inner * kItemBytes, rows, std::max<std::int64_t>(1, kAlign / inner));
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
