#include "eagle/tensor_data.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"

namespace eagle {
namespace {

// TensorFlow's texts (python/lib/core/py_seq_tensor.cc), followed by what exactly is wrong.
constexpr const char* kNonRectangular = "Can't convert non-rectangular Python sequence to Tensor.";
constexpr const char* kMixedTypes = "Can't convert Python sequence with mixed types to Tensor.";

[[noreturn]] void throw_cannot_convert(const std::string& value, DType dtype) {
  throw InvalidArgumentError(
      fmt::format("Cannot convert {} to EagerTensor of dtype {}", value, dtype_name(dtype)));
}

// An integer value `v` as T, refusing one outside T's range.
template <class T, class V>
T checked_integer(V v, DType dtype) {
  const bool fits = std::is_signed_v<V>
                        ? static_cast<std::int64_t>(v) >= std::numeric_limits<T>::lowest() &&
                              static_cast<std::int64_t>(v) <= std::numeric_limits<T>::max()
                        : static_cast<std::uint64_t>(v) <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  if (!fits) throw_cannot_convert(fmt::format("{}", v), dtype);
  return static_cast<T>(v);
}

}  // namespace

template <class Fn>
void TensorData::for_each_scalar(Fn&& fn) const {
  if (!is_list_) {
    fn(*this);
    return;
  }
  for (const TensorData& item : items_) item.for_each_scalar(fn);
}

Shape TensorData::shape() const {
  if (!is_list_) return Shape{};
  Shape out{static_cast<std::int64_t>(items_.size())};
  if (items_.empty()) return out;
  const Shape first = items_[0].shape();
  for (std::size_t i = 1; i < items_.size(); ++i) {
    const Shape other = items_[i].shape();
    if (other != first) {
      throw InvalidArgumentError(
          fmt::format("{} In a list, item {} has shape {} but item 0 has shape {}.",
                      kNonRectangular, i, other.to_tuple_string(), first.to_tuple_string()));
    }
  }
  for (const std::int64_t d : first) out.push_back(d);
  return out;
}

std::int64_t TensorData::num_values() const {
  std::int64_t count = 0;
  for_each_scalar([&](const TensorData&) { ++count; });
  return count;
}

DType TensorData::inferred_dtype() const {
  bool any_bool = false, any_number = false, any_floating = false, any_int64 = false;
  bool any_string = false, all_float16 = true, all_bfloat16 = true;
  for_each_scalar([&](const TensorData& v) {
    if (v.kind_ == Kind::kString) {
      any_string = true;
      return;
    }
    if (v.kind_ == Kind::kBoolean) {
      any_bool = true;
      return;
    }
    any_number = true;
    if (v.kind_ == Kind::kFloating) any_floating = true;
    if (v.kind_ == Kind::kUnsigned &&
        v.unsigned_ > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw InvalidArgumentError(fmt::format(
          "Can't convert Python sequence with out-of-range integer to Tensor. {} does not fit "
          "int64.",
          v.unsigned_));
    }
    if (v.natural_ == DType::kInt64) any_int64 = true;
    all_float16 = all_float16 && v.natural_ == DType::kFloat16;
    all_bfloat16 = all_bfloat16 && v.natural_ == DType::kBFloat16;
  });
  if (any_string && (any_bool || any_number)) {
    throw InvalidArgumentError(fmt::format("{} A list mixes strings with {}.", kMixedTypes,
                                           any_bool ? "bool" : "numbers"));
  }
  if (any_string) return DType::kString;
  if (any_bool && any_number) {
    throw InvalidArgumentError(fmt::format("{} A list mixes bool with numbers.", kMixedTypes));
  }
  if (any_bool) return DType::kBool;
  if (!any_number) return DType::kFloat32;  // the empty list
  if (any_floating) {
    if (all_float16) return DType::kFloat16;
    if (all_bfloat16) return DType::kBFloat16;
    return DType::kFloat32;
  }
  return any_int64 ? DType::kInt64 : DType::kInt32;
}

std::vector<unsigned char> TensorData::to_bytes(DType dtype) const {
  if (static_cast<int>(dtype) >= kNumDTypes) {
    throw InvalidArgumentError(
        fmt::format("DType value {} is not a valid eagle::DType", static_cast<int>(dtype)));
  }
  if (dtype == DType::kString) {
    throw InvalidArgumentError("TensorData::to_bytes: strings are not bytes (use to_strings)");
  }
  const std::size_t size = dtype_size(dtype);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(num_values()) * size);
  unsigned char* out = bytes.data();
  for_each_scalar([&](const TensorData& v) {
    if (v.kind_ == Kind::kString) throw_cannot_convert(detail::str_repr(v.string_), dtype);
    visit_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      T value{};
      if constexpr (std::is_same_v<T, bool>) {
        value = v.kind_ == Kind::kFloating   ? v.floating_ != 0
                : v.kind_ == Kind::kUnsigned ? v.unsigned_ != 0
                                             : v.signed_ != 0;
      } else if constexpr (std::is_integral_v<T>) {
        if (v.kind_ == Kind::kFloating) {
          // T's range is [-2^k, 2^k), both bounds exact in double; outside it static_cast is UB.
          const double f = v.floating_;
          constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
          if (!std::isfinite(f) || f != std::trunc(f) || f < kLowest || f >= -kLowest) {
            throw_cannot_convert(fmt::format("{}", f), dtype);
          }
          value = static_cast<T>(f);
        } else if (v.kind_ == Kind::kUnsigned) {
          value = checked_integer<T>(v.unsigned_, dtype);
        } else {
          value = checked_integer<T>(v.signed_, dtype);
        }
      } else {
        // Floating dtypes take every value; 16-bit ones round through float32.
        const double f = v.kind_ == Kind::kFloating   ? v.floating_
                         : v.kind_ == Kind::kUnsigned ? static_cast<double>(v.unsigned_)
                                                      : static_cast<double>(v.signed_);
        if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
          value = T(static_cast<float>(f));
        } else {
          value = static_cast<T>(f);
        }
      }
      std::memcpy(out, &value, sizeof value);
      return 0;
    });
    out += size;
  });
  return bytes;
}

std::vector<std::string> TensorData::to_strings() const {
  std::vector<std::string> strings;
  strings.reserve(static_cast<std::size_t>(num_values()));
  for_each_scalar([&](const TensorData& v) {
    switch (v.kind_) {
      case Kind::kString:
        strings.push_back(v.string_);
        return;
      case Kind::kBoolean:
        throw_cannot_convert(v.signed_ != 0 ? "True" : "False", DType::kString);
      case Kind::kSigned:
        throw_cannot_convert(fmt::format("{}", v.signed_), DType::kString);
      case Kind::kUnsigned:
        throw_cannot_convert(fmt::format("{}", v.unsigned_), DType::kString);
      case Kind::kFloating:
        break;
    }
    throw_cannot_convert(fmt::format("{}", v.floating_), DType::kString);
  });
  return strings;
}

}  // namespace eagle
