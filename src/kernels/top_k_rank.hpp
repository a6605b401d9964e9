// TopKV2's order and the rank arithmetic of its CUDA kernel (backends/cuda/sort_kernels.cu), shared
// with the CPU kernel and with host tests: the GPU kernel's element placement is tested without a
// GPU.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/host_device.hpp"

namespace eagle::kernels {

// Whether (a, ia) comes before (b, ib) in top_k's order: greater first, NaN above every number,
// equal values (and NaNs) in index order. C is the compute type (float for 16-bit floats).
template <class C>
EAGLE_HOST_DEVICE bool ranks_before(C a, std::int64_t ia, C b, std::int64_t ib) {
  if constexpr (!std::is_integral_v<C>) {
    const bool na = a != a, nb = b != b;  // NaN
    if (na || nb) return na && nb ? ia < ib : na;
  }
  if (a != b) return a > b;
  return ia < ib;
}

// The number of elements of a row that come before element i; value(j) reads element j.
template <class Value>
EAGLE_HOST_DEVICE std::int64_t rank_in_row(const Value& value, std::int64_t columns,
                                           std::int64_t i) {
  const auto v = value(i);
  std::int64_t rank = 0;
  for (std::int64_t j = 0; j < columns; ++j) {
    if (ranks_before(value(j), j, v, i)) ++rank;
  }
  return rank;
}

// With the k-th best element t known: whether element i is among the k best, and its position
// among them in index order (top_k's sorted=false).
template <class Value>
EAGLE_HOST_DEVICE bool among_best(const Value& value, std::int64_t i, std::int64_t t) {
  return i == t || ranks_before(value(i), i, value(t), t);
}
template <class Value>
EAGLE_HOST_DEVICE std::int64_t position_in_index_order(const Value& value, std::int64_t i,
                                                       std::int64_t t) {
  std::int64_t position = 0;
  for (std::int64_t j = 0; j < i; ++j) {
    if (among_best(value, j, t)) ++position;
  }
  return position;
}

}  // namespace eagle::kernels
