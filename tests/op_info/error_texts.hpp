// TensorFlow's texts for errors many ops share, for the OpInfo error cases.
#pragma once

#include <string>

namespace eagle_test {

// TensorFlow's InvalidArgumentError for a dtype the op's definition does not allow (`dtype` in
// TensorFlow's runtime spelling: float, double, half, int32, bool).
inline std::string not_allowed(const std::string& op, const std::string& dtype,
                               const std::string& allowed) {
  return "Value for attr 'T' of " + dtype + " is not in the list of allowed values: " + allowed +
         " [Op:" + op + "]";
}
inline const std::string kFloatingTexts = "bfloat16, half, float, double";
inline const std::string kNumericTexts = "bfloat16, half, float, double, int32, int64";
// TensorFlow's `numbertypes` order (reductions, Relu, AddN) and Softmax's own.
inline const std::string kNumberTypesTexts = "float, double, int32, int64, bfloat16, half";
inline const std::string kSoftmaxTexts = "half, bfloat16, float, double";

inline std::string undefined_input(int index, const std::string& op) {
  return "input #" + std::to_string(index) + " is an undefined tensor [Op:" + op + "]";
}

}  // namespace eagle_test
