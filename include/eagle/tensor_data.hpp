// The values a user types for eagle::constant: a scalar or a nested braced list of scalars, as
// torch::tensor's TensorDataContainer. The dtype is inferred over every value at once, as
// tf.constant does for a Python list (rules at TensorData::inferred_dtype).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/half.hpp"
#include "eagle/shape.hpp"

namespace eagle {

// The C++ types that can be one value of a tensor.
template <class T>
inline constexpr bool is_element_type_v =
    std::is_arithmetic_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

class TensorData {
 public:
  // `{}`: an empty list, shape (0,), float32 as tf.constant([]).
  TensorData() = default;

  // One value. Its C++ type says what it infers to on its own: floating -> float32 (float16 and
  // bfloat16 keep theirs), signed up to 32 bits -> int32, 64-bit or unsigned 32-bit and wider ->
  // int64, bool -> bool.
  template <class T, class = std::enable_if_t<is_element_type_v<T>>>
  TensorData(T value) : TensorData(make_scalar(value)) {}  // NOLINT: implicit by design

  // One string (dtype string): constant("Hello from server2!").
  TensorData(const char* value) : TensorData(std::string(value)) {}  // NOLINT: implicit by design
  TensorData(std::string value)                                      // NOLINT: implicit by design
      : is_list_(false),
        kind_(Kind::kString),
        natural_(DType::kString),
        string_(std::move(value)) {}

  // A list of one element type ({1.0, 2.0}); taken before the general form below because it
  // needs no conversion per element.
  template <class T, class = std::enable_if_t<is_element_type_v<T>>>
  TensorData(std::initializer_list<T> values) : is_list_(true) {  // NOLINT
    items_.reserve(values.size());
    for (const T& v : values) items_.push_back(make_scalar(v));
  }

  // A list of values or of nested lists ({0.5, 1}, {{1, 2}, {3, 4}}).
  TensorData(std::initializer_list<TensorData> items)  // NOLINT
      : is_list_(true), items_(items) {}

  bool is_scalar() const { return !is_list_; }

  // The nested lists' lengths: () for a scalar. A list whose items differ in shape is
  // InvalidArgumentError "Can't convert non-rectangular Python sequence to Tensor. ...".
  Shape shape() const;

  // The dtype tf.constant would give: all strings -> string, all bool -> bool (bool next to a
  // number, or a string next to anything else, is InvalidArgumentError "Can't convert Python
  // sequence with mixed types to Tensor. ..."); any
  // floating value -> float32 (float16 or bfloat16 when every value is one); integers -> int32,
  // or int64 when any value's C++ type is 64-bit or unsigned (an unsigned value above 2^63-1 is
  // InvalidArgumentError); an empty list -> float32.
  DType inferred_dtype() const;

  // The values in row-major order, encoded as `dtype`. A value that `dtype` cannot hold exactly
  // (1.5 or 2^40 as int32, NaN as an integer) is InvalidArgumentError
  // "Cannot convert <v> to EagerTensor of dtype <dtype>".
  std::vector<unsigned char> to_bytes(DType dtype) const;
  // The strings in row-major order; a value that is not a string is InvalidArgumentError
  // "Cannot convert 1 to EagerTensor of dtype string".
  std::vector<std::string> to_strings() const;
  std::int64_t num_values() const;

 private:
  enum class Kind : std::uint8_t { kBoolean, kSigned, kUnsigned, kFloating, kString };

  template <class T>
  static TensorData make_scalar(T value) {
    TensorData d;
    d.is_list_ = false;
    if constexpr (std::is_same_v<T, bool>) {
      d.kind_ = Kind::kBoolean;
      d.natural_ = DType::kBool;
      d.signed_ = value;
    } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      d.kind_ = Kind::kFloating;
      d.natural_ = dtype_of_v<T>;
      d.floating_ = static_cast<double>(static_cast<float>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      d.kind_ = Kind::kFloating;
      d.floating_ = static_cast<double>(value);
    } else if constexpr (std::is_signed_v<T>) {
      d.kind_ = Kind::kSigned;
      d.natural_ = sizeof(T) <= 4 ? DType::kInt32 : DType::kInt64;
      d.signed_ = static_cast<std::int64_t>(value);
    } else {
      d.kind_ = Kind::kUnsigned;
      d.natural_ = sizeof(T) < 4 ? DType::kInt32 : DType::kInt64;
      d.unsigned_ = static_cast<std::uint64_t>(value);
    }
    return d;
  }

  template <class Fn>
  void for_each_scalar(Fn&& fn) const;

  bool is_list_ = true;  // a default TensorData is the empty list
  Kind kind_ = Kind::kFloating;
  DType natural_ = DType::kFloat32;
  std::int64_t signed_ = 0;  // kSigned and kBoolean
  std::uint64_t unsigned_ = 0;
  double floating_ = 0;
  std::string string_;  // kString
  std::vector<TensorData> items_;
};

}  // namespace eagle
