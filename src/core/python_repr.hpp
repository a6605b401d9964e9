// Python's reprs that TensorFlow's texts embed (device tuples in strategy logs and errors), in one
// place so every message spells them the same way.
#pragma once

#include <string>
#include <vector>

namespace eagle::detail {

// Python's repr of a tuple of strings: ('a', 'b'), and ('a',) for one.
inline std::string tuple_repr(const std::vector<std::string>& items) {
  std::string out = "(";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
  return out + (items.size() == 1 ? ",)" : ")");
}

}  // namespace eagle::detail
