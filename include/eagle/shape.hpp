// Tensor shapes: a small inline array of dimensions (no heap allocation on the op path).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace eagle {

class Shape {
 public:
  // Eigen-backed frameworks cap ranks near 8 too; the cap keeps Shape allocation-free.
  static constexpr int kMaxRank = 8;

  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(const std::vector<std::int64_t>& dims);

  int rank() const { return rank_; }
  std::int64_t operator[](int axis) const { return dims_[axis]; }
  std::int64_t& operator[](int axis) { return dims_[axis]; }
  std::int64_t num_elements() const;
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + rank_; }
  std::vector<std::int64_t> to_vector() const { return {begin(), end()}; }

  void push_back(std::int64_t dim);

  // "[2,3]": TensorFlow's runtime spelling, used in error messages.
  std::string to_string() const;
  // "(2, 3)": Python's spelling, used when printing a tensor.
  std::string to_tuple_string() const;

  friend bool operator==(const Shape& a, const Shape& b);
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  std::array<std::int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

// Prints "(2, 3)", as TensorFlow prints a TensorShape (fmt: include eagle/format.hpp).
std::ostream& operator<<(std::ostream& os, const Shape& shape);

}  // namespace eagle
