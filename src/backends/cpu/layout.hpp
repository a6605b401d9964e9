// Data movement kernels, generic over the element size (1, 2, 4 or 8 bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"

namespace eagle::cpu {

// out[i_perm...] = in[i...]: out's dimension k is in's dimension perm[k].
void transpose(const void* in, const Shape& in_shape, const std::vector<int>& perm,
               std::size_t element_size, void* out);

// Concatenates inputs (same rank, equal dims except `axis`) along `axis` into `out`.
void concat(const std::vector<const void*>& inputs, const std::vector<Shape>& shapes, int axis,
            std::size_t element_size, void* out);

// Copies the box [begin, begin + size) of `in` into `out` (row-major, shape `size`).
void slice(const void* in, const Shape& in_shape, const std::vector<std::int64_t>& begin,
           const Shape& size, std::size_t element_size, void* out);

}  // namespace eagle::cpu
