// Test helpers for mirrored variables: are all of a variable's components the same bits?
#pragma once

#include <cstring>
#include <vector>

#include "eagle/eagle.hpp"

namespace eagle_test {

// float32 tensors of one shape holding the same bits.
inline bool same_bits(const eagle::Tensor& a, const eagle::Tensor& b) {
  const std::vector<float> x = a.to_vector<float>();
  const std::vector<float> y = b.to_vector<float>();
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

// Every component of `v` holds the same bits as component 0.
inline bool components_identical(const eagle::Variable& v) {
  const std::vector<eagle::Variable> c = v.components();
  for (std::size_t i = 1; i < c.size(); ++i) {
    if (!same_bits(c[0].read_value(), c[i].read_value())) return false;
  }
  return true;
}

}  // namespace eagle_test
