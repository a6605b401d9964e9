// Element types and the mapping between C++ types and eagle::DType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>

#include "eagle/half.hpp"

namespace eagle {

// Order matters only for table sizes; kNumDTypes must stay last.
enum class DType : std::uint8_t {
  kFloat32,
  kFloat64,
  kInt32,
  kInt64,
  kBool,
  kFloat16,
  kBFloat16,
  // Byte strings (TensorFlow's tf.string), each element a std::string; CPU only, never a number
  // (Note [String tensors] in runtime/tensor_impl.cpp).
  kString,
};
inline constexpr int kNumDTypes = 8;

// Convenience constants in libtorch's spelling (torch::kFloat32): they never collide with type
// names such as C++23's std::float16_t, and eagle::float16 stays the storage type.
inline constexpr DType kFloat32 = DType::kFloat32;
inline constexpr DType kFloat64 = DType::kFloat64;
inline constexpr DType kInt32 = DType::kInt32;
inline constexpr DType kInt64 = DType::kInt64;
inline constexpr DType kBool = DType::kBool;
inline constexpr DType kFloat16 = DType::kFloat16;
inline constexpr DType kBFloat16 = DType::kBFloat16;
inline constexpr DType kString = DType::kString;  // not eagle::string: std::string is everywhere

// TensorFlow's spelling: eagle::float32 reads like tf.float32.
inline constexpr DType float32 = DType::kFloat32;
inline constexpr DType float64 = DType::kFloat64;
inline constexpr DType int32 = DType::kInt32;
inline constexpr DType int64 = DType::kInt64;
// These read like types (float16_t is one in C++23) and bool_ is not TF's name either.
[[deprecated("use eagle::kBool")]] inline constexpr DType bool_ = DType::kBool;
[[deprecated("use eagle::kFloat16")]] inline constexpr DType float16_t = DType::kFloat16;
[[deprecated("use eagle::kBFloat16")]] inline constexpr DType bfloat16_t = DType::kBFloat16;

// NumPy / tf.DType.name spelling: "float32", "int64", "bool", "float16", "bfloat16", "string".
std::string_view dtype_name(DType dtype);
// TensorFlow's DataTypeString spelling used inside runtime messages: "float", "double", "half".
std::string_view dtype_runtime_name(DType dtype);
std::size_t dtype_size(DType dtype);
bool is_floating(DType dtype);
bool is_integer(DType dtype);
// Prints dtype_name(): "float32" (fmt: include eagle/format.hpp).
std::ostream& operator<<(std::ostream& os, DType dtype);

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> : std::integral_constant<DType, DType::kFloat32> {};
template <>
struct dtype_of<double> : std::integral_constant<DType, DType::kFloat64> {};
template <>
struct dtype_of<std::int32_t> : std::integral_constant<DType, DType::kInt32> {};
template <>
struct dtype_of<std::int64_t> : std::integral_constant<DType, DType::kInt64> {};
template <>
struct dtype_of<bool> : std::integral_constant<DType, DType::kBool> {};
template <>
struct dtype_of<float16> : std::integral_constant<DType, DType::kFloat16> {};
template <>
struct dtype_of<bfloat16> : std::integral_constant<DType, DType::kBFloat16> {};
template <>
struct dtype_of<std::string> : std::integral_constant<DType, DType::kString> {};

template <class T>
inline constexpr DType dtype_of_v = dtype_of<T>::value;

// InvalidArgumentError: `what` (an op, a routine) works on numbers and booleans, not strings.
[[noreturn]] void throw_string_not_supported(std::string_view what);

// Calls fn(T{}) with T the C++ type of dtype: the one switch every type-generic routine uses.
// Numbers and booleans only: for kString it throws (throw_string_not_supported), so a numeric
// routine never treats a string's bytes as values.
template <class Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      return fn(float{});
    case DType::kFloat64:
      return fn(double{});
    case DType::kInt32:
      return fn(std::int32_t{});
    case DType::kInt64:
      return fn(std::int64_t{});
    case DType::kBool:
      return fn(bool{});
    case DType::kFloat16:
      return fn(float16{});
    case DType::kString:
      throw_string_not_supported("This numeric routine");
    case DType::kBFloat16:
      break;
  }
  return fn(bfloat16{});
}

}  // namespace eagle
