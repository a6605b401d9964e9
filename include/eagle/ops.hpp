// Every op runs immediately through the dispatcher (placement, logging, kernel table).
// Op names in logs and errors are TensorFlow's (AddV2, MatMul, ...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/ops/sort.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle {

// ---- Creation ---------------------------------------------------------------------------------
// Constants are data, not ops: they print no placement line. Without a scope they live on CPU:0;
// under a scope on the scope's device (see Note [Constant placement] in src/ops/creation_ops.cpp).
// C++ floating literals make float32 (TensorFlow's and PyTorch's default float); typed
// containers keep their type. An optional shape reshapes the values (a count that does not
// fit is InvalidArgumentError) or, for a single value, fills it.
Tensor constant(std::initializer_list<double> values, const std::optional<Shape>& shape = {},
                std::optional<DType> dtype = {});
Tensor constant(std::initializer_list<std::initializer_list<double>> rows,
                std::optional<DType> dtype = {});
Tensor constant(std::initializer_list<int> values, const std::optional<Shape>& shape = {},
                std::optional<DType> dtype = {});
Tensor constant(std::initializer_list<bool> values, const std::optional<Shape>& shape = {});
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T> || std::is_same_v<T, float16> ||
                                            std::is_same_v<T, bfloat16>>>
Tensor constant(const std::vector<T>& values, const std::optional<Shape>& shape = {});
// A scalar, or `shape` filled with the value. double -> float32, int -> int32 unless dtype says.
Tensor constant(double value, const std::optional<Shape>& shape = {},
                std::optional<DType> dtype = {});
Tensor constant(float value, const std::optional<Shape>& shape = {});
Tensor constant(int value, const std::optional<Shape>& shape = {}, std::optional<DType> dtype = {});
Tensor constant(std::int64_t value, const std::optional<Shape>& shape = {});
Tensor constant(bool value, const std::optional<Shape>& shape = {});
// Raw form used by the others and by interop: `data` holds `count` values of `dtype`. A count
// that does not fit `shape` is InvalidArgumentError naming both; a single value fills the shape.
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
// count. Without a seed each call draws a fresh one.
Tensor random_uniform(const Shape& shape, double minval = 0, double maxval = 1,
                      DType dtype = DType::kFloat32, std::optional<std::uint64_t> seed = {});
Tensor random_normal(const Shape& shape, double mean = 0, double stddev = 1,
                     DType dtype = DType::kFloat32, std::optional<std::uint64_t> seed = {});
// Copies x onto the current device (exempt from the explicit device policy).
Tensor identity(const Tensor& x);
Tensor cast(const Tensor& x, DType dtype);

// ---- Elementwise binary (NumPy broadcasting) --------------------------------------------------
Tensor add(const Tensor& x, const Tensor& y);
Tensor subtract(const Tensor& x, const Tensor& y);
Tensor multiply(const Tensor& x, const Tensor& y);
// True division: integer inputs give float64, as tf.math.truediv does for int32/int64.
Tensor divide(const Tensor& x, const Tensor& y);
Tensor maximum(const Tensor& x, const Tensor& y);
Tensor minimum(const Tensor& x, const Tensor& y);
Tensor pow(const Tensor& x, const Tensor& y);
Tensor equal(const Tensor& x, const Tensor& y);
Tensor not_equal(const Tensor& x, const Tensor& y);
Tensor less(const Tensor& x, const Tensor& y);
Tensor less_equal(const Tensor& x, const Tensor& y);
Tensor greater(const Tensor& x, const Tensor& y);
Tensor greater_equal(const Tensor& x, const Tensor& y);

// ---- Elementwise unary -------------------------------------------------------------------------
Tensor negative(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);

// ---- Reductions --------------------------------------------------------------------------------
// Which axes to reduce. Default-constructed (or `{}`): all axes, like axis=None.
// Negative axes count from the end; repeated axes are an error.
class Axes {
 public:
  Axes() = default;
  Axes(int axis) : axes_{axis}, all_(false) {}  // NOLINT: implicit by design
  Axes(std::initializer_list<int> axes) : axes_(axes), all_(axes.size() == 0) {}
  Axes(std::vector<int> axes) : axes_(std::move(axes)), all_(false) {}  // NOLINT
  static Axes none() { return Axes(std::vector<int>{}); }
  bool all() const { return all_; }
  const std::vector<int>& list() const { return axes_; }

