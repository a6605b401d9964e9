// Values where the GPU kernels are most likely to differ from the CPU's: integer wrap-around,
// integer pow's refusal of negative exponents (checked on the device), NaN through maximum,
// minimum, relu, max/min reductions and argmax. Hand-computed values, not only agreement.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_support.hpp"
#include "op_info/op_info.hpp"
#include "real_gpu.hpp"

namespace opdefs = eagle::opdefs;

using eagle::Axes;
using eagle::opdefs::gpu_implements;
using namespace eagle_test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

namespace {

Tensor apply_reduce(opdefs::OpId op, const Tensor& x, const Axes& axes, bool keepdims) {
  return op == opdefs::OpId::kMax ? eagle::reduce_max(x, axes, keepdims)
                                  : eagle::reduce_min(x, axes, keepdims);
}

const DType kFloatDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};

}  // namespace

namespace {

template <class T>
Tensor integer_extremes() {
  using L = std::numeric_limits<T>;
  return eagle::constant(std::vector<T>{L::lowest(), L::max(), L::lowest(), L::max(), 0, -1, 1,
                                        T(65536), T(46341), T(3037000500LL % L::max()), -7, 7},
                         Shape{12});
}

template <class T>
Tensor integer_pair() {
  return eagle::constant(std::vector<T>{std::numeric_limits<T>::max(), 1, -7, 0}, Shape{2, 2});
}

}  // namespace

TEST_CASE("integer arithmetic wraps on the GPU as on the CPU") {
  HardPlacement hard;
  for (DType d : {DType::kInt32, DType::kInt64}) {
    if (!opdefs::gpu_implements(opdefs::OpId::kAddV2, d)) continue;
    const bool is32 = d == DType::kInt32;
    const Tensor extremes =
        is32 ? integer_extremes<std::int32_t>() : integer_extremes<std::int64_t>();
    const Tensor ones = make_values(d, std::vector<double>(12, 1.0), {12});
    const Tensor minus = make_values(d, std::vector<double>(12, -1.0), {12});
    const Tensor small = make_values(d, {2, 2, 3, -3, 0, -2, 0, 5, 7, 2, 2, 0}, {12});
    const Tensor exps = make_values(d, {31, 63, 40, 2, 1, 0, 0, 2, 2, 3, 1, 5}, {12});
    // {INT_MAX, 1, -7, 0}: row sums wrap (INT_MIN) or are odd (-7), so means truncate.
    const Tensor pair = is32 ? integer_pair<std::int32_t>() : integer_pair<std::int64_t>();
    struct Case {
      opdefs::OpId op;
      const char* what;
      std::function<Tensor()> run;
    };
    const std::vector<Case> cases = {
        {opdefs::OpId::kSub, "INT_MIN - 1 == INT_MAX", [&] { return extremes - ones; }},
        {opdefs::OpId::kAddV2, "INT_MAX + 1 == INT_MIN", [&] { return extremes + ones; }},
        {opdefs::OpId::kMul, "INT_MIN * -1 == INT_MIN", [&] { return extremes * minus; }},
        {opdefs::OpId::kMul, "x * x", [&] { return extremes * extremes; }},
        {opdefs::OpId::kNeg, "-INT_MIN == INT_MIN", [&] { return -extremes; }},
        {opdefs::OpId::kAbs, "abs(INT_MIN) == INT_MIN", [&] { return eagle::abs(extremes); }},
        {opdefs::OpId::kSquare, "square wraps", [&] { return eagle::square(extremes); }},
        {opdefs::OpId::kRelu, "relu of the extremes", [&] { return eagle::relu(extremes); }},
        {opdefs::OpId::kPow, "pow wraps (2^31, 2^63, 3^40)",
         [&] { return eagle::pow(small, exps); }},
        {opdefs::OpId::kPow, "pow of the extremes", [&] { return eagle::pow(extremes, exps); }},
        {opdefs::OpId::kMaximum, "maximum", [&] { return eagle::maximum(extremes, small); }},
        {opdefs::OpId::kMinimum, "minimum", [&] { return eagle::minimum(extremes, small); }},
        {opdefs::OpId::kSum, "sum wraps", [&] { return eagle::reduce_sum(extremes); }},
        {opdefs::OpId::kSum, "sum of INT_MAX and 1 wraps",
         [&] { return eagle::reduce_sum(pair, {1}); }},
        {opdefs::OpId::kMean, "mean = wrapped sum / n, truncated toward zero",
         [&] { return eagle::reduce_mean(pair, {1}); }},
        {opdefs::OpId::kMean, "mean over axis 0", [&] { return eagle::reduce_mean(pair, {0}); }},
        {opdefs::OpId::kMean, "mean of the extremes", [&] { return eagle::reduce_mean(extremes); }},
        {opdefs::OpId::kAddN, "add_n wraps",
         [&] {
           return eagle::add_n({extremes, extremes, ones});
         }},
        {opdefs::OpId::kRealDiv, "true division: casts to float64, INT_MIN / -1",
         [&] { return eagle::divide(extremes, minus); }},
        {opdefs::OpId::kRealDiv, "true division by 0: inf and NaN",
         [&] { return eagle::divide(extremes, small); }},
        {opdefs::OpId::kFloorDiv, "INT_MIN // -1 wraps, floor toward -inf",
         [&] { return eagle::floordiv(extremes, minus); }},
        {opdefs::OpId::kFloorMod, "x % -1 == 0, the divisor's sign",
         [&] { return eagle::floormod(extremes, minus); }},
        {opdefs::OpId::kFloorDiv, "negative operands",
         [&] { return eagle::floordiv(small, eagle::abs(small) + ones); }},
        {opdefs::OpId::kTruncateDiv, "INT_MIN / -1 wraps",
         [&] { return eagle::truncatediv(extremes, minus); }},
        {opdefs::OpId::kTruncateMod, "remainders of the extremes",
         [&] { return eagle::truncatemod(extremes, eagle::abs(small) + ones); }},
        {opdefs::OpId::kSquaredDifference, "squared difference wraps",
         [&] { return eagle::squared_difference(extremes, small); }},
        {opdefs::OpId::kCast, "int64 -> int32 and back wraps",
         [&] { return eagle::cast(eagle::cast(extremes * small, DType::kInt32), d); }},
    };
    for (const Case& c : cases) {
      // Integer true division runs as two Casts and a float64 RealDiv.
      if (c.op == opdefs::OpId::kRealDiv) {
        compare_op(c.op, DType::kFloat64, c.what, c.run, float_tol(DType::kFloat64));
      } else if (opdefs::gpu_implements(c.op, d)) {
        compare_op(c.op, d, c.what, c.run, exact());
      }
    }
    // The hand-computed values on the GPU, not only agreement with the CPU.
    auto scope = eagle::device(kGpu0);
    eagle::visit_dtype(d, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        using L = std::numeric_limits<T>;
        CHECK((extremes - ones).to_vector<T>()[0] == L::max());
        CHECK((extremes + ones).to_vector<T>()[1] == L::lowest());
        CHECK((-extremes).to_vector<T>()[0] == L::lowest());
        CHECK(eagle::abs(extremes).to_vector<T>()[0] == L::lowest());
        CHECK((extremes * minus).to_vector<T>()[0] == L::lowest());
      }
      return 0;
    });
    if (is32) {
      CHECK(eagle::reduce_mean(pair, {1}).to_vector<std::int32_t>() ==
            std::vector<std::int32_t>{-1073741824, -3});
    }
  }
}

