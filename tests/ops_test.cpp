// Values of every op in eagle/ops.hpp, through the public API (dispatcher, placement, kernels):
// hand-computed results and xtensor references, over every dtype each op supports. The error
// paths are in ops_error_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xio.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>
#include "test_support.hpp"

#include "eagle/ops.hpp"
#include "eagle/xtensor.hpp"

namespace {

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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

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

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  eagle::visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (const T v : t.to_vector<T>()) out.push_back(to_d<T>(v));
    return 0;
  });
  return out;
}

std::vector<double> iota(std::int64_t n, double start = 0) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Checks dtype, shape and values. NaN matches NaN, infinities match exactly, finite values
// match within the relative tolerance `rel` (also used as an absolute margin near zero).
void check_tensor(const Tensor& t, DType dtype, const Shape& shape,
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

Shape shape_of(const std::vector<std::size_t>& dims) {
  Shape s;
  for (auto d : dims) s.push_back(static_cast<std::int64_t>(d));
  return s;
}

// A float64 xarray of the given shape holding `start`, `start + step`, ...
xt::xarray<double> arange_array(const std::vector<std::size_t>& shape, double start = 0,
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

}  // namespace

// ---- Creation -------------------------------------------------------------------------------

TEST_CASE("constant: default dtypes, explicit dtypes, shapes and fills", "[ops][creation]") {
  check_tensor(eagle::constant({1.5, -2.5}), DType::kFloat32, {2}, {1.5, -2.5});
  check_tensor(eagle::constant({1, 2, 3}), DType::kInt32, {3}, {1, 2, 3});
  check_tensor(eagle::constant({true, false}), DType::kBool, {2}, {1, 0});
  check_tensor(eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}), DType::kFloat32, {2, 3},
               {1, 2, 3, 4, 5, 6});
  check_tensor(eagle::constant({1, 2, 3, 4, 5, 6}, Shape{3, 2}), DType::kInt32, {3, 2},
               {1, 2, 3, 4, 5, 6});
  check_tensor(eagle::constant({1.0, 2.0}, std::nullopt, DType::kFloat64), DType::kFloat64, {2},
               {1, 2});
  check_tensor(eagle::constant({1.0, -2.0}, std::nullopt, DType::kInt64), DType::kInt64, {2},
               {1, -2});
  check_tensor(eagle::constant({0.0, 3.0}, std::nullopt, DType::kBool), DType::kBool, {2}, {0, 1});
  check_tensor(eagle::constant({1, 2}, std::nullopt, DType::kFloat16), DType::kFloat16, {2},
               {1, 2});
  check_tensor(eagle::constant({{1.0, 2.0}}, DType::kBFloat16), DType::kBFloat16, {1, 2}, {1, 2});

  // Scalars (rank 0) and single values that fill a shape.
  check_tensor(eagle::constant(2.5), DType::kFloat32, {}, {2.5});
  check_tensor(eagle::constant(2.5f), DType::kFloat32, {}, {2.5});
  check_tensor(eagle::constant(7), DType::kInt32, {}, {7});
  check_tensor(eagle::constant(true), DType::kBool, {}, {1});
  check_tensor(eagle::constant(3.0, Shape{2, 2}), DType::kFloat32, {2, 2}, {3, 3, 3, 3});
  check_tensor(eagle::constant(3, Shape{2}, DType::kInt64), DType::kInt64, {2}, {3, 3});
  check_tensor(eagle::constant(0.5, Shape{1, 2}, DType::kFloat64), DType::kFloat64, {1, 2},
               {0.5, 0.5});
  check_tensor(eagle::constant(false, Shape{3}), DType::kBool, {3}, {0, 0, 0});
  check_tensor(eagle::constant({4}, Shape{2, 2}), DType::kInt32, {2, 2}, {4, 4, 4, 4});
  const Tensor big = eagle::constant(std::int64_t{1} << 40);
  CHECK(big.dtype() == DType::kInt64);
  CHECK(big.item<std::int64_t>() == std::int64_t{1} << 40);

  // Typed containers keep their type.
  check_tensor(eagle::constant(std::vector<double>{0.1}), DType::kFloat64, {1}, {0.1});
  check_tensor(eagle::constant(std::vector<float16>{float16(1.5f)}), DType::kFloat16, {1}, {1.5});
  check_tensor(eagle::constant(std::vector<bfloat16>{bfloat16(-2.0f)}), DType::kBFloat16, {1},
               {-2});
  check_tensor(eagle::constant(std::vector<bool>{true, false, true}, Shape{3, 1}), DType::kBool,
               {3, 1}, {1, 0, 1});
  check_tensor(eagle::constant(std::vector<std::int64_t>{}, Shape{0, 3}), DType::kInt64, {0, 3},
               {});
  check_tensor(eagle::constant(std::vector<float>{}, Shape{2, 0}), DType::kFloat32, {2, 0}, {});
  check_tensor(eagle::constant(std::vector<float>(6, 1.f), Shape{1, 2, 1, 3}), DType::kFloat32,
               {1, 2, 1, 3}, std::vector<double>(6, 1));
}

TEST_CASE("xtensor interop round-trips values and shapes", "[ops][creation]") {
  const xt::xarray<double> a = arange_array({2, 3, 4}, -5, 0.5);
  const Tensor t = eagle::from_xexpression(a);
  CHECK(t.dtype() == DType::kFloat64);
  CHECK(t.shape() == Shape{2, 3, 4});
  check_array(eagle::to_xarray<double>(t), a);
  const xt::xarray<int> i = {{1, -2}, {3, 4}};
  check_array(eagle::to_xarray<int>(eagle::from_xexpression(i)), i);
  const xt::xarray<bool> b = {true, false, true};
  check_array(eagle::to_xarray<bool>(eagle::from_xexpression(b)), b);
  // An expression is evaluated first.
  check_array(eagle::to_xarray<double>(eagle::from_xexpression(a * 2.0 + 1.0)),
              xt::xarray<double>(a * 2.0 + 1.0));
}

TEMPLATE_LIST_TEST_CASE("zeros, ones and fill make every dtype", "[ops][creation]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  check_tensor(eagle::zeros({2, 3}, dt), dt, {2, 3}, std::vector<double>(6, 0));
  check_tensor(eagle::ones({4}, dt), dt, {4}, std::vector<double>(4, 1));
  check_tensor(eagle::fill({2, 2}, 2, dt), dt, {2, 2}, std::vector<double>(4, to_d(from_d<T>(2))));
  check_tensor(eagle::zeros({}, dt), dt, {}, {0});
  check_tensor(eagle::ones({0, 4}, dt), dt, {0, 4}, {});
  check_tensor(eagle::fill({3, 0, 2}, 5, dt), dt, {3, 0, 2}, {});
}

TEST_CASE("zeros, ones and fill: defaults and value conversion", "[ops][creation]") {
  check_tensor(eagle::zeros({2}), DType::kFloat32, {2}, {0, 0});
  check_tensor(eagle::ones({1, 1}), DType::kFloat32, {1, 1}, {1});
  check_tensor(eagle::fill({2}, 0.1), DType::kFloat32, {2},
               {static_cast<double>(0.1f), static_cast<double>(0.1f)});
  check_tensor(eagle::fill({2}, 0.1, DType::kFloat64), DType::kFloat64, {2}, {0.1, 0.1});
  // To an integer the value is truncated toward zero; NaN and values out of range give the
  // lowest value, as tf.cast on x86-64 (Note [Float to integer casts]).
  check_tensor(eagle::fill({1}, 2.7, DType::kInt32), DType::kInt32, {1}, {2});
  check_tensor(eagle::fill({1}, -2.7, DType::kInt64), DType::kInt64, {1}, {-2});
  check_tensor(eagle::fill({1}, 1e10, DType::kInt32), DType::kInt32, {1}, {-2147483648.0});
  check_tensor(eagle::fill({1}, -1e10, DType::kInt32), DType::kInt32, {1}, {-2147483648.0});
  check_tensor(eagle::fill({1}, kNaN, DType::kInt32), DType::kInt32, {1}, {-2147483648.0});
  check_tensor(eagle::fill({1}, kNaN), DType::kFloat32, {1}, {kNaN});
  check_tensor(eagle::fill({1}, -kInf, DType::kFloat16), DType::kFloat16, {1}, {-kInf});
  // To bool: nonzero is true.
  check_tensor(eagle::fill({2}, 0.5, DType::kBool), DType::kBool, {2}, {1, 1});
  check_tensor(eagle::fill({2}, -1, DType::kBool), DType::kBool, {2}, {1, 1});
  check_tensor(eagle::fill({2}, 0, DType::kBool), DType::kBool, {2}, {0, 0});
}

TEST_CASE("range: integral and floating forms", "[ops][creation]") {
  check_tensor(eagle::range(5), DType::kInt32, {5}, {0, 1, 2, 3, 4});
  check_tensor(eagle::range(2, 10, 3), DType::kInt32, {3}, {2, 5, 8});
  check_tensor(eagle::range(5, 0, -2), DType::kInt32, {3}, {5, 3, 1});
  check_tensor(eagle::range(-3, 0), DType::kInt32, {3}, {-3, -2, -1});
  check_tensor(eagle::range(3, 3), DType::kInt32, {0}, {});
  check_tensor(eagle::range(0), DType::kInt32, {0}, {});
  check_tensor(eagle::range(5, 5, -1), DType::kInt32, {0}, {});
  check_tensor(eagle::range(0.0, 1.0, 0.25), DType::kFloat32, {4}, {0, 0.25, 0.5, 0.75});
  // The count is ceil((limit - start) / delta).
  check_tensor(eagle::range(0.0, 1.0, 0.3), DType::kFloat32, {4}, {0, 0.3, 0.6, 0.9}, tol<float>());
  check_tensor(eagle::range(1.0, 2.0, 0.5, DType::kFloat64), DType::kFloat64, {2}, {1, 1.5});
  check_tensor(eagle::range(0.0, 5.0, 1.0, DType::kInt64), DType::kInt64, {5}, {0, 1, 2, 3, 4});
  check_tensor(eagle::range(1.0, -1.0, -0.5, DType::kFloat16), DType::kFloat16, {4},
               {1, 0.5, 0, -0.5});
  check_tensor(eagle::range(0.0, 3.0, 1.0, DType::kBFloat16), DType::kBFloat16, {3}, {0, 1, 2});
  check_tensor(eagle::range(0.0, 0.5), DType::kFloat32, {1}, {0});
}

