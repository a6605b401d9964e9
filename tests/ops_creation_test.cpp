// Values of the creation ops (constant, xtensor interop, zeros/ones/fill, range, the seeded
// random ops, identity): hand-computed results over every dtype. The every-backend comparison,
// the errors and the gradients are in the OpInfo table (tests/op_info/creation_op_infos.cpp).
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

#include "eagle/ops.hpp"
#include "eagle/xtensor.hpp"
#include "ops_test_support.hpp"

using namespace eagle_test::ops;  // NOLINT: the shared helpers of the op value tests

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
