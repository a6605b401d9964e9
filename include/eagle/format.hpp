// Printing tensors in TensorFlow's style:
//   eagle.Tensor(
//   [[22. 28.]
//    [49. 64.]], shape=(2, 2), dtype=float32, device=/job:localhost/replica:0/task:0/device:CPU:0)
// Values are laid out as NumPy prints them; more than 1000 elements are abbreviated with "...".
#pragma once

#include <ostream>
#include <string>

#include <fmt/format.h>

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
