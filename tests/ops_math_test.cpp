// Values of the elementwise ops (cast, binary arithmetic and comparisons, broadcasting,
// wrap-around, unary math) and a composition: hand-computed results and xtensor references over
// every dtype. The every-backend comparison, the errors and the gradients are in the OpInfo
// table (tests/op_info/math_op_infos.cpp).
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

TEST_CASE("floating pow accepts negative exponents", "[ops][binary]") {
  CHECK(eagle::pow(eagle::constant(2.0), eagle::constant(-1.0)).item<float>() == 0.5f);
}