TEST_CASE("integer pow with a negative exponent is refused on the GPU too") {
  HardPlacement hard;
  for (DType d : {DType::kInt32, DType::kInt64}) {
    if (!opdefs::gpu_implements(opdefs::OpId::kPow, d)) continue;
    INFO(str(d));
    const auto message =
        Catch::Message("Integers to negative integer powers are not allowed [Op:Pow]");
    const Tensor base = make_values(d, {2, 3, 4}, {3});
    const Tensor host_exponents = make_values(d, {1, -1, 2}, {3});
    std::vector<double> long_exponents(65537, 2.0);
    long_exponents.back() = -1;  // only the last element, in the tail of a vector loop
    const Tensor long_base = make(d, {65537}, Domain::kUnit, 4);
    const Tensor long_exp = make_values(d, long_exponents, {65537});
    auto scope = eagle::device(kGpu0);
    CHECK_THROWS_MATCHES(eagle::pow(base, host_exponents), eagle::InvalidArgumentError, message);
    // Exponents already in GPU memory, maybe still being written by a queued kernel.
    const Tensor gpu_exponents = eagle::identity(host_exponents) * make_values(d, {1}, {});
    CHECK_THROWS_MATCHES(eagle::pow(base, gpu_exponents), eagle::InvalidArgumentError, message);
    CHECK_THROWS_MATCHES(eagle::pow(base, make_values(d, {-1}, {})), eagle::InvalidArgumentError,
                         message);
    CHECK_THROWS_MATCHES(eagle::pow(long_base, long_exp), eagle::InvalidArgumentError, message);
    // The device is still usable, and nothing was left queued to fail later.
    const Tensor ok = eagle::pow(base, make_values(d, {1, 0, 2}, {3}));
    CHECK(on_device(ok, kGpu0));
    CHECK(eagle::cast(ok, DType::kInt64).to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{2, 1, 16});
    CHECK_NOTHROW(eagle::sync_devices());
  }
}

