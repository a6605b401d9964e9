#include "eagle/dtype.hpp"

#include <ostream>
#include <string>

#include "eagle/errors.hpp"

namespace eagle {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kFloat16:
      return "float16";
    case DType::kString:
      return "string";
    case DType::kBFloat16:
      break;
  }
  return "bfloat16";
}

std::string_view dtype_runtime_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
    case DType::kFloat16:
      return "half";
    default:
      return dtype_name(dtype);
  }
}

std::size_t dtype_size(DType dtype) {
  if (dtype == DType::kString) return sizeof(std::string);
  return visit_dtype(dtype, [](auto v) { return sizeof(v); });
}

void throw_string_not_supported(std::string_view what) {
  throw InvalidArgumentError(std::string(what) + " does not take string tensors");
}

bool is_floating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

bool is_integer(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

std::ostream& operator<<(std::ostream& os, DType dtype) { return os << dtype_name(dtype); }

}  // namespace eagle
