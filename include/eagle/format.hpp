// Printing tensors in TensorFlow's style:
//   eagle.Tensor(
//   [[22. 28.]
//    [49. 64.]], shape=(2, 2), dtype=float32, device=/job:localhost/replica:0/task:0/device:CPU:0)
// Values are laid out as NumPy prints them; more than 1000 elements are abbreviated with "...".
// Also fmt support for Shape ("(2, 3)"), DType ("float32") and DeviceName (its canonical text),
// whose operator<< are declared in their own headers.
#pragma once

#include <ostream>
#include <string>

#include <fmt/format.h>

#include "eagle/device_name.hpp"
#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle {

// The values alone, NumPy-style ("[[22. 28.]\n [49. 64.]]").
std::string format_values(const Tensor& t);
// The whole description above.
std::string to_string(const Tensor& t);
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace eagle

template <>
struct fmt::formatter<eagle::Tensor> : fmt::formatter<std::string> {
  template <class FormatContext>
  auto format(const eagle::Tensor& t, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(eagle::to_string(t), ctx);
  }
};

template <>
struct fmt::formatter<eagle::Shape> : fmt::formatter<std::string> {
  template <class FormatContext>
  auto format(const eagle::Shape& shape, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(shape.to_tuple_string(), ctx);
  }
};

template <>
struct fmt::formatter<eagle::DType> : fmt::formatter<fmt::string_view> {
  template <class FormatContext>
  auto format(eagle::DType dtype, FormatContext& ctx) const {
    const std::string_view name = eagle::dtype_name(dtype);
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(name.data(), name.size()),
                                                    ctx);
  }
};

template <>
struct fmt::formatter<eagle::DeviceName> : fmt::formatter<std::string> {
  template <class FormatContext>
  auto format(const eagle::DeviceName& name, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(name.to_string(), ctx);
  }
};