 private:
  std::vector<int> axes_;
  bool all_ = true;
};

Tensor reduce_sum(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_mean(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_max(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_min(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// Index of the largest value along `axis` (first on ties), as int64.
Tensor argmax(const Tensor& x, int axis = 0);

// ---- Linear algebra and friends ---------------------------------------------------------------
// 2-D: MatMul; rank >= 3 (batch dimensions broadcast): BatchMatMulV2.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
Tensor add_n(const std::vector<Tensor>& inputs);
Tensor softmax(const Tensor& logits);  // over the last axis

// ---- Shape ops ---------------------------------------------------------------------------------
Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape);  // one -1 allowed
Tensor transpose(const Tensor& x, const std::vector<int>& perm = {});     // {} reverses axes
Tensor expand_dims(const Tensor& x, int axis);
Tensor squeeze(const Tensor& x, const std::vector<int>& axes = {});  // {}: every size-1 axis
Tensor concat(const std::vector<Tensor>& values, int axis);
// size[i] == -1 takes everything from begin[i] to the end.
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size);

// ---- Operators ---------------------------------------------------------------------------------
inline Tensor operator+(const Tensor& x, const Tensor& y) { return add(x, y); }
inline Tensor operator-(const Tensor& x, const Tensor& y) { return subtract(x, y); }
inline Tensor operator*(const Tensor& x, const Tensor& y) { return multiply(x, y); }
inline Tensor operator/(const Tensor& x, const Tensor& y) { return divide(x, y); }
inline Tensor operator-(const Tensor& x) { return negative(x); }
inline Tensor operator==(const Tensor& x, const Tensor& y) { return equal(x, y); }
inline Tensor operator!=(const Tensor& x, const Tensor& y) { return not_equal(x, y); }
inline Tensor operator<(const Tensor& x, const Tensor& y) { return less(x, y); }
inline Tensor operator<=(const Tensor& x, const Tensor& y) { return less_equal(x, y); }
inline Tensor operator>(const Tensor& x, const Tensor& y) { return greater(x, y); }
inline Tensor operator>=(const Tensor& x, const Tensor& y) { return greater_equal(x, y); }

// A C++ number next to a tensor takes the tensor's dtype (as a Python scalar does in TF).
Tensor scalar_like(const Tensor& like, double value);
#define EAGLE_SCALAR_OPERATOR(op)                                       \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  Tensor operator op(const Tensor& x, S s) {                            \
    return x op scalar_like(x, static_cast<double>(s));                 \
  }                                                                     \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  Tensor operator op(S s, const Tensor& x) {                            \
    return scalar_like(x, static_cast<double>(s)) op x;                 \
  }
EAGLE_SCALAR_OPERATOR(+)
EAGLE_SCALAR_OPERATOR(-)
EAGLE_SCALAR_OPERATOR(*)
EAGLE_SCALAR_OPERATOR(/)
EAGLE_SCALAR_OPERATOR(==)
EAGLE_SCALAR_OPERATOR(!=)
EAGLE_SCALAR_OPERATOR(<)
EAGLE_SCALAR_OPERATOR(<=)
EAGLE_SCALAR_OPERATOR(>)
EAGLE_SCALAR_OPERATOR(>=)
#undef EAGLE_SCALAR_OPERATOR

// ---- Template definitions ----------------------------------------------------------------------
template <class T, class>
Tensor constant(const std::vector<T>& values, const std::optional<Shape>& shape) {
  const auto count = static_cast<std::int64_t>(values.size());
  const Shape s = shape ? *shape : Shape{count};
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::uint8_t> bytes(values.begin(), values.end());
    return constant_from_buffer(bytes.data(), count, DType::kBool, s);
  } else {
    using Stored = std::conditional_t<std::is_same_v<T, long long> || std::is_same_v<T, long>,
                                      std::int64_t, T>;
    static_assert(sizeof(Stored) == sizeof(T));
    return constant_from_buffer(values.data(), count, dtype_of_v<Stored>, s);
  }
}

}  // namespace eagle
