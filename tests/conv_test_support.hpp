// Helpers of the tests that compare convolution kernels with the reference kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "opdefs/attrs.hpp"

namespace eagle_test {

// got within 1e-5 of want, relative to each value plus the largest |want|.
inline bool close(const std::vector<float>& got, const std::vector<float>& want) {
  double scale = 0;
  for (float w : want) scale = std::max(scale, static_cast<double>(std::fabs(w)));
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > 1e-5 * (std::fabs(want[i]) + scale)) return false;
  }
  return true;
}

// SAME's padding (before, after) of one dimension, as conv_ops.cpp computes it; none for VALID.
inline std::pair<std::int64_t, std::int64_t> pads(bool same, std::int64_t in, std::int64_t out,
                                                  std::int64_t stride, std::int64_t extent) {
  const std::int64_t total = same ? std::max<std::int64_t>(0, (out - 1) * stride + extent - in) : 0;
  return {total / 2, total - total / 2};
}

// A's padding filled in from its padding mode, extents and output size, as the kernels get it.
inline eagle::opdefs::Conv2DAttrs with_padding(eagle::opdefs::Conv2DAttrs a) {
  const std::int64_t eh = (a.filter_height - 1) * a.dilation_h + 1;
  const std::int64_t ew = (a.filter_width - 1) * a.dilation_w + 1;
  std::tie(a.pad_top, a.pad_bottom) = pads(a.same, a.in_height, a.out_height, a.stride_h, eh);
  std::tie(a.pad_left, a.pad_right) = pads(a.same, a.in_width, a.out_width, a.stride_w, ew);
  return a;
}

}  // namespace eagle_test
