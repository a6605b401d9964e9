// Python's reprs that TensorFlow's and Keras's texts embed (device tuples in strategy logs and
// errors, numbers in argument checks), in one place so every message spells them the same way.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace eagle::detail {

// Python's repr of a str: 'text', in double quotes when it holds a single quote and no double
// quote, backslashes and the quote escaped.
inline std::string str_repr(const std::string& text) {
  const bool double_quoted =
      text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out(1, quote);
  for (char c : text) {
    if (c == '\\' || c == quote) out += '\\';
    out += c;
  }
  return out + quote;
}

// Python's repr of a bytes object: b'text', quoted as str_repr, with \t \n \r and \xNN for
// the bytes that are not printable ASCII (how TensorFlow prints a string tensor's elements).
inline std::string bytes_repr(const std::string& bytes) {
  const bool double_quoted =
      bytes.find('\'') != std::string::npos && bytes.find('"') == std::string::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out = "b";
  out += quote;
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out + quote;
}

// Python's repr of a tuple of strings: ('a', 'b'), and ('a',) for one.
inline std::string tuple_repr(const std::vector<std::string>& items) {
  std::string out = "(";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
  return out + (items.size() == 1 ? ",)" : ")");
}

// Python's repr of a float: the shortest digits that round-trip, with ".0" when integral (1.5,
// 1.0, 1e-05, inf).
inline std::string python_float(double value) {
  std::string text = fmt::format("{}", value);
  if (std::isfinite(value) && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace eagle::detail
