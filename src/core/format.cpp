#include "eagle/format.hpp"

#include <cstring>
#include <vector>

#include "core/format_array.hpp"

namespace eagle {

namespace detail {

std::vector<unsigned char> host_bytes(const Tensor& t) {
  std::vector<unsigned char> host(static_cast<std::size_t>(t.num_elements()) *
                                  dtype_size(t.dtype()));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      const std::vector<bool> values = t.to_vector<bool>();
      for (std::size_t i = 0; i < values.size(); ++i) host[i] = values[i];
    } else {
      const std::vector<T> values = t.to_vector<T>();
      if (!host.empty()) std::memcpy(host.data(), values.data(), host.size());  // empty: null data
    }
    return 0;
  });
  return host;
}

}  // namespace detail

std::string format_values(const Tensor& t) {
  if (t.dtype() == DType::kString) {
    const std::vector<std::string> strings = t.to_vector<std::string>();
    return detail::format_string_array(t.shape(), strings.data());
  }
  return detail::format_array(t.dtype(), t.shape(), detail::host_bytes(t).data());
}

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "eagle.Tensor(<undefined>)";
  const std::string values = format_values(t);
  // TensorFlow starts multi-line values on their own line.
  const char* separator = values.find('\n') != std::string::npos ? "\n" : "";
  return fmt::format("eagle.Tensor({}{}, shape={}, dtype={}, device={})", separator, values,
                     t.shape().to_tuple_string(), dtype_name(t.dtype()), t.device());
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << to_string(t); }

}  // namespace eagle
