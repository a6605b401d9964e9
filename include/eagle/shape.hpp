// Tensor shapes: a small inline array of dimensions (no heap allocation on the op path).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace eagle {

// One dimension in a braced shape. It converts from any integral type so that
// `zeros({v.size(), 3})` compiles without a narrowing error (an initializer_list<int64_t> would
// reject the size_t on Clang). Negative or too large values are refused by Shape itself.
struct Dim {
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  constexpr Dim(I v) : value(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit by design
  std::int64_t value;
};

class Shape {
 public:
  // Eigen-backed frameworks cap ranks near 8 too; the cap keeps Shape allocation-free.
  static constexpr int kMaxRank = 8;

  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<Dim> dims);
  explicit Shape(const std::vector<std::int64_t>& dims);

  int rank() const { return rank_; }
  std::int64_t operator[](int axis) const { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t& operator[](int axis) { return dims_[static_cast<std::size_t>(axis)]; }
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

// An optional shape parameter that accepts every spelling a caller types: nothing (absent),
// std::nullopt, a Shape, a std::optional<Shape>, or a braced list such as {2, 3}.
// std::optional<Shape> cannot take `{2, 3}`: its only two-argument constructor is in_place's.
class ShapeArg {
 public:
  ShapeArg() = default;
  ShapeArg(std::nullopt_t) {}                                         // NOLINT: implicit by design
  ShapeArg(const Shape& shape) : shape_(shape) {}                     // NOLINT
  ShapeArg(const std::optional<Shape>& shape) : shape_(shape) {}      // NOLINT
  ShapeArg(std::initializer_list<Dim> dims) : shape_(Shape(dims)) {}  // NOLINT

  bool has_value() const { return shape_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const Shape& operator*() const { return *shape_; }
  const Shape* operator->() const { return &*shape_; }
  Shape value_or(const Shape& fallback) const { return shape_.value_or(fallback); }

 private:
  std::optional<Shape> shape_;
};

}  // namespace eagle