// ---- Random ---------------------------------------------------------------------------------

namespace {

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double stddev_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

// The first n values of `t` (flattened).
std::vector<double> prefix(const Tensor& t, std::size_t n) {
  std::vector<double> v = values_of(t);
  v.resize(n);
  return v;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("random_uniform: seeded, in range, element i depends on (seed, i)",
                        "[ops][random]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const double lo = -2, hi = 3;
  const Tensor a = eagle::random_uniform({100000}, lo, hi, dt, 42);
  const Tensor b = eagle::random_uniform({100000}, lo, hi, dt, 42);
  const Tensor c = eagle::random_uniform({100000}, lo, hi, dt, 43);
  CHECK(a.dtype() == dt);
  CHECK(a.shape() == Shape{100000});
  const std::vector<double> va = values_of(a);
  CHECK(va == values_of(b));
  CHECK(va != values_of(c));

  const auto [mn, mx] = std::minmax_element(va.begin(), va.end());
  CHECK(*mn >= lo);
  CHECK(*mx < hi);
  if constexpr (kIsFloat<T>) {
    CHECK(*mn < lo + 0.01);
    CHECK(*mx > hi - 0.02);
    CHECK(mean_of(va) == Approx(0.5).margin(0.02));
    CHECK(stddev_of(va) == Approx(5 / std::sqrt(12.0)).margin(0.02));
  } else {  // integers: every value of [lo, hi) comes up
    CHECK(std::set<double>(va.begin(), va.end()) == std::set<double>{-2, -1, 0, 1, 2});
    CHECK(mean_of(va) == Approx(0).margin(0.02));
  }

  // Element i is a function of (seed, i) alone: shapes and sizes do not matter.
  for (std::int64_t n : {1, 2, 3, 5, 7, 8, 9}) {
    INFO("n = " << n);
    CHECK(values_of(eagle::random_uniform({n}, lo, hi, dt, 42)) ==
          prefix(a, static_cast<std::size_t>(n)));
  }
  CHECK(values_of(eagle::random_uniform({3, 7, 5}, lo, hi, dt, 42)) == prefix(a, 105));
  check_tensor(eagle::random_uniform({0, 3}, lo, hi, dt, 42), dt, {0, 3}, {});
  CHECK(eagle::random_uniform({}, lo, hi, dt, 42).shape() == Shape{});
}

TEST_CASE("random_uniform: defaults and unseeded calls", "[ops][random]") {
  const Tensor a = eagle::random_uniform({1000});
  CHECK(a.dtype() == DType::kFloat32);
  const std::vector<double> v = values_of(a);
  CHECK(*std::min_element(v.begin(), v.end()) >= 0);
  CHECK(*std::max_element(v.begin(), v.end()) < 1);
  // Without a seed every call draws a fresh one.
  CHECK(v != values_of(eagle::random_uniform({1000})));
  // The default range [0, 1) holds for the 16-bit floats too: 1.0 is never produced.
  for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
    const std::vector<double> h = values_of(eagle::random_uniform({100000}, 0, 1, dt, 7));
    INFO(eagle::dtype_name(dt));
    CHECK(*std::max_element(h.begin(), h.end()) < 1);
    CHECK(*std::min_element(h.begin(), h.end()) >= 0);
  }
  // Wide integer ranges.
  const std::vector<std::int64_t> w =
      eagle::random_uniform({1000}, -1e15, 1e15, DType::kInt64, 5).to_vector<std::int64_t>();
  CHECK(*std::min_element(w.begin(), w.end()) >= -1000000000000000);
  CHECK(*std::max_element(w.begin(), w.end()) < 1000000000000000);
  CHECK(std::set<std::int64_t>(w.begin(), w.end()).size() == 1000);
}

TEMPLATE_LIST_TEST_CASE("random_normal: seeded, moments, element i depends on (seed, i)",
                        "[ops][random]", FloatingTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor a = eagle::random_normal({100000}, 3, 2, dt, 11);
  CHECK(a.dtype() == dt);
  const std::vector<double> va = values_of(a);
  CHECK(va == values_of(eagle::random_normal({100000}, 3, 2, dt, 11)));
  CHECK(va != values_of(eagle::random_normal({100000}, 3, 2, dt, 12)));
  CHECK(mean_of(va) == Approx(3).margin(0.03));
  CHECK(stddev_of(va) == Approx(2).margin(0.03));
  CHECK(std::all_of(va.begin(), va.end(), [](double x) { return std::isfinite(x); }));
  // About 68% within one standard deviation, 95% within two.
  const auto within = [&](double k) {
    return static_cast<double>(std::count_if(va.begin(), va.end(),
                                             [&](double x) { return std::fabs(x - 3) < 2 * k; })) /
           static_cast<double>(va.size());
  };
  CHECK(within(1) == Approx(0.6827).margin(0.01));
  CHECK(within(2) == Approx(0.9545).margin(0.01));

  for (std::int64_t n : {1, 2, 3, 5, 6, 7, 9}) {
    INFO("n = " << n);
    CHECK(values_of(eagle::random_normal({n}, 3, 2, dt, 11)) ==
          prefix(a, static_cast<std::size_t>(n)));
  }
  CHECK(values_of(eagle::random_normal({5, 1, 7}, 3, 2, dt, 11)) == prefix(a, 35));
  check_tensor(eagle::random_normal({0}, 0, 1, dt, 1), dt, {0}, {});
}

TEST_CASE("random_normal: defaults and unseeded calls", "[ops][random]") {
  const Tensor a = eagle::random_normal({2, 500});
  CHECK(a.dtype() == DType::kFloat32);
  CHECK(a.shape() == Shape{2, 500});
  CHECK(values_of(a) != values_of(eagle::random_normal({2, 500})));
  // stddev 0 gives the mean exactly.
  check_tensor(eagle::random_normal({3}, 1.5, 0, DType::kFloat64, 3), DType::kFloat64, {3},
               {1.5, 1.5, 1.5});
}

// ---- identity and cast ----------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("identity keeps dtype, shape and values", "[ops][creation]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const std::vector<double> v{0, 1, 2, 3, 0, 5};
  check_tensor(eagle::identity(make<T>(v, {2, 3})), dt, {2, 3}, roundtrip<T>(v));
  check_tensor(eagle::identity(make<T>({1}, {})), dt, {}, {1});
  check_tensor(eagle::identity(make<T>({}, {0, 2})), dt, {0, 2}, {});
}

namespace {

template <class Tuple, class Fn>
void for_each_type(Fn&& fn) {
  std::apply([&](auto... tags) { (fn(tags), ...); }, Tuple{});
}

// The reference conversion: truncation to integers, with NaN and values out of range giving the
// lowest value (TensorFlow on x86-64), nonzero -> true,
// rounding to nearest for floats (16-bit floats through float32, as the kernel documents).
template <class To, class From>
To ref_cast(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return to_d(v) != 0;
  } else if constexpr (std::is_integral_v<To> && kIsFloat<From>) {
    const double d = to_d(v);
    // 2^31 and 2^63 are exact doubles: [-limit, limit) is what an integer holds after truncation.
    const double limit = std::ldexp(1.0, std::numeric_limits<To>::digits);
    if (!(d >= -limit && d < limit)) return std::numeric_limits<To>::min();
    return static_cast<To>(std::trunc(d));
  } else if constexpr (std::is_integral_v<To>) {
    return static_cast<To>(v);  // integer -> narrower integer keeps the low bits
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(v));  // through float32, as the kernel converts
  } else if constexpr (kIsHalf<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (kIsFloat<T>) {
    const double x = to_d(a), y = to_d(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  } else {
    return a == b;
  }
}

// Source values per dtype: ordinary values, rounding cases, range limits, NaN and infinities.
template <class T>
std::vector<T> cast_sources() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return {true, false};
  } else if constexpr (std::is_integral_v<T>) {
    std::vector<T> v{0, 1, -1, 7, -7, 2049, 70000, 16777217, L::max(), L::min()};
    if constexpr (sizeof(T) == 8) {
      for (std::int64_t x : {std::int64_t{1} << 32 | 5, std::int64_t{-3000000000},
                             (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 62)}) {
        v.push_back(x);
      }
    }
    return v;
  } else {
    std::vector<double> d{0,    -0.0,  1,     -1,    2.5,   -2.5,  2.7,  -2.7, 0.1,
                          2049, 2051,  65504, 65519, 65520, 70000, 257,  259,  1e-8,
                          1e10, -1e10, 3e38,  -3e38, kNaN,  kInf,  -kInf};
    if constexpr (std::is_same_v<T, double>) {
      for (double x : {1e300, -1e300, 2147483647.9, -2147483648.9, 2147483648.0, -2147483649.0,
                       9.3e18, -9.3e18, 9007199254740993.0}) {
        d.push_back(x);
      }
    }
    std::vector<T> v;
    for (double x : d) v.push_back(from_d<T>(x));
    return v;
  }
}

}  // namespace

TEST_CASE("cast: every dtype pair against the reference conversion", "[ops][cast]") {
  for_each_type<AllTypes>([](auto from_tag) {
    using From = decltype(from_tag);
    const std::vector<From> sources = cast_sources<From>();
    const Tensor x = eagle::constant(sources, Shape{static_cast<std::int64_t>(sources.size())});
    for_each_type<AllTypes>([&](auto to_tag) {
      using To = decltype(to_tag);
      INFO(eagle::dtype_name(eagle::dtype_of_v<From>)
           << " -> " << eagle::dtype_name(eagle::dtype_of_v<To>));
      const Tensor y = eagle::cast(x, eagle::dtype_of_v<To>);
      CHECK(y.dtype() == eagle::dtype_of_v<To>);
      CHECK(y.shape() == x.shape());
      const std::vector<To> got = y.template to_vector<To>();
      REQUIRE(got.size() == sources.size());
      for (std::size_t i = 0; i < sources.size(); ++i) {
        const To want = ref_cast<To>(sources[i]);
        INFO("source #" << i << " = " << to_d(sources[i]) << ": got " << to_d(got[i]) << ", want "
                        << to_d(want));
        CHECK(same_value(got[i], want));
      }
      // Rank 0 and empty tensors cast too.
      CHECK(eagle::cast(eagle::constant(std::vector<From>{sources[0]}, Shape{}),
                        eagle::dtype_of_v<To>)
                .shape() == Shape{});
      CHECK(eagle::cast(eagle::constant(std::vector<From>{}, Shape{0, 2}), eagle::dtype_of_v<To>)
                .shape() == Shape{0, 2});
    });
  });
}

