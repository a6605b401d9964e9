// The CPU loop behind every elementwise binary op: NumPy broadcasting without materializing
// broadcast inputs. Fast paths for equal shapes and scalar operands; otherwise dimensions are
// collapsed and the innermost one runs as a flat loop with input strides of 0 or 1.
#pragma once

#include <array>
#include <cstdint>

#include "cpu/numeric.hpp"
#include "eagle/shape.hpp"

namespace eagle::cpu {

namespace detail {

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

}  // namespace detail

// out (shape `os`) = f(x, y) with x, y broadcast to `os` (already validated).
template <class In, class Out, class F>
void broadcast_apply(const In* x, const Shape& xs, const In* y, const Shape& ys, Out* out,
                     const Shape& os, F f) {
  const std::int64_t n = os.num_elements();
  if (n == 0) return;
  if (xs == ys) return detail::inner_loop(x, 1, y, 1, out, n, f);
  if (xs.num_elements() == 1) return detail::inner_loop(x, 0, y, 1, out, n, f);
  if (ys.num_elements() == 1) return detail::inner_loop(x, 1, y, 0, out, n, f);

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
  std::array<std::int64_t, kMax> index{};
  std::int64_t offset_x = 0, offset_y = 0;
  for (std::int64_t done = 0; done < n; done += inner) {
    detail::inner_loop(x + offset_x, stride_x[last], y + offset_y, stride_y[last], out + done,
                       inner, f);
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
}

}  // namespace eagle::cpu
