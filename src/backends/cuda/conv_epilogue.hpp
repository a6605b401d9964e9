// The bias and Relu _FusedConv2D applies to cuDNN's output (Note [Fused convolutions] in
// src/ops/conv_ops.cpp); BiasAdd's kernel in nn_kernels.cu, run in place.
#pragma once

#include <cstdint>

#include "eagle/dtype.hpp"
#include "kernel_launch.hpp"

namespace eagle::cuda {

// y[i] = relu?(y[i] + bias[i % channels]) over n elements of `dtype` (a floating type), in place,
// rounded as BiasAdd and Relu round; queued on the scope's stream.
void launch_conv_epilogue(const LaunchScope& scope, DType dtype, void* y, const void* bias,
                          std::int64_t n, std::int64_t channels, bool relu);

}  // namespace eagle::cuda
