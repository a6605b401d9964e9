// Helpers of the ops_*_test.cpp value tests: dtype lists, typed constants, and a check of
// dtype, shape and values with a tolerance per dtype.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xio.hpp>

#include "eagle/ops.hpp"
#include "eagle/xtensor.hpp"
#include "test_support.hpp"

namespace eagle_test::ops {

using eagle::bfloat16;
using eagle::DType;
using eagle::float16;
using eagle::Shape;
using eagle::Tensor;
using std::int32_t;
using std::int64_t;

using NumericTypes = std::tuple<float, double, int32_t, int64_t, float16, bfloat16>;
using FloatingTypes = std::tuple<float, double, float16, bfloat16>;
using IntegerTypes = std::tuple<int32_t, int64_t>;
using AllTypes = std::tuple<float, double, int32_t, int64_t, bool, float16, bfloat16>;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

using eagle_test::from_d;
using eagle_test::kIsFloat;
using eagle_test::kIsHalf;
using eagle_test::to_d;

// Relative tolerance for a result computed in (or rounded once to) T; 0 means exact.
template <class T>
double tol() {
  if constexpr (std::is_same_v<T, float16>) {
    return 2e-3;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return 1e-2;
  } else if constexpr (std::is_same_v<T, float>) {
    return 2e-6;
  } else if constexpr (std::is_same_v<T, double>) {
    return 1e-13;
  } else {
    return 0;
  }
}

// A T tensor holding `values` (converted to T) in `shape`.
template <class T>
Tensor make(const std::vector<double>& values, const Shape& shape) {
  std::vector<T> typed;
  for (double v : values) typed.push_back(from_d<T>(v));
  return eagle::constant(typed, shape);
}

// `values` as T stores them.
template <class T>
std::vector<double> roundtrip(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) out.push_back(to_d<T>(from_d<T>(v)));
  return out;
}

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  eagle::visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (const T v : t.to_vector<T>()) out.push_back(to_d<T>(v));
    return 0;
  });
  return out;
}

inline std::vector<double> iota(std::int64_t n, double start = 0) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Checks dtype, shape and values. NaN matches NaN, infinities match exactly, finite values
// match within the relative tolerance `rel` (also used as an absolute margin near zero).
inline void check_tensor(const Tensor& t, DType dtype, const Shape& shape,
                         const std::vector<double>& expected, double rel = 0) {
  CHECK(t.dtype() == dtype);
  REQUIRE(t.shape() == shape);
  const std::vector<double> actual = values_of(t);
  REQUIRE(actual.size() == expected.size());
  const bool any_nan =
      std::any_of(expected.begin(), expected.end(), [](double v) { return std::isnan(v); });
  if (rel == 0 && !any_nan) {
    CHECK(actual == expected);
    return;
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i << " of " << shape.to_string());
    if (std::isnan(expected[i])) {
      CHECK(std::isnan(actual[i]));
    } else if (rel == 0 || std::isinf(expected[i])) {
      CHECK(actual[i] == expected[i]);
    } else {
      CHECK(actual[i] == Approx(expected[i]).epsilon(rel).margin(rel));
    }
  }
}

inline Shape shape_of(const std::vector<std::size_t>& dims) {
  Shape s;
  for (auto d : dims) s.push_back(static_cast<std::int64_t>(d));
  return s;
}

// A float64 xarray of the given shape holding `start`, `start + step`, ...
inline xt::xarray<double> arange_array(const std::vector<std::size_t>& shape, double start = 0,
                                       double step = 1) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  xt::xarray<double> a = xt::arange<double>(0, static_cast<double>(n)) * step + start;
  a.reshape(shape);
  return a;
}

// xarrays compare outside Catch's decomposer (xtensor's operators would capture it).
template <class T>
void check_array(const xt::xarray<T>& actual, const xt::xarray<T>& expected) {
  INFO("actual:\n" << actual << "\nexpected:\n" << expected);
  const bool equal = actual == expected;
  CHECK(equal);
}

}  // namespace eagle_test::ops
