#include "eagle/shape.hpp"

#include <ostream>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle {

Shape::Shape(std::initializer_list<Dim> dims) {
  for (const Dim d : dims) push_back(d.value);
}

Shape::Shape(const std::vector<std::int64_t>& dims) {
  for (std::int64_t d : dims) push_back(d);
}

void Shape::push_back(std::int64_t dim) {
  if (rank_ == kMaxRank) {
    throw InvalidArgumentError(
        fmt::format("Shape rank exceeds the maximum of {} supported by eagle", kMaxRank));
  }
  if (dim < 0) {
    throw InvalidArgumentError(fmt::format("Dimension {} must be >= 0, got {}", rank_, dim));
  }
  // Keep num_elements() free of overflow: a shape whose element count does not fit int64 is
  // refused here, once, instead of wrapping silently wherever it is multiplied out.
  std::int64_t count = 0;
  if (__builtin_mul_overflow(num_elements(), dim, &count)) {
    throw InvalidArgumentError(
        fmt::format("Shape {} with dimension {} has more than 2^63-1 elements", to_string(), dim));
  }
  dims_[rank_++] = dim;
}

std::int64_t Shape::num_elements() const {
  std::int64_t n = 1;
  for (int i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

std::string Shape::to_string() const { return fmt::format("[{}]", fmt::join(begin(), end(), ",")); }

std::string Shape::to_tuple_string() const {
  if (rank_ == 1) return fmt::format("({},)", dims_[0]);
  return fmt::format("({})", fmt::join(begin(), end(), ", "));
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape.to_tuple_string();
}

bool operator==(const Shape& a, const Shape& b) {
  if (a.rank_ != b.rank_) return false;
  for (int i = 0; i < a.rank_; ++i) {
    if (a.dims_[i] != b.dims_[i]) return false;
  }
  return true;
}

}  // namespace eagle
