// Device helpers of the indexing ops shared with Einsum's kernel function
// (backends/cuda/einsum_kernel.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_launch.hpp"

namespace eagle::cuda {

// `rows` results of element type T (float, double, float16, bfloat16): the strided view
// (dims, strides in elements of `in`) of `in`, each run of `reduce` consecutive view elements
// summed (in float32 for 16-bit floats; zeros when reduce is 0), queued on the scope's stream.
template <class T>
void launch_strided_sum(const LaunchScope& scope, const void* in, std::int64_t in_elements,
                        const std::vector<std::int64_t>& dims,
                        const std::vector<std::int64_t>& strides, std::int64_t reduce,
                        std::int64_t rows, void* out);

// A (possibly batched) product as MatMul computes it: a [..., m, k], b [..., k, n] (either
// transposed), batch dimensions broadcast to out_shape's (backends/cuda/matmul_kernels.cpp).
template <class T>
void launch_matmul(const LaunchScope& scope, const T* a, const Shape& a_shape, const T* b,
                   const Shape& b_shape, bool transpose_a, bool transpose_b, T* out,
                   const Shape& out_shape);

}  // namespace eagle::cuda