TEST_CASE("NaN propagates through maximum, minimum, relu, reduce_max, reduce_min and argmax") {
  HardPlacement hard;
  for (DType d : kFloatDTypes) {
    if (!opdefs::gpu_implements(opdefs::OpId::kMaximum, d)) continue;
    INFO(str(d));
    const Tensor x = make_values(d, {kNaN, 1, kNaN, -kInf, 2, 3, kNaN, 0, -0.0}, {9});
    const Tensor y = make_values(d, {1, kNaN, kNaN, kNaN, kInf, -kInf, 0, kNaN, 0}, {9});
    compare_op(
        opdefs::OpId::kMaximum, d, "maximum", [&] { return eagle::maximum(x, y); }, exact());
    compare_op(
        opdefs::OpId::kMinimum, d, "minimum", [&] { return eagle::minimum(x, y); }, exact());
    compare_op(
        opdefs::OpId::kRelu, d, "relu", [&] { return eagle::relu(x); }, exact());
    {
      // fmax/fmin return the number, not the NaN: the GPU must not.
      auto scope = eagle::device(kGpu0);
      const auto m = eagle::cast(eagle::maximum(x, y), DType::kFloat64).to_vector<double>();
      for (int i : {0, 1, 2, 3, 6, 7}) CHECK(std::isnan(m[static_cast<std::size_t>(i)]));
    }
    // A NaN in row r at column r * 5 (the first, the middle, the last of 33, and a row of
    // NaN only); rows 0 and 7 have none. Columns then have NaNs in some rows only.
    std::vector<double> grid = [&] {
      std::mt19937_64 rng(11);
      std::vector<double> v(8 * 33);
      for (double& e : v) e = std::uniform_real_distribution<double>(-2, 2)(rng);
      return v;
    }();
    for (int r = 1; r < 7; ++r) grid[static_cast<std::size_t>(r * 33 + std::min(32, r * 6))] = kNaN;
    grid[2 * 33 + 32] = kNaN;  // a second NaN in row 2
    for (int c = 0; c < 33; ++c) grid[static_cast<std::size_t>(5 * 33 + c)] = kNaN;
    const Tensor g = make_values(d, grid, {8, 33});
    std::vector<double> long_row(4097, 1.0);
    long_row[4096] = kNaN;
    const Tensor tail = make_values(d, long_row, {4097});
    for (opdefs::OpId op : {opdefs::OpId::kMax, opdefs::OpId::kMin}) {
      for (const Axes& axes : {Axes{1}, Axes{0}, Axes{}}) {
        compare_op(
            op, d, "rows with NaN", [&] { return apply_reduce(op, g, axes, false); }, exact());
      }
      compare_op(
          op, d, "NaN last of 4097", [&] { return apply_reduce(op, tail, {}, false); }, exact());
    }
    for (int axis : {0, 1}) {
      compare_op(
          opdefs::OpId::kArgMax, d, "argmax with NaN, axis " + std::to_string(axis),
          [&] { return eagle::argmax(g, axis); }, exact());
      compare_op(
          opdefs::OpId::kArgMin, d, "argmin with NaN, axis " + std::to_string(axis),
          [&] { return eagle::argmin(g, axis); }, exact());
    }
    compare_op(
        opdefs::OpId::kArgMax, d, "argmax, NaN last of 4097",
        [&] { return eagle::argmax(tail, 0); }, exact());
    // The hand-computed answers on the GPU: NaN is passed over (Note [ArgMax and NaN]), a row
    // of NaN gives 0.
    auto scope = eagle::device(kGpu0);
    CHECK(std::isnan(eagle::cast(eagle::reduce_max(tail), DType::kFloat64).item<double>()));
    CHECK(eagle::argmax(tail, 0).item<std::int64_t>() == 0);
    const auto rows = eagle::argmax(g, 1).to_vector<std::int64_t>();
    CHECK(rows[5] == 0);
    for (int r = 1; r < 7; ++r) {
      if (r != 5) CHECK(rows[static_cast<std::size_t>(r)] != std::min(32, r * 6));
    }
  }
}