TEST_CASE("cast: hand-checked conversions", "[ops][cast]") {
  const auto cast = [](std::vector<double> v, DType from, DType to) {
    const Tensor source =
        eagle::constant_from_buffer(v.data(), static_cast<std::int64_t>(v.size()), DType::kFloat64,
                                    Shape{static_cast<std::int64_t>(v.size())});
    return values_of(eagle::cast(eagle::cast(source, from), to));
  };
  const double i32min = -2147483648.0;
  // Floating -> integer: truncation toward zero; NaN, infinities and values out of range give the
  // lowest value, as tf.cast on x86-64.
  CHECK(cast({2.7, -2.7, 1e10, -1e10, kNaN, kInf, -kInf, 2147483520.0}, DType::kFloat32,
             DType::kInt32) ==
        std::vector<double>{2, -2, i32min, i32min, i32min, i32min, i32min, 2147483520.0});
  {
    const std::vector<std::int64_t> v =
        eagle::cast(eagle::constant({1e19, -1e19, kNaN, 9.2e18}, std::nullopt, DType::kFloat64),
                    DType::kInt64)
            .to_vector<std::int64_t>();
    constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
    CHECK(v == std::vector<std::int64_t>{kLowest, kLowest, kLowest, 9200000000000000000});
  }
  CHECK(cast({65504, kNaN, kInf, -0.5}, DType::kFloat16, DType::kInt32) ==
        std::vector<double>{65504, i32min, i32min, 0});
  CHECK(cast({3e38, -3e38, 1.5}, DType::kBFloat16, DType::kInt32) ==
        std::vector<double>{i32min, i32min, 1});
  // To bool: nonzero (NaN included) is true, -0.0 is false.
  CHECK(cast({0, -0.0, 0.5, kNaN, -kInf}, DType::kFloat32, DType::kBool) ==
        std::vector<double>{0, 0, 1, 1, 1});
  CHECK(cast({0, -1, 2}, DType::kInt64, DType::kBool) == std::vector<double>{0, 1, 1});
  CHECK(cast({0, 1}, DType::kBool, DType::kFloat16) == std::vector<double>{0, 1});
  CHECK(cast({0, 1}, DType::kBool, DType::kInt64) == std::vector<double>{0, 1});
  // Integer -> narrower integer keeps the low 32 bits (as tf.cast does).
  CHECK(eagle::cast(eagle::constant(std::vector<std::int64_t>{(std::int64_t{1} << 32) + 5, -1,
                                                              std::int64_t{1} << 31}),
                    DType::kInt32)
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{5, -1, INT32_MIN});
  // To float16: overflow to infinity, round to nearest even, underflow to zero, NaN stays.
  {
    const std::vector<double> h =
        cast({70000, 65519, 65520, 2049, 2051, 1e-8, -70000}, DType::kFloat32, DType::kFloat16);
    CHECK(h == std::vector<double>{kInf, 65504, kInf, 2048, 2052, 0, -kInf});
    CHECK(std::isnan(cast({kNaN}, DType::kFloat32, DType::kFloat16)[0]));
  }
  // To bfloat16: 8 significant bits, round to nearest even.
  CHECK(cast({257, 259, 1.00390625, -3.0}, DType::kFloat32, DType::kBFloat16) ==
        std::vector<double>{256, 260, 1, -3});
  CHECK(cast({70000}, DType::kInt32, DType::kFloat16) == std::vector<double>{kInf});
  CHECK(cast({70000}, DType::kInt32, DType::kBFloat16) == std::vector<double>{70144});
  // Wide integers to float32 round; float64 -> float32 overflows to infinity.
  CHECK(cast({16777217}, DType::kInt32, DType::kFloat32) == std::vector<double>{16777216});
  CHECK(cast({1e300, 0.1}, DType::kFloat64, DType::kFloat32) ==
        std::vector<double>{kInf, static_cast<double>(0.1f)});
  // 16-bit floats widen exactly.
  CHECK(cast({0.1}, DType::kFloat16, DType::kFloat64) ==
        std::vector<double>{static_cast<double>(static_cast<float>(float16(0.1f)))});
  // Casting to the same dtype is the input itself.
  const Tensor x = eagle::constant({1.5, 2.5});
  CHECK(eagle::cast(x, DType::kFloat32).id() == x.id());
}

// ---- Elementwise binary ---------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("add, subtract, multiply, maximum, minimum and their operators",
                        "[ops][binary]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor x = make<T>({-3, -1, 0, 2, 5, 7}, {2, 3});
  const Tensor y = make<T>({2, 4, -1, 2, 3, -6}, {2, 3});
  check_tensor(eagle::add(x, y), dt, {2, 3}, {-1, 3, -1, 4, 8, 1});
  check_tensor(eagle::subtract(x, y), dt, {2, 3}, {-5, -5, 1, 0, 2, 13});
  check_tensor(eagle::multiply(x, y), dt, {2, 3}, {-6, -4, 0, 4, 15, -42});
  check_tensor(eagle::maximum(x, y), dt, {2, 3}, {2, 4, 0, 2, 5, 7});
  check_tensor(eagle::minimum(x, y), dt, {2, 3}, {-3, -1, -1, 2, 3, -6});
  check_tensor(x + y, dt, {2, 3}, {-1, 3, -1, 4, 8, 1});
  check_tensor(x - y, dt, {2, 3}, {-5, -5, 1, 0, 2, 13});
  check_tensor(x * y, dt, {2, 3}, {-6, -4, 0, 4, 15, -42});
  check_tensor(-x, dt, {2, 3}, {3, 1, 0, -2, -5, -7});

  // A C++ number takes the tensor's dtype, on either side.
  check_tensor(x + 1, dt, {2, 3}, {-2, 0, 1, 3, 6, 8});
  check_tensor(1 + x, dt, {2, 3}, {-2, 0, 1, 3, 6, 8});
  check_tensor(x - 1, dt, {2, 3}, {-4, -2, -1, 1, 4, 6});
  check_tensor(10 - x, dt, {2, 3}, {13, 11, 10, 8, 5, 3});
  check_tensor(x * 2, dt, {2, 3}, {-6, -2, 0, 4, 10, 14});
  check_tensor(2.0 * x, dt, {2, 3}, {-6, -2, 0, 4, 10, 14});
  check_tensor(x + std::int64_t{3}, dt, {2, 3}, {0, 2, 3, 5, 8, 10});

  // Rank 0 and empty operands.
  check_tensor(make<T>({2}, {}) + make<T>({5}, {}), dt, {}, {7});
  check_tensor(eagle::maximum(make<T>({}, {0, 3}), make<T>({}, {0, 3})), dt, {0, 3}, {});
}

TEMPLATE_LIST_TEST_CASE("divide is true division", "[ops][binary]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const DType out = kIsFloat<T> ? dt : DType::kFloat64;  // integers divide as float64
  const double rel = tol<T>();
  const Tensor x = make<T>({-3, -1, 0, 2, 5, 7}, {2, 3});
  const Tensor y = make<T>({2, 4, -1, 2, 3, -6}, {2, 3});
  check_tensor(eagle::divide(x, y), out, {2, 3}, {-1.5, -0.25, -0.0, 1, 5.0 / 3, -7.0 / 6}, rel);
  check_tensor(x / y, out, {2, 3}, {-1.5, -0.25, -0.0, 1, 5.0 / 3, -7.0 / 6}, rel);
  check_tensor(x / 2, out, {2, 3}, {-1.5, -0.5, 0, 1, 2.5, 3.5}, rel);
  check_tensor(12 / x, out, {2, 3}, {-4, -12, kInf, 6, 2.4, 12.0 / 7}, rel);
  // Division by zero: infinities and NaN, for integers too.
  check_tensor(x / make<T>({0}, {}), out, {2, 3}, {-kInf, -kInf, kNaN, kInf, kInf, kInf});
  check_tensor(eagle::divide(make<T>({}, {0}), make<T>({1}, {1})), out, {0}, {});
}

TEMPLATE_LIST_TEST_CASE("pow", "[ops][binary]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor base = make<T>({2, 3, -2, 0, 5, 1, -1, 7}, {8});
  const Tensor exponent = make<T>({3, 2, 3, 0, 1, 7, 4, 0}, {8});
  check_tensor(eagle::pow(base, exponent), dt, {8}, {8, 9, -8, 1, 5, 1, 1, 1});
  // Broadcast exponent.
  check_tensor(eagle::pow(make<T>({1, 2, 3, 4}, {2, 2}), make<T>({2}, {})), dt, {2, 2},
               {1, 4, 9, 16});
  if constexpr (kIsFloat<T>) {
    check_tensor(
        eagle::pow(make<T>({4, 2, -8, 0, 9}, {5}), make<T>({0.5, -1, 1.0 / 3, -1, 0.5}, {5})), dt,
        {5}, {2, 0.5, kNaN, kInf, 3}, tol<T>());
  }
}

