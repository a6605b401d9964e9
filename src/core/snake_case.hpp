// Keras's to_snake_case (keras/src/utils/naming.py), the default names of its layers and
// optimizers: "MaxPooling2D" -> "max_pooling2d", "RMSprop" -> "rm_sprop".
#pragma once

#include <cctype>
#include <regex>
#include <string>

namespace eagle::detail {

inline std::string to_snake_case(const std::string& class_name) {
  static const std::regex first("(.)([A-Z][a-z0-9]+)");
  static const std::regex second("([a-z])([A-Z])");
  std::string s = std::regex_replace(class_name, first, "$1_$2");
  s = std::regex_replace(s, second, "$1_$2");
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!s.empty() && s[0] == '_') return "private" + s;
  return s;
}

}  // namespace eagle::detail
