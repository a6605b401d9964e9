// Inputs and result samples that every implementation in bench/compare shares (Note [Shared
// benchmark inputs]; the Python twin is bench/cpu_cases.py, and the two must stay identical).
//
// Note [Shared benchmark inputs]
// bench/compare runs eagle, NumPy, TensorFlow and JAX in separate processes and checks every
// result against one float64 reference. So that no input data crosses a process boundary, every
// implementation computes the same float32 inputs from an index hash:
//   h = uint32(i) * 0x9E3779B1 + uint32(seed) * 0x85EBCA77        (mod 2^32)
//   h ^= h >> 16; h *= 0x7FEB352D; h ^= h >> 15; h *= 0x846CA68B; h ^= h >> 16   (mod 2^32)
//   value = float32(lo + (hi - lo) * double(h >> 8) * 2^-24)
// and reports its output only at a few flat indices, sample_indices(n): k = min(n, 64) indices
// j * (n - 1) / (k - 1) for j in [0, k) (integer division; {0} when n == 1). The reference needs
// only the inputs those outputs depend on, which it regenerates by index: a row of A and a
// column of B for a matmul entry, a column for an axis-0 sum, and so on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/ops.hpp"

namespace bench {

inline float shared_input(std::uint64_t index, std::uint32_t seed, double lo, double hi) {
  std::uint32_t h = static_cast<std::uint32_t>(index) * 0x9E3779B1u + seed * 0x85EBCA77u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return static_cast<float>(lo + (hi - lo) * static_cast<double>(h >> 8) * 0x1p-24);
}

inline std::vector<float> shared_inputs(std::int64_t n, std::uint32_t seed, double lo, double hi) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<std::size_t>(i)] = shared_input(static_cast<std::uint64_t>(i), seed, lo, hi);
  }
  return v;
}

// The shared inputs in [-1, 1) as an eagle tensor of `shape` (on the current device).
inline eagle::Tensor shared_tensor(const eagle::Shape& shape, std::uint32_t seed) {
  return eagle::constant(shared_inputs(shape.num_elements(), seed, -1.0, 1.0), shape);
}

inline std::vector<std::int64_t> sample_indices(std::int64_t n) {
  if (n <= 1) return std::vector<std::int64_t>(static_cast<std::size_t>(n), 0);
  const std::int64_t k = n < 64 ? n : 64;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(k));
  for (std::int64_t j = 0; j < k; ++j) idx[static_cast<std::size_t>(j)] = j * (n - 1) / (k - 1);
  return idx;
}

// The JSON array of a float32 result at sample_indices(values.size()); 9 significant digits
// print every float32 exactly.
inline std::string sample_json(const std::vector<float>& values) {
  std::string out = "[";
  const auto idx = sample_indices(static_cast<std::int64_t>(values.size()));
  for (std::size_t j = 0; j < idx.size(); ++j) {
    if (j) out += ", ";
    out += fmt::format("{:.9g}", values[static_cast<std::size_t>(idx[j])]);
  }
  return out + "]";
}

}  // namespace bench
