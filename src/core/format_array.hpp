// NumPy-compatible text for a block of host values: what `str(np.array(...))` prints with
// NumPy's default print options (precision=8, threshold=1000, edgeitems=3, linewidth=75,
// floatmode='maxprec', suppress=False, sign='-').
#pragma once

#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::detail {

// `host_data` points at shape.num_elements() contiguous row-major values of `dtype` (bool as one
// byte holding 0 or 1; float16 / bfloat16 as eagle::float16 / eagle::bfloat16).
//
//   rank 0   the scalar alone, as str(np.float32(3)) prints it: "3.0", "5", "True", "1e+20"
//   empty    "[]" whatever the shape
//   else     "[[22. 28.]\n [49. 64.]]", wrapped at 75 columns, and abbreviated with "..."
//            (three items at each edge of every axis) when there are more than 1000 elements
//
// float16 prints as np.float16 does; bfloat16 prints its value as np.float32 would.
std::string format_array(DType dtype, const Shape& shape, const void* host_data);

// What repr(np.array(...)) prints: "array([1., 2.], dtype=float32)", the dtype left out where
// NumPy infers it (float64, int64, bool); a scalar as str() prints it ("1.0", as TensorFlow's
// variable repr shows a 0-d value).
std::string format_array_repr(DType dtype, const Shape& shape, const void* host_data);

// format_array for strings (dtype string): each element as Python's bytes repr, b'text', not
// aligned, as str() of a NumPy array of bytes prints them.
std::string format_string_array(const Shape& shape, const std::string* values);

// A tensor's values copied to the host in the layout format_array reads.
std::vector<unsigned char> host_bytes(const Tensor& t);

}  // namespace eagle::detail