TEMPLATE_LIST_TEST_CASE("comparisons give bool", "[ops][binary]", NumericTypes) {
  using T = TestType;
  const Tensor x = make<T>({-3, -1, 0, 2, 5, 7}, {2, 3});
  const Tensor y = make<T>({2, -1, -1, 2, 3, 7}, {2, 3});
  const DType b = DType::kBool;
  check_tensor(eagle::equal(x, y), b, {2, 3}, {0, 1, 0, 1, 0, 1});
  check_tensor(eagle::not_equal(x, y), b, {2, 3}, {1, 0, 1, 0, 1, 0});
  check_tensor(eagle::less(x, y), b, {2, 3}, {1, 0, 0, 0, 0, 0});
  check_tensor(eagle::less_equal(x, y), b, {2, 3}, {1, 1, 0, 1, 0, 1});
  check_tensor(eagle::greater(x, y), b, {2, 3}, {0, 0, 1, 0, 1, 0});
  check_tensor(eagle::greater_equal(x, y), b, {2, 3}, {0, 1, 1, 1, 1, 1});
  check_tensor(x == y, b, {2, 3}, {0, 1, 0, 1, 0, 1});
  check_tensor(x != y, b, {2, 3}, {1, 0, 1, 0, 1, 0});
  check_tensor(x < y, b, {2, 3}, {1, 0, 0, 0, 0, 0});
  check_tensor(x <= y, b, {2, 3}, {1, 1, 0, 1, 0, 1});
  check_tensor(x > y, b, {2, 3}, {0, 0, 1, 0, 1, 0});
  check_tensor(x >= y, b, {2, 3}, {0, 1, 1, 1, 1, 1});
  // With a C++ number on either side.
  check_tensor(x < 2, b, {2, 3}, {1, 1, 1, 0, 0, 0});
  check_tensor(x <= 2, b, {2, 3}, {1, 1, 1, 1, 0, 0});
  check_tensor(x > 0, b, {2, 3}, {0, 0, 0, 1, 1, 1});
  check_tensor(x >= 5, b, {2, 3}, {0, 0, 0, 0, 1, 1});
  check_tensor(0 < x, b, {2, 3}, {0, 0, 0, 1, 1, 1});
  check_tensor(5 >= x, b, {2, 3}, {1, 1, 1, 1, 1, 0});
  check_tensor(2 > x, b, {2, 3}, {1, 1, 1, 0, 0, 0});
  check_tensor(-1 <= x, b, {2, 3}, {0, 1, 1, 1, 1, 1});
  // Broadcast, rank 0, empty.
  check_tensor(eagle::less(make<T>({0, 1, 2}, {3, 1}), make<T>({0, 1, 2, 3}, {1, 4})), b, {3, 4},
               {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1});
  check_tensor(eagle::equal(make<T>({1}, {}), make<T>({1}, {})), b, {}, {1});
  check_tensor(eagle::greater(make<T>({}, {2, 0}), make<T>({1}, {})), b, {2, 0}, {});
}

TEST_CASE("equal and not_equal on bool", "[ops][binary]") {
  const Tensor x = eagle::constant({true, false, true, false});
  const Tensor y = eagle::constant({true, true, false, false});
  check_tensor(eagle::equal(x, y), DType::kBool, {4}, {1, 0, 0, 1});
  check_tensor(eagle::not_equal(x, y), DType::kBool, {4}, {0, 1, 1, 0});
  check_tensor(x == eagle::constant(true), DType::kBool, {4}, {1, 0, 1, 0});
}

TEMPLATE_LIST_TEST_CASE(
    "NaN propagates through maximum, minimum and reductions, argmax passes it over", "[ops][nan]",
    FloatingTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor x = make<T>({kNaN, 1, kNaN, 2}, {4});
  const Tensor y = make<T>({1, kNaN, kNaN, 1}, {4});
  check_tensor(eagle::maximum(x, y), dt, {4}, {kNaN, kNaN, kNaN, 2});
  check_tensor(eagle::minimum(x, y), dt, {4}, {kNaN, kNaN, kNaN, 1});
  check_tensor(eagle::add(x, y), dt, {4}, {kNaN, kNaN, kNaN, 3});
  check_tensor(eagle::relu(x), dt, {4}, {kNaN, 1, kNaN, 2});
  check_tensor(eagle::abs(x), dt, {4}, {kNaN, 1, kNaN, 2});
  // Comparisons with NaN are false, except !=.
  check_tensor(eagle::equal(x, x), DType::kBool, {4}, {0, 1, 0, 1});
  check_tensor(eagle::not_equal(x, x), DType::kBool, {4}, {1, 0, 1, 0});
  check_tensor(eagle::less(x, y), DType::kBool, {4}, {0, 0, 0, 0});
  check_tensor(eagle::greater_equal(x, y), DType::kBool, {4}, {0, 0, 0, 1});

  const Tensor z = make<T>({1, 5, kNaN, 3, kNaN, 9}, {2, 3});
  check_tensor(eagle::reduce_max(z), dt, {}, {kNaN});
  check_tensor(eagle::reduce_min(z), dt, {}, {kNaN});
  check_tensor(eagle::reduce_sum(z, 1), dt, {2}, {kNaN, kNaN});
  check_tensor(eagle::reduce_max(z, 0), dt, {3}, {3, kNaN, kNaN});
  check_tensor(eagle::reduce_min(z, 0), dt, {3}, {1, kNaN, kNaN});
  check_tensor(eagle::reduce_mean(z, 0), dt, {3}, {2, kNaN, kNaN});
  // argmax and argmin pass NaN over, as TensorFlow (Note [ArgMax and NaN]); all NaN gives 0.
  check_tensor(eagle::argmax(z, 1), DType::kInt64, {2}, {1, 2});
  check_tensor(eagle::argmax(z, 0), DType::kInt64, {3}, {1, 0, 1});
  check_tensor(eagle::argmin(z, 1), DType::kInt64, {2}, {0, 0});
  check_tensor(eagle::argmin(z, 0), DType::kInt64, {3}, {0, 0, 1});
  check_tensor(eagle::argmax(make<T>({kNaN, 5, kNaN}, {3})), DType::kInt64, {}, {1});
  check_tensor(eagle::argmax(make<T>({kNaN, kNaN}, {2})), DType::kInt64, {}, {0});
  check_tensor(eagle::argmin(make<T>({kNaN, 5, -2}, {3})), DType::kInt64, {}, {2});
  const double inf = std::numeric_limits<double>::infinity();
  check_tensor(eagle::argmax(make<T>({-inf, kNaN}, {2})), DType::kInt64, {}, {0});
  check_tensor(eagle::argmax(make<T>({kNaN, -inf, 4}, {3, 1}), 0), DType::kInt64, {1}, {2});

  // Long rows and wide columns (the blocked loops) propagate NaN too.
  std::vector<double> row(1000, 1.0);
  row[577] = kNaN;
  check_tensor(eagle::reduce_max(make<T>(row, {1000})), dt, {}, {kNaN});
  check_tensor(eagle::reduce_min(make<T>(row, {1000})), dt, {}, {kNaN});
  check_tensor(eagle::argmax(make<T>(row, {1000})), DType::kInt64, {}, {0});
  row[600] = 2.0;
  check_tensor(eagle::argmax(make<T>(row, {1000})), DType::kInt64, {}, {600});
  row[600] = 1.0;
  std::vector<double> expected_max(500, 1.0), expected_arg(500, 0.0);
  expected_max[77] = kNaN;
  check_tensor(eagle::reduce_max(make<T>(row, {2, 500}), 0), dt, {500}, expected_max);
  check_tensor(eagle::argmax(make<T>(row, {2, 500}), 0), DType::kInt64, {500}, expected_arg);
  // softmax: a NaN in a row makes that row NaN.
  const std::vector<double> s = values_of(eagle::softmax(make<T>({1, kNaN, 2, 1, 2, 3}, {2, 3})));
  CHECK(std::all_of(s.begin(), s.begin() + 3, [](double v) { return std::isnan(v); }));
  CHECK(std::none_of(s.begin() + 3, s.end(), [](double v) { return std::isnan(v); }));
}

