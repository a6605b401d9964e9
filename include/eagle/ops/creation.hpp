// Creation ops: constant, zeros/ones/fill, range, random numbers, identity, cast.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "eagle/tensor_data.hpp"

namespace eagle {

// Constants are data, not ops: they print no placement line. Without a scope they live on CPU:0;
// under a scope on the scope's device (see Note [Constant placement] in src/ops/creation_ops.cpp).
//
// `values` is a scalar or a nested braced list; its dtype is inferred as tf.constant infers it
// (TensorData::inferred_dtype): constant({0.5, 1}) is float32, constant({{1, 2}, {3, 4}}) int32
// of shape (2, 2), constant(3LL) int64, constant({true, false}) bool. An explicit dtype wins,
// and a value it cannot hold exactly is InvalidArgumentError. A shape reshapes the values (a
// count that does not fit is InvalidArgumentError) or, for a single value, fills it:
//   constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});   constant(2.0, {2, 3});
Tensor constant(const TensorData& values, const ShapeArg& shape = {},
                std::optional<DType> dtype = {});
// constant({{1, 2}}, eagle::kFloat64): a dtype without a shape. A template so that `{}` in
// constant(x, {}) still means "no shape" and never a value-initialised DType.
template <class D, class = std::enable_if_t<std::is_same_v<D, DType>>>
Tensor constant(const TensorData& values, D dtype) {
  return constant(values, ShapeArg(), std::optional<DType>(dtype));
}
// Typed containers keep their type: std::vector<double> is float64, std::vector<long> int64,
// std::vector<std::string> string. (A template, so that constant({"a", "b"}) stays TensorData's.)
template <class T, class = std::enable_if_t<is_element_type_v<T> || std::is_same_v<T, std::string>>>
Tensor constant(const std::vector<T>& values, const ShapeArg& shape = {});
// Raw form used by the others and by interop (for dtype string, `data` points at std::strings):
// `data` holds `count` values of `dtype`. A count that does not fit `shape` is InvalidArgumentError
// naming both; a single value fills the shape.
Tensor constant_from_buffer(const void* data, std::int64_t count, DType dtype, const Shape& shape);

Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32);
Tensor ones(const Shape& shape, DType dtype = DType::kFloat32);
Tensor fill(const Shape& shape, double value, DType dtype = DType::kFloat32);
// [start, limit) in steps of delta, like tf.range. Integral arguments give int32, floating ones
// float32, unless dtype says otherwise.
Tensor range(double start, double limit, double delta = 1, DType dtype = DType::kFloat32);
Tensor range(int limit);
Tensor range(int start, int limit, int delta = 1);
// Counter-based (Philox4x32-10): one seed gives the same values on every device and thread
// count. The seed an op draws with follows Note [Global and op seeds] (eagle/random_seed.hpp):
// without an op seed or a global one, each call draws a fresh one.
Tensor random_uniform(const Shape& shape, double minval = 0, double maxval = 1,
                      DType dtype = DType::kFloat32, std::optional<std::uint64_t> seed = {});
Tensor random_normal(const Shape& shape, double mean = 0, double stddev = 1,
                     DType dtype = DType::kFloat32, std::optional<std::uint64_t> seed = {});
// tf.random.truncated_normal: normal values, those more than two standard deviations from the
// mean drawn again (op TruncatedNormal). The same values on every device for one seed.
Tensor truncated_normal(const Shape& shape, double mean = 0, double stddev = 1,
                        DType dtype = DType::kFloat32, std::optional<std::uint64_t> seed = {});
// Copies x onto the current device (exempt from the explicit device policy).
Tensor identity(const Tensor& x);
// tf.identity_n: every input unchanged (op IdentityN), on the current device, in one op; its
// gradient passes each output's gradient to its input. An empty list gives an empty list.
std::vector<Tensor> identity_n(const std::vector<Tensor>& xs);
Tensor cast(const Tensor& x, DType dtype);

// ---- Template definitions ----------------------------------------------------------------------
template <class T, class>
Tensor constant(const std::vector<T>& values, const ShapeArg& shape) {
  const auto count = static_cast<std::int64_t>(values.size());
  const Shape s = shape ? *shape : Shape{count};
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::uint8_t> bytes(values.begin(), values.end());
    return constant_from_buffer(bytes.data(), count, DType::kBool, s);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return constant_from_buffer(values.data(), count, DType::kString, s);
  } else {
    using Stored = std::conditional_t<std::is_same_v<T, long long> || std::is_same_v<T, long>,
                                      std::int64_t, T>;
    static_assert(sizeof(Stored) == sizeof(T));
    return constant_from_buffer(values.data(), count, dtype_of_v<Stored>, s);
  }
}

}  // namespace eagle
