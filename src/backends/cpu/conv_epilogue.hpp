// The bias and Relu that _FusedConv2D applies to a convolution's float32 output while it is in
// cache (Note [Fused convolutions] in src/ops/conv_ops.cpp).
#pragma once

#include <cstdint>

#include "cpu/isa.hpp"

namespace eagle::cpu {

// No bias: a plain Conv2D.
struct ConvEpilogue {
  const float* bias = nullptr;  // [out_channels]
  bool relu = false;
};

EAGLE_CPU_ISA_BEGIN

// out[p, c] = relu?(out[p, c] + bias[c]) for `pixels` rows of `channels`: BiasAdd's sum and
// Relu's comparison (NaN passes), so the bits are the unfused ops'.
inline void apply_conv_epilogue(const ConvEpilogue& e, float* out, std::int64_t pixels,
                                std::int64_t channels) {
  if (e.bias == nullptr) return;
  const float* __restrict bias = e.bias;
  for (std::int64_t p = 0; p < pixels; ++p) {
    float* __restrict row = out + p * channels;
    if (e.relu) {
      for (std::int64_t c = 0; c < channels; ++c) {
        const float v = row[c] + bias[c];
        row[c] = v > 0.0f || v != v ? v : 0.0f;
      }
    } else {
      for (std::int64_t c = 0; c < channels; ++c) row[c] += bias[c];
    }
  }
}

EAGLE_CPU_ISA_END

}  // namespace eagle::cpu
