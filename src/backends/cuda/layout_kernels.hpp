// Data movement on a CUDA device, generic over the element size (1, 2, 4 or 8 bytes): the GPU
// twins of src/backends/cpu/layout.hpp, used by the shape ops and by reductions over interleaved
// axes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"
#include "kernel_launch.hpp"

namespace eagle::cuda {

// out[i_perm...] = in[i...] (out's dimension k is in's dimension perm[k]), queued on the scope's
// stream.
void launch_transpose(const LaunchScope& scope, const void* in, const Shape& in_shape,
                      const std::vector<int>& perm, std::size_t element_size, void* out);

// The box [begin, begin + size) of `in` into `out` (row-major, shape `size`).
void launch_slice(const LaunchScope& scope, const void* in, const Shape& in_shape,
                  const std::vector<std::int64_t>& begin, const Shape& size,
                  std::size_t element_size, void* out);

// out[j] = in[base + sum_d digit_d(j) * strides[d]] over the row-major `dims` (strides in
// elements, any sign; StridedSlice and Einsum's operand views).
void launch_strided_copy(const LaunchScope& scope, const void* in, std::int64_t in_elements,
                         std::int64_t base, const std::vector<std::int64_t>& dims,
                         const std::vector<std::int64_t>& strides, std::size_t element_size,
                         void* out);

// Inputs of equal rank, equal dims except `axis`, one after the other along `axis`: one 2-D copy
// (cudaMemcpy2DAsync) per input, no kernel.
void launch_concat(const LaunchScope& scope, const std::vector<const void*>& inputs,
                   const std::vector<Shape>& shapes, int axis, std::size_t element_size, void* out);

}  // namespace eagle::cuda