TEST_CASE("broadcasting corners", "[ops][broadcast]") {
  // [3,1] + [1,4]
  check_tensor(eagle::constant({0.0, 10.0, 20.0}, Shape{3, 1}) +
                   eagle::constant({0.0, 1.0, 2.0, 3.0}, Shape{1, 4}),
               DType::kFloat32, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  // [2,3] + [3] and [3] + [2,3]
  const Tensor m = eagle::constant({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor v = eagle::constant({10, 20, 30});
  check_tensor(m + v, DType::kInt32, {2, 3}, {11, 22, 33, 14, 25, 36});
  check_tensor(v - m, DType::kInt32, {2, 3}, {9, 18, 27, 6, 15, 24});
  // scalar + tensor, tensor + scalar, scalar + scalar
  check_tensor(eagle::constant(100) + m, DType::kInt32, {2, 3}, {101, 102, 103, 104, 105, 106});
  check_tensor(m * eagle::constant(-1), DType::kInt32, {2, 3}, {-1, -2, -3, -4, -5, -6});
  check_tensor(eagle::constant(2) * eagle::constant(21), DType::kInt32, {}, {42});
  // [1] + [N] and a [1] operand in higher rank
  check_tensor(eagle::constant({5}) + v, DType::kInt32, {3}, {15, 25, 35});
  check_tensor(eagle::constant({5}, Shape{1, 1}) + v, DType::kInt32, {1, 3}, {15, 25, 35});
  // Empty results: [1] + [0], [0] + [] and [2,0,3] + [1,3]
  check_tensor(eagle::constant({1.0}) + eagle::zeros({0}), DType::kFloat32, {0}, {});
  check_tensor(eagle::zeros({0}) + eagle::constant(1.0), DType::kFloat32, {0}, {});
  check_tensor(eagle::zeros({2, 0, 3}) + eagle::ones({1, 3}), DType::kFloat32, {2, 0, 3}, {});
  check_tensor(eagle::zeros({2, 1, 3}) + eagle::ones({0, 1}), DType::kFloat32, {2, 0, 3}, {});
  check_tensor(eagle::equal(eagle::zeros({0, 1}), eagle::zeros({1, 5})), DType::kBool, {0, 5}, {});
  // Identical shapes and same-rank shapes with 1s on both sides.
  check_tensor(eagle::constant({1, 2}, Shape{2, 1}) * eagle::constant({3, 4}, Shape{1, 2}),
               DType::kInt32, {2, 2}, {3, 4, 6, 8});
}

TEST_CASE("broadcasting matches xtensor on higher ranks", "[ops][broadcast]") {
  using Dims = std::vector<std::size_t>;
  const auto [sa, sb] = GENERATE(table<Dims, Dims>({
      {{2, 3, 4}, {4}},
      {{2, 3, 4}, {3, 1}},
      {{2, 1, 4}, {3, 1}},
      {{5, 1, 1, 2}, {1, 4, 3, 1}},
      {{1}, {2, 3}},
      {{2, 3, 1}, {2, 1, 5}},
      {{4, 1, 3}, {4, 2, 1}},
      {{1, 1, 1}, {2, 2, 2}},
      {{3, 1, 2, 1, 2}, {2, 1, 2, 1}},
      {{2, 2, 2, 2, 2, 2, 2, 2}, {2, 1, 2, 1, 2, 1, 2}},
      {{6, 1}, {6}},
      {{2, 3}, {1, 2, 3}},  // same count, size-1 dimensions added: one flat loop
      {{4, 1}, {1, 4, 1}},
  }));
  INFO(shape_of(sa).to_string() << " op " << shape_of(sb).to_string());
  const xt::xarray<double> a = arange_array(sa, 1, 1);
  const xt::xarray<double> b = arange_array(sb, -50, 3);
  const Tensor ta = eagle::from_xexpression(a);
  const Tensor tb = eagle::from_xexpression(b);
  check_array(eagle::to_xarray<double>(eagle::add(ta, tb)), xt::xarray<double>(a + b));
  check_array(eagle::to_xarray<double>(eagle::add(tb, ta)), xt::xarray<double>(b + a));
  check_array(eagle::to_xarray<double>(eagle::subtract(ta, tb)), xt::xarray<double>(a - b));
  check_array(eagle::to_xarray<double>(eagle::multiply(tb, ta)), xt::xarray<double>(b * a));
  check_array(eagle::to_xarray<double>(eagle::maximum(ta, tb)),
              xt::xarray<double>(xt::maximum(a, b)));
  check_array(eagle::to_xarray<bool>(eagle::less(ta, tb)), xt::xarray<bool>(a < b));
  // The same through integer kernels.
  const Tensor ia = eagle::cast(ta, DType::kInt32), ib = eagle::cast(tb, DType::kInt32);
  check_array(eagle::to_xarray<std::int32_t>(ia * ib),
              xt::xarray<std::int32_t>(xt::cast<std::int32_t>(a * b)));
}

TEMPLATE_LIST_TEST_CASE("integer arithmetic wraps around", "[ops][wrap]", IntegerTypes) {
  using T = TestType;
  using L = std::numeric_limits<T>;
  const auto one = [](T v) { return eagle::constant(std::vector<T>{v}, Shape{}); };
  const auto val = [](const Tensor& t) { return t.item<T>(); };
  CHECK(val(one(L::max()) + 1) == L::min());
  CHECK(val(eagle::add(one(L::max()), one(1))) == L::min());
  CHECK(val(one(L::min()) - 1) == L::max());
  CHECK(val(one(L::max()) + one(L::max())) == T(-2));
  CHECK(val(one(L::max()) * 2) == T(-2));
  CHECK(val(one(L::min()) * one(-1)) == L::min());
  CHECK(val(-one(L::min())) == L::min());
  CHECK(val(eagle::abs(one(L::min()))) == L::min());
  CHECK(val(eagle::square(one(L::max()))) == T(1));
  constexpr int bits = std::numeric_limits<T>::digits + 1;
  CHECK(val(eagle::pow(one(2), one(bits - 1))) == L::min());
  CHECK(val(eagle::pow(one(2), one(bits))) == T(0));
  CHECK(val(eagle::pow(one(-2), one(bits - 1))) == L::min());
  {
    using U = std::make_unsigned_t<T>;
    U expected = 1;
    for (int i = 0; i < 40; ++i) expected = static_cast<U>(expected * 3u);
    CHECK(val(eagle::pow(one(3), one(40))) == static_cast<T>(expected));
  }
  CHECK(val(eagle::reduce_sum(eagle::constant(std::vector<T>{L::max(), 1}))) == L::min());
  // The mean divides the wrapped sum: (max + max) wraps to -2.
  CHECK(val(eagle::reduce_mean(eagle::constant(std::vector<T>{L::max(), L::max()}))) == T(-1));
  CHECK(val(eagle::add_n({one(L::max()), one(1), one(1)})) == T(L::min() + 1));
  CHECK(val(eagle::matmul(eagle::constant(std::vector<T>{L::max(), 1}, Shape{1, 2}),
                          eagle::constant(std::vector<T>{1, 1}, Shape{2, 1}))) == L::min());
  // Comparisons do not overflow.
  CHECK(eagle::less(one(L::min()), one(L::max())).template item<bool>());
  // Division is exact in float64.
  CHECK(eagle::divide(one(L::max()), one(1)).template item<double>() ==
        static_cast<double>(L::max()));
}

TEST_CASE("INT32_MAX + 1 == INT32_MIN", "[ops][wrap]") {
  const Tensor x = eagle::constant(std::vector<std::int32_t>{INT32_MAX, INT32_MIN, 0});
  CHECK((x + 1).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{INT32_MIN, INT32_MIN + 1, 1});
}

// ---- Elementwise unary ----------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("negative, abs, square and relu", "[ops][unary]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor x = make<T>({-3, -1, 0, 2, 5, 7}, {3, 2});
  check_tensor(eagle::negative(x), dt, {3, 2}, {3, 1, 0, -2, -5, -7});
  check_tensor(eagle::abs(x), dt, {3, 2}, {3, 1, 0, 2, 5, 7});
  check_tensor(eagle::square(x), dt, {3, 2}, {9, 1, 0, 4, 25, 49});
  check_tensor(eagle::relu(x), dt, {3, 2}, {0, 0, 0, 2, 5, 7});
  check_tensor(eagle::negative(make<T>({4}, {})), dt, {}, {-4});
  check_tensor(eagle::abs(make<T>({}, {0})), dt, {0}, {});
  check_tensor(eagle::relu(make<T>({}, {2, 0})), dt, {2, 0}, {});
}

TEMPLATE_LIST_TEST_CASE("exp, log, sqrt, sigmoid and tanh", "[ops][unary]", FloatingTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const double rel = tol<T>();
  const std::vector<double> xs{-2, -0.5, 0, 0.5, 1, 3};
  const Tensor x = make<T>(xs, {2, 3});
  const auto map = [&](double (*f)(double)) {
    std::vector<double> out;
    for (double v : roundtrip<T>(xs)) out.push_back(f(v));
    return out;
  };
  check_tensor(eagle::exp(x), dt, {2, 3}, map([](double v) { return std::exp(v); }), rel);
  check_tensor(eagle::tanh(x), dt, {2, 3}, map([](double v) { return std::tanh(v); }), rel);
  check_tensor(eagle::sigmoid(x), dt, {2, 3}, map([](double v) { return 1 / (1 + std::exp(-v)); }),
               rel);
  const std::vector<double> pos{0.25, 0.5, 1, 2, 10, 100};
  const Tensor p = make<T>(pos, {6});
  std::vector<double> logs, roots;
  for (double v : pos) {
    logs.push_back(std::log(v));
    roots.push_back(std::sqrt(v));
  }
  check_tensor(eagle::log(p), dt, {6}, logs, rel);
  check_tensor(eagle::sqrt(p), dt, {6}, roots, rel);

  // Special values.
  const Tensor s = make<T>({0, -1, kInf, -kInf, kNaN}, {5});
  check_tensor(eagle::log(s), dt, {5}, {-kInf, kNaN, kInf, kNaN, kNaN});
  check_tensor(eagle::sqrt(s), dt, {5}, {0, kNaN, kInf, kNaN, kNaN});
  check_tensor(eagle::exp(s), dt, {5}, {1, 1 / std::exp(1.0), kInf, 0, kNaN}, rel);
  check_tensor(eagle::sigmoid(s), dt, {5}, {0.5, 1 / (1 + std::exp(1.0)), 1, 0, kNaN}, rel);
  check_tensor(eagle::tanh(s), dt, {5}, {0, std::tanh(-1.0), 1, -1, kNaN}, rel);
  if constexpr (std::is_same_v<T, float16>) {
    check_tensor(eagle::exp(make<T>({12}, {})), dt, {}, {kInf});  // past 65504
  }
  // Rank 0 and empty.
  check_tensor(eagle::exp(make<T>({0}, {})), dt, {}, {1});
  check_tensor(eagle::sqrt(make<T>({}, {0, 3})), dt, {0, 3}, {});
}

// ---- Reductions -----------------------------------------------------------------------------

namespace {

// nullopt: all axes (Axes{}); a list (possibly empty: no axes) otherwise.
using AxesSpec = std::optional<std::vector<int>>;
AxesSpec axes_list(std::vector<int> axes) { return AxesSpec(std::move(axes)); }

eagle::Axes to_axes(const AxesSpec& spec) { return spec ? eagle::Axes(*spec) : eagle::Axes(); }

std::vector<std::size_t> normalized_axes(const AxesSpec& spec, int rank) {
  std::vector<std::size_t> out;
  if (!spec) {
    for (int i = 0; i < rank; ++i) out.push_back(static_cast<std::size_t>(i));
  } else {
    for (int a : *spec) out.push_back(static_cast<std::size_t>(a < 0 ? a + rank : a));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Shape reduced_shape(const Shape& in, const std::vector<std::size_t>& axes, bool keepdims) {
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    const bool reduced =
        std::find(axes.begin(), axes.end(), static_cast<std::size_t>(i)) != axes.end();
    if (!reduced) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

enum class Kind { kSum, kMean, kMax, kMin };

// The reference: xtensor in float64; integer means truncate toward zero.
std::vector<double> ref_reduce(Kind kind, const xt::xarray<double>& a,
                               const std::vector<std::size_t>& axes, bool integer) {
  if (axes.empty()) return {a.begin(), a.end()};
  xt::xarray<double> r;
  switch (kind) {
    case Kind::kSum:
      r = xt::sum(a, axes);
      break;
    case Kind::kMean: {
      std::size_t count = 1;
      for (auto ax : axes) count *= a.shape()[ax];
      r = xt::sum(a, axes) / static_cast<double>(count);
      if (integer) r = xt::trunc(r);
      break;
    }
    case Kind::kMax:
      r = xt::amax(a, axes);
      break;
    case Kind::kMin:
      r = xt::amin(a, axes);
      break;
  }
  return {r.begin(), r.end()};
}

Tensor run_reduce(Kind kind, const Tensor& x, const eagle::Axes& axes, bool keepdims) {
  switch (kind) {
    case Kind::kSum:
      return eagle::reduce_sum(x, axes, keepdims);
    case Kind::kMean:
      return eagle::reduce_mean(x, axes, keepdims);
    case Kind::kMax:
      return eagle::reduce_max(x, axes, keepdims);
    case Kind::kMin:
      break;
  }
  return eagle::reduce_min(x, axes, keepdims);
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kSum:
      return "reduce_sum";
    case Kind::kMean:
      return "reduce_mean";
    case Kind::kMax:
      return "reduce_max";
    case Kind::kMin:
      break;
  }
  return "reduce_min";
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("reductions over any axes match xtensor", "[ops][reduce]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const AxesSpec spec = GENERATE(
      AxesSpec{}, axes_list({}), axes_list({0}), axes_list({1}), axes_list({2}), axes_list({3}),
      axes_list({-1}), axes_list({-4}), axes_list({0, 2}), axes_list({2, 0}), axes_list({1, 3}),
      axes_list({-1, -3}), axes_list({0, 3}), axes_list({0, 1, 3}), axes_list({1, 2}),
      axes_list({0, 1, 2, 3}), axes_list({3, 1, 2, 0}));
  const bool keepdims = GENERATE(false, true);
  const Kind kind = GENERATE(Kind::kSum, Kind::kMean, Kind::kMax, Kind::kMin);

  const Shape shape{2, 3, 4, 5};
  std::vector<double> values;
  for (int i = 0; i < 120; ++i) values.push_back(((i * 7) % 9) - 4);  // in [-4, 4]
  const Tensor x = make<T>(values, shape);
  xt::xarray<double> a = xt::adapt(values, std::vector<std::size_t>{2, 3, 4, 5});

  const std::vector<std::size_t> axes = normalized_axes(spec, shape.rank());
  std::string axes_text = spec ? "{" : "all";
  if (spec) {
    for (int ax : *spec) axes_text += std::to_string(ax) + " ";
    axes_text += "}";
  }
  INFO(kind_name(kind) << " axes " << axes_text << " keepdims " << keepdims);
  const bool exact = kind == Kind::kMax || kind == Kind::kMin || (!kIsFloat<T>) ||
                     (kind == Kind::kSum && !kIsHalf<T>);
  check_tensor(run_reduce(kind, x, to_axes(spec), keepdims), dt,
               reduced_shape(shape, axes, keepdims), ref_reduce(kind, a, axes, !kIsFloat<T>),
               exact ? 0 : tol<T>());
}

TEST_CASE("reductions: call forms", "[ops][reduce]") {
  const Tensor x = eagle::constant({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  check_tensor(eagle::reduce_sum(x), DType::kInt32, {}, {21});
  check_tensor(eagle::reduce_sum(x, {}), DType::kInt32, {}, {21});
  check_tensor(eagle::reduce_sum(x, {}, true), DType::kInt32, {1, 1}, {21});
  check_tensor(eagle::reduce_sum(x, 0), DType::kInt32, {3}, {5, 7, 9});
  check_tensor(eagle::reduce_sum(x, -1), DType::kInt32, {2}, {6, 15});
  check_tensor(eagle::reduce_sum(x, {0, 1}), DType::kInt32, {}, {21});
  check_tensor(eagle::reduce_sum(x, eagle::Axes::none()), DType::kInt32, {2, 3},
               {1, 2, 3, 4, 5, 6});
  check_tensor(eagle::reduce_mean(x, 1, true), DType::kInt32, {2, 1}, {2, 5});
  check_tensor(eagle::reduce_mean(x, eagle::Axes::none()), DType::kInt32, {2, 3},
               {1, 2, 3, 4, 5, 6});
  check_tensor(eagle::reduce_max(x, std::vector<int>{1}), DType::kInt32, {2}, {3, 6});
  check_tensor(eagle::reduce_min(x, {-2}, true), DType::kInt32, {1, 3}, {1, 2, 3});
  // Integer means truncate toward zero.
  check_tensor(eagle::reduce_mean(eagle::constant({-3, -4})), DType::kInt32, {}, {-3});
  check_tensor(eagle::reduce_mean(eagle::constant({3, 4})), DType::kInt32, {}, {3});
  check_tensor(eagle::reduce_mean(eagle::constant({3.0, 4.0})), DType::kFloat32, {}, {3.5});
  // Size-1 axes.
  check_tensor(eagle::reduce_sum(eagle::constant({1.0, 2.0}, Shape{1, 2, 1}), {0, 2}),
               DType::kFloat32, {2}, {1, 2});
  check_tensor(eagle::reduce_mean(eagle::constant({1.0, 2.0}, Shape{1, 2, 1}), 0, true),
               DType::kFloat32, {1, 2, 1}, {1, 2});
}

TEMPLATE_LIST_TEST_CASE("reductions of rank-0 and empty tensors", "[ops][reduce]", NumericTypes) {
  using T = TestType;
  using L = std::numeric_limits<std::conditional_t<kIsHalf<T>, float, T>>;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor s = make<T>({7}, {});
  for (Kind k : {Kind::kSum, Kind::kMean, Kind::kMax, Kind::kMin}) {
    INFO(kind_name(k));
    check_tensor(run_reduce(k, s, {}, false), dt, {}, {7});
    check_tensor(run_reduce(k, s, {}, true), dt, {}, {7});
    check_tensor(run_reduce(k, s, eagle::Axes::none(), false), dt, {}, {7});
  }
  // The value over an empty set: 0, NaN (integers: 0), the lowest and the highest value.
  const double lowest = kIsFloat<T> ? -kInf : static_cast<double>(L::lowest());
  const double highest = kIsFloat<T> ? kInf : static_cast<double>(L::max());
  const double empty_mean = kIsFloat<T> ? kNaN : 0;
  const Tensor e = make<T>({}, {0});
  check_tensor(eagle::reduce_sum(e), dt, {}, {0});
  check_tensor(eagle::reduce_mean(e), dt, {}, {empty_mean});
  check_tensor(eagle::reduce_max(e), dt, {}, {lowest});
  check_tensor(eagle::reduce_min(e), dt, {}, {highest});
  const Tensor e2 = make<T>({}, {2, 0});
  check_tensor(eagle::reduce_sum(e2, 1), dt, {2}, {0, 0});
  check_tensor(eagle::reduce_max(e2, 1, true), dt, {2, 1}, {lowest, lowest});
  check_tensor(eagle::reduce_min(e2, -1), dt, {2}, {highest, highest});
  check_tensor(eagle::reduce_mean(e2, 1), dt, {2}, {empty_mean, empty_mean});
  check_tensor(eagle::reduce_sum(e2, 0), dt, {0}, {});
  check_tensor(eagle::reduce_max(e2, 0, true), dt, {1, 0}, {});
  check_tensor(eagle::reduce_sum(e2), dt, {}, {0});
  check_tensor(eagle::reduce_sum(make<T>({}, {0, 3, 2}), {0, 2}), dt, {3}, {0, 0, 0});
}

TEMPLATE_TEST_CASE("large reductions (blocked loops) stay exact", "[ops][reduce]", float, double,
                   int32_t, int64_t) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  // Integer values keep every partial sum exact in each type.
  const auto run = [&](const std::vector<std::size_t>& dims, const AxesSpec& spec) {
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<double>((i * 31) % 23) - 11;
    const xt::xarray<double> a = xt::adapt(values, dims);
    const Tensor x = make<T>(values, shape_of(dims));
    const std::vector<std::size_t> axes = normalized_axes(spec, static_cast<int>(dims.size()));
    for (Kind k : {Kind::kSum, Kind::kMean, Kind::kMax, Kind::kMin}) {
      INFO(kind_name(k) << " of " << shape_of(dims).to_string());
      check_tensor(run_reduce(k, x, to_axes(spec), false), dt,
                   reduced_shape(shape_of(dims), axes, false), ref_reduce(k, a, axes, !kIsFloat<T>),
                   k == Kind::kMean && kIsFloat<T> ? tol<T>() : 0);
    }
  };
  run({300, 260}, axes_list({0}));          // column tiles wider than one tile, row chunks
  run({300, 260}, axes_list({1}));          // long rows
  run({300, 260}, AxesSpec{});              // everything
  run({3, 5000}, axes_list({1}));           // rows longer than one block
  run({70001}, AxesSpec{});                 // one long row with a tail
  run({4, 130, 3, 70}, axes_list({1, 3}));  // two reduced groups: transposed first
  run({4, 130, 3, 70}, axes_list({0, 2}));
}

TEMPLATE_LIST_TEST_CASE("argmax", "[ops][reduce]", NumericTypes) {
  using T = TestType;
  const Tensor x = make<T>({1, 5, 3, 7, 2, 7}, {2, 3});
  const DType i64 = DType::kInt64;
  check_tensor(eagle::argmax(x), i64, {3}, {1, 0, 1});
  check_tensor(eagle::argmax(x, 0), i64, {3}, {1, 0, 1});
  check_tensor(eagle::argmax(x, -2), i64, {3}, {1, 0, 1});
  check_tensor(eagle::argmax(x, 1), i64, {2}, {1, 0});  // ties: the first
  check_tensor(eagle::argmax(x, -1), i64, {2}, {1, 0});
  check_tensor(eagle::argmax(make<T>({-5, -2, -9}, {3})), i64, {}, {1});
  check_tensor(eagle::argmax(make<T>({4}, {1, 1}), 1), i64, {1}, {0});
  check_tensor(eagle::argmax(make<T>({}, {0, 3}), 1), i64, {0}, {});
  check_tensor(eagle::argmax(make<T>({}, {3, 0}), 0), i64, {0}, {});

  // Rank 3 over the middle axis, wider than one tile: against a loop reference.
  const std::int64_t d0 = 2, d1 = 5, d2 = 300;
  std::vector<double> values;
  for (std::int64_t i = 0; i < d0 * d1 * d2; ++i)
    values.push_back(static_cast<double>((i * 13) % 11));
  std::vector<double> expected;
  for (std::int64_t a = 0; a < d0; ++a) {
    for (std::int64_t c = 0; c < d2; ++c) {
      std::int64_t best = 0;
      for (std::int64_t b = 1; b < d1; ++b) {
        if (values[(a * d1 + b) * d2 + c] > values[(a * d1 + best) * d2 + c]) best = b;
      }
      expected.push_back(static_cast<double>(best));
    }
  }
  check_tensor(eagle::argmax(make<T>(values, {d0, d1, d2}), 1), i64, {d0, d2}, expected);

  // argmin mirrors it: the first smallest.
  check_tensor(eagle::argmin(x, 0), i64, {3}, {0, 1, 0});
  check_tensor(eagle::argmin(x, 1), i64, {2}, {0, 1});
  check_tensor(eagle::argmin(make<T>({3, 1, 1, 2}, {4})), i64, {}, {1});
}

TEST_CASE("argmax and argmin of bool: the first true, the first false", "[ops][reduce]") {
  const Tensor b = eagle::constant({false, true, true, false}, {2, 2});
  CHECK(eagle::argmax(b, 1).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0});
  CHECK(eagle::argmax(b, 0).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0});
  CHECK(eagle::argmin(b, 1).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1});
  CHECK(eagle::argmax(eagle::constant({false, false})).item<std::int64_t>() == 0);
}

// ---- Linear algebra -------------------------------------------------------------------------

namespace {

// Batched matmul with broadcast batch dimensions, in float64.
std::vector<double> ref_matmul(const std::vector<double>& a, const Shape& sa,
                               const std::vector<double>& b, const Shape& sb, bool ta, bool tb) {
  const int ra = sa.rank(), rb = sb.rank();
  const std::int64_t m = ta ? sa[ra - 1] : sa[ra - 2];
  const std::int64_t k = ta ? sa[ra - 2] : sa[ra - 1];
  const std::int64_t n = tb ? sb[rb - 2] : sb[rb - 1];
  const int nb = std::max(ra, rb) - 2;
  std::vector<std::int64_t> dims(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) {
    const int ia = i - (nb - (ra - 2)), ib = i - (nb - (rb - 2));
    const std::int64_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
    dims[i] = da == 1 ? db : da;
  }
  std::int64_t batch = 1;
  for (auto d : dims) batch *= d;
  std::vector<double> out;
  for (std::int64_t t = 0; t < batch; ++t) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(nb));
    for (int i = nb - 1, rest = static_cast<int>(t); i >= 0; --i) {
      idx[i] = rest % dims[i];
      rest /= static_cast<int>(dims[i]);
    }
    const auto offset = [&](const Shape& s) {
      const int r = s.rank();
      std::int64_t lin = 0;
      for (int j = 0; j < r - 2; ++j) lin = lin * s[j] + (s[j] == 1 ? 0 : idx[j + nb - (r - 2)]);
      return lin * s[r - 2] * s[r - 1];
    };
    const std::int64_t ao = offset(sa), bo = offset(sb);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          const double av = ta ? a[ao + p * m + i] : a[ao + i * k + p];
          const double bv = tb ? b[bo + j * k + p] : b[bo + p * n + j];
          acc += av * bv;
        }
        out.push_back(acc);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("matmul: the seed example", "[ops][matmul]") {
  const Tensor a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const Tensor b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  check_tensor(eagle::matmul(a, b), DType::kFloat32, {2, 2}, {22, 28, 49, 64});
}

TEMPLATE_LIST_TEST_CASE("matmul: transposes, batches and broadcast batch dimensions",
                        "[ops][matmul]", NumericTypes) {
  using T = TestType;
  using Dims = std::vector<std::int64_t>;
  const auto [da, db, ta, tb, dout] = GENERATE(table<Dims, Dims, bool, bool, Dims>({
      {{2, 3}, {3, 2}, false, false, {2, 2}},
      {{3, 2}, {3, 2}, true, false, {2, 2}},
      {{2, 3}, {2, 3}, false, true, {2, 2}},
      {{3, 2}, {2, 3}, true, true, {2, 2}},
      {{1, 1}, {1, 1}, false, false, {1, 1}},
      {{4, 1}, {1, 5}, false, false, {4, 5}},
      {{2, 2, 3}, {3, 4}, false, false, {2, 2, 4}},
      {{2, 3, 2}, {3, 4}, true, false, {2, 2, 4}},
      {{2, 3}, {4, 3, 5}, false, false, {4, 2, 5}},
      {{2, 3}, {4, 5, 3}, false, true, {4, 2, 5}},
      {{2, 1, 2, 3}, {3, 3, 4}, false, false, {2, 3, 2, 4}},
      {{1, 2, 3}, {4, 3, 2}, false, false, {4, 2, 2}},
      {{3, 3, 2}, {3, 4, 3}, true, true, {3, 2, 4}},
      {{2, 3, 2}, {1, 4, 3}, true, true, {2, 2, 4}},
      {{5, 1, 2, 3}, {1, 4, 3, 2}, false, false, {5, 4, 2, 2}},
      {{2, 2, 2, 3}, {2, 2, 3, 1}, false, false, {2, 2, 2, 1}},
      {{2, 0}, {0, 3}, false, false, {2, 3}},
      {{0, 3}, {3, 2}, false, false, {0, 2}},
      {{3, 0}, {3, 2}, true, false, {0, 2}},
      {{2, 0, 3}, {3, 4}, false, false, {2, 0, 4}},
      {{0, 2, 3}, {1, 3, 4}, false, false, {0, 2, 4}},
  }));
  const Shape sa(da), sb(db);
  INFO(sa.to_string() << (ta ? "^T" : "") << " @ " << sb.to_string() << (tb ? "^T" : ""));
  std::vector<double> va, vb;
  for (std::int64_t i = 0; i < sa.num_elements(); ++i) va.push_back(static_cast<double>(i % 5 - 2));
  for (std::int64_t i = 0; i < sb.num_elements(); ++i) {
    vb.push_back(static_cast<double>((i * 3) % 7 - 3));
  }
  // |values| <= 3 and k <= 3: every result is exact in every dtype.
  check_tensor(eagle::matmul(make<T>(va, sa), make<T>(vb, sb), ta, tb), eagle::dtype_of_v<T>,
               Shape(dout), ref_matmul(va, sa, vb, sb, ta, tb));
}

TEMPLATE_TEST_CASE("matmul: larger operands (BLAS and the blocked integer loops)", "[ops][matmul]",
                   float, double, int32_t, int64_t) {
  using T = TestType;
  const auto run = [](const Shape& sa, const Shape& sb, bool ta, bool tb, const Shape& out) {
    std::vector<double> va, vb;
    for (std::int64_t i = 0; i < sa.num_elements(); ++i) va.push_back(double((i * 7) % 9) - 4);
    for (std::int64_t i = 0; i < sb.num_elements(); ++i) vb.push_back(double((i * 5) % 11) - 5);
    INFO(sa.to_string() << " @ " << sb.to_string());
    check_tensor(eagle::matmul(make<T>(va, sa), make<T>(vb, sb), ta, tb), eagle::dtype_of_v<T>, out,
                 ref_matmul(va, sa, vb, sb, ta, tb));
  };
  run({33, 70}, {70, 45}, false, false, {33, 45});
  run({70, 33}, {45, 70}, true, true, {33, 45});
  run({3, 300}, {300, 530}, false, false, {3, 530});
  run({3, 300}, {530, 300}, false, true, {3, 530});
  run({4, 17, 19}, {19, 23}, false, false, {4, 17, 23});
  run({2, 1, 19, 17}, {3, 19, 23}, true, false, {2, 3, 17, 23});
}

TEMPLATE_LIST_TEST_CASE("add_n", "[ops][linalg]", NumericTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor x = make<T>({1, -2, 3, 0}, {2, 2});
  const Tensor y = make<T>({10, 20, -30, 1}, {2, 2});
  const Tensor z = make<T>({-1, 2, 3, 4}, {2, 2});
  check_tensor(eagle::add_n({x}), dt, {2, 2}, {1, -2, 3, 0});
  check_tensor(eagle::add_n({x, y}), dt, {2, 2}, {11, 18, -27, 1});
  check_tensor(eagle::add_n({x, y, z, x}), dt, {2, 2}, {11, 18, -21, 5});
  check_tensor(eagle::add_n({make<T>({2}, {}), make<T>({3}, {})}), dt, {}, {5});
  check_tensor(eagle::add_n({make<T>({}, {0, 2}), make<T>({}, {0, 2})}), dt, {0, 2}, {});
}

TEST_CASE("add_n on 16-bit floats rounds once", "[ops][linalg]") {
  // 256 + 1 + 1 in bfloat16: pairwise rounding would give 256; one rounding gives 258.
  const Tensor a = eagle::constant(std::vector<bfloat16>{bfloat16(256.f)});
  const Tensor b = eagle::constant(std::vector<bfloat16>{bfloat16(1.f)});
  check_tensor(eagle::add_n({a, b, b}), DType::kBFloat16, {1}, {258});
  check_tensor(eagle::add(eagle::add(a, b), b), DType::kBFloat16, {1}, {256});
}

TEMPLATE_LIST_TEST_CASE("softmax over the last axis", "[ops][linalg]", FloatingTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const double rel = tol<T>();
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), s = 1 + e1 + e2;
  check_tensor(eagle::softmax(make<T>({1, 2, 3, 1, 1, 1}, {2, 3})), dt, {2, 3},
               {1 / s, e1 / s, e2 / s, 1.0 / 3, 1.0 / 3, 1.0 / 3}, rel);
  check_tensor(eagle::softmax(make<T>({0, 1, 2}, {3})), dt, {3}, {1 / s, e1 / s, e2 / s}, rel);
  check_tensor(eagle::softmax(make<T>({5}, {1})), dt, {1}, {1});
  // -inf gets weight 0; large logits do not overflow.
  check_tensor(eagle::softmax(make<T>({-kInf, 0, 0}, {3})), dt, {3}, {0, 0.5, 0.5}, rel);
  check_tensor(eagle::softmax(make<T>({500, 500}, {2})), dt, {2}, {0.5, 0.5}, rel);
  if constexpr (!kIsHalf<T>) {
    check_tensor(eagle::softmax(make<T>({1000, 1001, 1002}, {3})), dt, {3}, {1 / s, e1 / s, e2 / s},
                 rel);
  }
  // Rank 3: each row of the last axis sums to 1.
  std::vector<double> v;
  for (int i = 0; i < 2 * 3 * 7; ++i) v.push_back(std::sin(i) * 4);
  const std::vector<double> out = values_of(eagle::softmax(make<T>(v, {2, 3, 7})));
  for (int r = 0; r < 6; ++r) {
    double row = 0;
    for (int j = 0; j < 7; ++j) row += out[r * 7 + j];
    CHECK(row == Approx(1).epsilon(10 * rel));
  }
  check_tensor(eagle::softmax(make<T>({}, {0, 3})), dt, {0, 3}, {});
  check_tensor(eagle::softmax(make<T>({}, {2, 0})), dt, {2, 0}, {});
}

// ---- Shape ops ------------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("reshape, expand_dims and squeeze keep values", "[ops][shape]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const std::vector<double> v{0, 1, 2, 3, 4, 5};
  const std::vector<double> want = roundtrip<T>(v);
  const Tensor x = make<T>(v, {6});
  check_tensor(eagle::reshape(x, {2, 3}), dt, {2, 3}, want);
  check_tensor(eagle::reshape(x, {3, -1}), dt, {3, 2}, want);
  check_tensor(eagle::reshape(x, {-1, 1, 2}), dt, {3, 1, 2}, want);
  check_tensor(eagle::reshape(eagle::reshape(x, {2, 3}), {-1}), dt, {6}, want);
  check_tensor(eagle::reshape(x, {1, 6, 1}), dt, {1, 6, 1}, want);
  check_tensor(eagle::reshape(make<T>({1}, {1, 1}), {}), dt, {}, {1});
  check_tensor(eagle::reshape(make<T>({1}, {}), {1, 1, -1}), dt, {1, 1, 1}, {1});
  check_tensor(eagle::reshape(make<T>({}, {0, 3}), {-1, 3}), dt, {0, 3}, {});
  check_tensor(eagle::reshape(make<T>({}, {0, 3}), {3, 0, 2}), dt, {3, 0, 2}, {});

  const Tensor m = make<T>(v, {2, 3});
  check_tensor(eagle::expand_dims(m, 0), dt, {1, 2, 3}, want);
  check_tensor(eagle::expand_dims(m, 1), dt, {2, 1, 3}, want);
  check_tensor(eagle::expand_dims(m, 2), dt, {2, 3, 1}, want);
  check_tensor(eagle::expand_dims(m, -1), dt, {2, 3, 1}, want);
  check_tensor(eagle::expand_dims(m, -3), dt, {1, 2, 3}, want);
  check_tensor(eagle::expand_dims(make<T>({1}, {}), 0), dt, {1}, {1});
  check_tensor(eagle::expand_dims(make<T>({1}, {}), -1), dt, {1}, {1});
  check_tensor(eagle::expand_dims(make<T>({}, {0}), 1), dt, {0, 1}, {});

  const Tensor s = make<T>(v, {1, 2, 1, 3, 1});
  check_tensor(eagle::squeeze(s), dt, {2, 3}, want);
  check_tensor(eagle::squeeze(s, {0}), dt, {2, 1, 3, 1}, want);
  check_tensor(eagle::squeeze(s, {-1, 0}), dt, {2, 1, 3}, want);
  check_tensor(eagle::squeeze(s, {2}), dt, {1, 2, 3, 1}, want);
  check_tensor(eagle::squeeze(m), dt, {2, 3}, want);
  check_tensor(eagle::squeeze(make<T>({1}, {1, 1})), dt, {}, {1});
  check_tensor(eagle::squeeze(make<T>({1}, {})), dt, {}, {1});
  check_tensor(eagle::squeeze(make<T>({}, {1, 0})), dt, {0}, {});
}

TEMPLATE_LIST_TEST_CASE("transpose", "[ops][shape]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const std::vector<double> v{0, 1, 2, 3, 4, 5};
  check_tensor(eagle::transpose(make<T>(v, {2, 3})), dt, {3, 2}, roundtrip<T>({0, 3, 1, 4, 2, 5}));
  check_tensor(eagle::transpose(make<T>(v, {2, 3}), {1, 0}), dt, {3, 2},
               roundtrip<T>({0, 3, 1, 4, 2, 5}));
  check_tensor(eagle::transpose(make<T>(v, {2, 3}), {0, 1}), dt, {2, 3}, roundtrip<T>(v));
  check_tensor(eagle::transpose(make<T>(v, {6})), dt, {6}, roundtrip<T>(v));
  check_tensor(eagle::transpose(make<T>({1}, {})), dt, {}, {1});
  check_tensor(eagle::transpose(make<T>({}, {0, 3})), dt, {3, 0}, {});
  check_tensor(eagle::transpose(make<T>({}, {2, 0, 1}), {2, 0, 1}), dt, {1, 2, 0}, {});

  // Rank 3 and 4 against xtensor, for every permutation.
  for (const std::vector<std::size_t>& dims :
       {std::vector<std::size_t>{2, 3, 4}, std::vector<std::size_t>{3, 1, 2, 5}}) {
    const xt::xarray<double> a = arange_array(dims);
    const Tensor x = make<T>({a.begin(), a.end()}, shape_of(dims));
    std::vector<std::size_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      const xt::xarray<double> want = xt::transpose(a, perm);
      std::vector<std::size_t> want_dims(want.shape().begin(), want.shape().end());
      const std::vector<int> p(perm.begin(), perm.end());
      INFO("perm of " << shape_of(dims).to_string());
      check_tensor(eagle::transpose(x, p), dt, shape_of(want_dims),
                   roundtrip<T>({want.begin(), want.end()}));
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEMPLATE_LIST_TEST_CASE("concat", "[ops][shape]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const Tensor a = make<T>({1, 2, 3, 4}, {2, 2});
  const Tensor b = make<T>({5, 0}, {2, 1});
  const Tensor c = make<T>({7, 8}, {1, 2});
  check_tensor(eagle::concat({a, b}, 1), dt, {2, 3}, roundtrip<T>({1, 2, 5, 3, 4, 0}));
  check_tensor(eagle::concat({a, b}, -1), dt, {2, 3}, roundtrip<T>({1, 2, 5, 3, 4, 0}));
  check_tensor(eagle::concat({a, c}, 0), dt, {3, 2}, roundtrip<T>({1, 2, 3, 4, 7, 8}));
  check_tensor(eagle::concat({c, a, c}, -2), dt, {4, 2}, roundtrip<T>({7, 8, 1, 2, 3, 4, 7, 8}));
  check_tensor(eagle::concat({a}, 0), dt, {2, 2}, roundtrip<T>({1, 2, 3, 4}));
  check_tensor(eagle::concat({make<T>({}, {0, 2}), a, make<T>({}, {0, 2})}, 0), dt, {2, 2},
               roundtrip<T>({1, 2, 3, 4}));
  check_tensor(eagle::concat({make<T>({}, {0, 2}), make<T>({}, {0, 2})}, 1), dt, {0, 4}, {});
  check_tensor(eagle::concat({make<T>({1, 2}, {2}), make<T>({3}, {1})}, 0), dt, {3},
               roundtrip<T>({1, 2, 3}));

  // Rank 3 along every axis against xtensor.
  const xt::xarray<double> x = arange_array({2, 3, 4}, 1);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    std::vector<std::size_t> dims{2, 3, 4};
    dims[axis] = 2;
    const xt::xarray<double> y = arange_array(dims, 100);
    const xt::xarray<double> want = xt::concatenate(xt::xtuple(x, y, x), axis);
    const Tensor tx = make<T>({x.begin(), x.end()}, {2, 3, 4});
    const Tensor ty = make<T>({y.begin(), y.end()}, shape_of(dims));
    std::vector<std::size_t> want_dims(want.shape().begin(), want.shape().end());
    INFO("axis " << axis);
    check_tensor(eagle::concat({tx, ty, tx}, static_cast<int>(axis)), dt, shape_of(want_dims),
                 roundtrip<T>({want.begin(), want.end()}));
  }
}

TEMPLATE_LIST_TEST_CASE("slice", "[ops][shape]", AllTypes) {
  using T = TestType;
  const DType dt = eagle::dtype_of_v<T>;
  const std::vector<double> v = iota(12);
  const Tensor x = make<T>(v, {3, 4});
  check_tensor(eagle::slice(x, {1, 1}, {2, 2}), dt, {2, 2}, roundtrip<T>({5, 6, 9, 10}));
  check_tensor(eagle::slice(x, {1, 2}, {-1, -1}), dt, {2, 2}, roundtrip<T>({6, 7, 10, 11}));
  check_tensor(eagle::slice(x, {0, 0}, {3, 4}), dt, {3, 4}, roundtrip<T>(v));
  check_tensor(eagle::slice(x, {0, 3}, {-1, 1}), dt, {3, 1}, roundtrip<T>({3, 7, 11}));
  check_tensor(eagle::slice(x, {2, 0}, {1, -1}), dt, {1, 4}, roundtrip<T>({8, 9, 10, 11}));
  check_tensor(eagle::slice(x, {3, 0}, {0, -1}), dt, {0, 4}, {});
  check_tensor(eagle::slice(x, {1, 4}, {2, -1}), dt, {2, 0}, {});
  check_tensor(eagle::slice(make<T>({1}, {}), {}, {}), dt, {}, {1});

  // Rank 3 against xtensor views.
  const xt::xarray<double> a = arange_array({3, 4, 5});
  const Tensor t = make<T>({a.begin(), a.end()}, {3, 4, 5});
  const xt::xarray<double> want = xt::view(a, xt::range(1, 3), xt::range(0, 3), xt::range(2, 5));
  check_tensor(eagle::slice(t, {1, 0, 2}, {2, 3, -1}), dt, {2, 3, 3},
               roundtrip<T>({want.begin(), want.end()}));
}

// ---- Composition --------------------------------------------------------------------------

TEST_CASE("ops compose: a small dense layer against xtensor", "[ops]") {
  const xt::xarray<double> x = arange_array({4, 3}, -1, 0.25);
  const xt::xarray<double> w = arange_array({3, 2}, 0.5, -0.125);
  const xt::xarray<double> bias = {0.1, -0.2};
  const Tensor out =
      eagle::relu(eagle::matmul(eagle::from_xexpression(x), eagle::from_xexpression(w)) +
                  eagle::from_xexpression(bias));
  xt::xarray<double> want = xt::zeros<double>({4, 2});
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      double acc = bias(j);
      for (std::size_t p = 0; p < 3; ++p) acc += x(i, p) * w(p, j);
      want(i, j) = std::max(acc, 0.0);
    }
  }
  CHECK(xt::allclose(eagle::to_xarray<double>(out), want, 1e-12, 1e-12));
  check_tensor(eagle::reduce_sum(eagle::softmax(out), 1), DType::kFloat64, {4}, {1, 1, 1, 1},
               1e-12);
}

TEST_CASE("tensor == and != with a C++ number", "[ops][operators]") {
  const auto x = eagle::constant({1, 2, 1});
  CHECK((x == 1).to_vector<bool>() == std::vector<bool>{true, false, true});
  CHECK((1 != x).to_vector<bool>() == std::vector<bool>{false, true, false});
}
