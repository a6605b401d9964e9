// tile, pad, reverse, cumsum, cumprod, split, stack, unstack, sort and argsort: values against
// hand-computed results and small reference loops over every dtype the ops take, the op names
// they log (TensorFlow's, sort's composite included), and their errors. TensorFlow's own values
// and messages for these ops are in tests/fixtures/tf_ops.json (tf_fixture_test).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "kernels/index_map.hpp"
#include "kernels/top_k_rank.hpp"
#include "test_support.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using std::int32_t;
using std::int64_t;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

// The ops of the lines logged, without the device, and without the Casts values_of() runs to
// read results.
std::vector<std::string> logged_ops(eagle_test::CapturedLog& log) {
  std::vector<std::string> ops;
  for (const std::string& line : log.take()) {
    const std::string prefix = "Executing op ";
    REQUIRE(line.rfind(prefix, 0) == 0);
    const std::string op =
        line.substr(prefix.size(), line.find(' ', prefix.size()) - prefix.size());
    if (op != "Cast") ops.push_back(op);
  }
  return ops;
}

// 0, 1, 2, ... as `dtype` (bool: alternating), shaped.
Tensor iota(const Shape& shape, DType dtype) {
  const Tensor ints =
      eagle::reshape(eagle::range(0, static_cast<double>(shape.num_elements()), 1, DType::kInt64),
                     shape.to_vector());
  if (dtype == DType::kBool) {
    return eagle::equal(eagle::floormod(ints, eagle::constant(int64_t{3})),
                        eagle::constant(int64_t{1}));
  }
  return eagle::cast(ints, dtype);
}

std::vector<double> values_of(const Tensor& t) {
  return eagle::cast(t, DType::kFloat64).to_vector<double>();
}

// The row-major coordinates of element i of `shape`.
std::vector<int64_t> coords(const Shape& shape, int64_t i) {
  std::vector<int64_t> c(static_cast<std::size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    c[static_cast<std::size_t>(d)] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

int64_t offset(const Shape& shape, const std::vector<int64_t>& c) {
  int64_t o = 0;
  for (int d = 0; d < shape.rank(); ++d) o = o * shape[d] + c[static_cast<std::size_t>(d)];
  return o;
}

const std::vector<DType> kAll = {DType::kFloat32, DType::kFloat64, DType::kInt32,   DType::kInt64,
                                 DType::kBool,    DType::kFloat16, DType::kBFloat16};
const std::vector<DType> kNumeric = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                                     DType::kInt64,   DType::kFloat16, DType::kBFloat16};

}  // namespace

TEST_CASE("tile repeats every dimension, over every dtype") {
  for (DType d : kAll) {
    INFO(eagle::dtype_name(d));
    const Tensor x = iota({2, 3}, d);
    const Tensor t = eagle::tile(x, {2, 3});
    REQUIRE(t.shape() == Shape{4, 9});
    CHECK(t.dtype() == d);
    const std::vector<double> in = values_of(x), out = values_of(t);
    for (int64_t i = 0; i < 36; ++i) {
      const auto c = coords({4, 9}, i);
      CHECK(out[static_cast<std::size_t>(i)] ==
            in[static_cast<std::size_t>(offset({2, 3}, {c[0] % 2, c[1] % 3}))]);
    }
  }
  CHECK(values_of(eagle::tile(eagle::constant({1.f, 2.f}), {3})) ==
        std::vector<double>{1, 2, 1, 2, 1, 2});
  CHECK(eagle::tile(eagle::constant(2.5f), {}).item<float>() == 2.5f);
  CHECK(eagle::tile(eagle::constant({1.f, 2.f}), {0}).shape() == Shape{0});
  CHECK(eagle::tile(eagle::zeros({0, 2}), {3, 2}).shape() == Shape{0, 4});
  // Higher rank, inner dimension 1.
  const Tensor y = eagle::tile(iota({2, 1, 3}, DType::kInt32), {1, 2, 1});
  CHECK(y.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
}

TEST_CASE("pad: CONSTANT (Pad, PadV2), REFLECT and SYMMETRIC (MirrorPad)") {
  const Tensor x = eagle::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  eagle_test::CapturedLog log;
  const Tensor zero = eagle::pad(x, {{1, 0}, {0, 2}});
  CHECK(zero.shape() == Shape{3, 5});
  CHECK(values_of(zero) == std::vector<double>{0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0});
  const Tensor seven = eagle::pad(x, {{0, 1}, {1, 0}}, "CONSTANT", 7);
  CHECK(values_of(seven) == std::vector<double>{7, 1, 2, 3, 7, 4, 5, 6, 7, 7, 7, 7});
  const Tensor reflect = eagle::pad(x, {{1, 1}, {2, 2}}, "REFLECT");
  CHECK(values_of(reflect) == std::vector<double>{6, 5, 4, 5, 6, 5, 4,  //
                                                  3, 2, 1, 2, 3, 2, 1,  //
                                                  6, 5, 4, 5, 6, 5, 4,  //
                                                  3, 2, 1, 2, 3, 2, 1});
  const Tensor symmetric = eagle::pad(x, {{2, 0}, {3, 1}}, "symmetric");
  CHECK(values_of(symmetric) == std::vector<double>{6, 5, 4, 4, 5, 6, 6,  //
                                                    3, 2, 1, 1, 2, 3, 3,  //
                                                    3, 2, 1, 1, 2, 3, 3,  //
                                                    6, 5, 4, 4, 5, 6, 6});
  // -0.0 is 0: tf.pad chooses Pad, whose zeros are +0.0.
  const Tensor minus_zero = eagle::pad(eagle::constant({1.f}), {{1, 0}}, "CONSTANT", -0.0);
  CHECK_FALSE(std::signbit(minus_zero.to_vector<float>()[0]));
  CHECK(logged_ops(log) ==
        std::vector<std::string>{"Pad", "PadV2", "MirrorPad", "MirrorPad", "Pad"});
}

TEST_CASE("pad over every dtype, against a reference loop") {
  const Shape in_shape{3, 4, 5};
  const std::vector<std::vector<int64_t>> paddings = {{1, 2}, {0, 3}, {2, 1}};
  const Shape out_shape{6, 7, 8};
  for (DType d : kAll) {
    INFO(eagle::dtype_name(d));
    const Tensor x = iota(in_shape, d);
    const std::vector<double> in = values_of(x);
    const double fill = d == DType::kBool ? 1 : -3;
    for (const std::string mode : {"CONSTANT", "REFLECT", "SYMMETRIC"}) {
      INFO(mode);
      const Tensor p = eagle::pad(x, paddings, mode, fill);
      REQUIRE(p.shape() == out_shape);
      CHECK(p.dtype() == d);
      const std::vector<double> out = values_of(p);
      for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
        const auto c = coords(out_shape, i);
        std::vector<int64_t> src;
        bool inside = true;
        for (int k = 0; k < 3; ++k) {
          const int64_t n = in_shape[k];
          int64_t s = c[static_cast<std::size_t>(k)] - paddings[static_cast<std::size_t>(k)][0];
          if (mode == "REFLECT") {
            s = s < 0 ? -s : s >= n ? 2 * n - 2 - s : s;
          } else if (mode == "SYMMETRIC") {
            s = s < 0 ? -s - 1 : s >= n ? 2 * n - 1 - s : s;
          } else {
            inside = inside && s >= 0 && s < n;
          }
          src.push_back(s);
        }
        const double want = inside ? in[static_cast<std::size_t>(offset(in_shape, src))] : fill;
        CHECK(out[static_cast<std::size_t>(i)] == want);
      }
    }
  }
  // An empty input pads with the constant only.
  CHECK(values_of(eagle::pad(eagle::zeros({0, 1}), {{1, 0}, {0, 1}}, "CONSTANT", 2)) ==
        std::vector<double>{2, 2});
}

TEST_CASE("reverse any set of axes, over every dtype") {
  const Shape shape{2, 3, 4};
  for (DType d : kAll) {
    INFO(eagle::dtype_name(d));
    const Tensor x = iota(shape, d);
    const std::vector<double> in = values_of(x);
    for (const std::vector<int>& axes :
         std::vector<std::vector<int>>{{}, {0}, {1}, {2}, {-1}, {0, 2}, {2, 0, 1}}) {
      const std::vector<double> out = values_of(eagle::reverse(x, axes));
      for (int64_t i = 0; i < shape.num_elements(); ++i) {
        auto c = coords(shape, i);
        for (int a : axes) {
          const int k = a < 0 ? a + 3 : a;
          c[static_cast<std::size_t>(k)] = shape[k] - 1 - c[static_cast<std::size_t>(k)];
        }
        CHECK(out[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(offset(shape, c))]);
      }
    }
  }
  // A scalar comes back as it is, whatever the axes (TensorFlow does not check them).
  CHECK(eagle::reverse(eagle::constant(3.f), {0, 5}).item<float>() == 3.f);
}

TEST_CASE("cumsum and cumprod on every axis, exclusive and reverse, against a reference") {
  const Shape shape{3, 4, 5};
  for (DType d : kNumeric) {
    INFO(eagle::dtype_name(d));
    // Small values so that every dtype holds the sums and products exactly.
    const Tensor x =
        eagle::cast(eagle::floormod(iota(shape, DType::kInt32), eagle::constant(3)) - 1, d);
    const std::vector<double> in = values_of(x);
    for (int axis = -3; axis < 3; ++axis) {
      const int a = axis < 0 ? axis + 3 : axis;
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
          const std::vector<double> sums = values_of(eagle::cumsum(x, axis, exclusive, reverse));
          const std::vector<double> products =
              values_of(eagle::cumprod(x, axis, exclusive, reverse));
          for (int64_t i = 0; i < shape.num_elements(); ++i) {
            const auto c = coords(shape, i);
            double sum = 0, product = 1;
            for (int64_t k = 0; k < shape[a]; ++k) {
              const int64_t at = c[static_cast<std::size_t>(a)];
              const bool in_scan =
                  reverse ? (exclusive ? k > at : k >= at) : (exclusive ? k < at : k <= at);
              if (!in_scan) continue;
              auto src = c;
              src[static_cast<std::size_t>(a)] = k;
              sum += in[static_cast<std::size_t>(offset(shape, src))];
              product *= in[static_cast<std::size_t>(offset(shape, src))];
            }
            CHECK(sums[static_cast<std::size_t>(i)] == sum);
            CHECK(products[static_cast<std::size_t>(i)] == product);
          }
        }
      }
    }
  }
}

TEST_CASE("scans run in order, in the dtype: float32 and float16 round at every step") {
  const Tensor f = eagle::constant({1e8f, 1.f, -1e8f, 1.f});
  CHECK(eagle::cumsum(f).to_vector<float>() == std::vector<float>{1e8f, 1e8f, 0.f, 1.f});
  const Tensor h = eagle::cast(eagle::fill({4}, 0.1), DType::kFloat16);
  std::vector<float> want;
  eagle::float16 acc(0.f);
  for (int i = 0; i < 4; ++i) {
    acc = eagle::float16(static_cast<float>(acc) + static_cast<float>(eagle::float16(0.1f)));
    want.push_back(static_cast<float>(acc));
  }
  CHECK(eagle::cast(eagle::cumsum(h), DType::kFloat32).to_vector<float>() == want);
  // int32 wraps as TensorFlow's does.
  CHECK(eagle::cumsum(eagle::constant({std::numeric_limits<int32_t>::max(), 1}))
            .to_vector<int32_t>() == std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                                                          std::numeric_limits<int32_t>::min()});
  CHECK(eagle::cumprod(eagle::constant({1.f, 2.f, 3.f}), 0, true, true).to_vector<float>() ==
        std::vector<float>{6.f, 3.f, 1.f});
  CHECK(eagle::cumsum(eagle::zeros({0, 3}), 1).shape() == Shape{0, 3});
}

TEST_CASE("split into equal parts (Split) and by sizes (SplitV), over every dtype") {
  for (DType d : kAll) {
    INFO(eagle::dtype_name(d));
    const Tensor x = iota({2, 6}, d);
    const std::vector<double> in = values_of(x);
    eagle_test::CapturedLog log;
    const std::vector<Tensor> thirds = eagle::split(x, 3, 1);
    REQUIRE(thirds.size() == 3u);
    for (int k = 0; k < 3; ++k) {
      CHECK(thirds[static_cast<std::size_t>(k)].shape() == Shape{2, 2});
      CHECK(values_of(thirds[static_cast<std::size_t>(k)]) ==
            std::vector<double>{in[2 * k], in[2 * k + 1], in[6 + 2 * k], in[7 + 2 * k]});
    }
    const std::vector<Tensor> parts = eagle::split(x, {1, -1, 0, 2}, -1);
    REQUIRE(parts.size() == 4u);
    CHECK(parts[0].shape() == Shape{2, 1});
    CHECK(parts[1].shape() == Shape{2, 3});
    CHECK(parts[2].shape() == Shape{2, 0});
    CHECK(values_of(parts[1]) == std::vector<double>{in[1], in[2], in[3], in[7], in[8], in[9]});
    CHECK(values_of(parts[3]) == std::vector<double>{in[4], in[5], in[10], in[11]});
    const std::vector<Tensor> rows = eagle::split(x, 2);
    CHECK(values_of(rows[1]) == std::vector<double>(in.begin() + 6, in.end()));
    CHECK(logged_ops(log) == std::vector<std::string>{"Split", "SplitV", "Split"});
  }
  // One part is the input; parts of an empty dimension are empty.
  const Tensor x = eagle::constant({1.f, 2.f});
  CHECK(values_of(eagle::split(x, 1)[0]) == std::vector<double>{1, 2});
  CHECK(values_of(eagle::split(x, std::vector<int64_t>{2})[0]) == std::vector<double>{1, 2});
  const std::vector<Tensor> empty = eagle::split(eagle::zeros({0, 4}), 2);
  CHECK(empty.size() == 2u);
  CHECK(empty[1].shape() == Shape{0, 4});
  // split(x, {3}) is three equal parts: a braced single value is the int overload.
  CHECK(eagle::split(eagle::zeros({6}), {3}).size() == 3u);
}

TEST_CASE("stack (Pack) and unstack (Unpack) are single ops") {
  for (DType d : kAll) {
    INFO(eagle::dtype_name(d));
    const Tensor a = iota({2, 3}, d);
    const Tensor b = eagle::reverse(a, {0, 1});
    const std::vector<double> va = values_of(a), vb = values_of(b);
    eagle_test::CapturedLog log;
    for (int axis = -3; axis < 3; ++axis) {
      const Tensor s = eagle::stack({a, b}, axis);
      const int k = axis < 0 ? axis + 3 : axis;
      std::vector<int64_t> dims = {2, 3};
      dims.insert(dims.begin() + k, 2);
      REQUIRE(s.shape() == Shape(dims));
      const std::vector<double> out = values_of(s);
      for (int64_t i = 0; i < 12; ++i) {
        auto c = coords(Shape(dims), i);
        const int64_t which = c[static_cast<std::size_t>(k)];
        c.erase(c.begin() + k);
        const double want = (which == 0 ? va : vb)[static_cast<std::size_t>(offset({2, 3}, c))];
        CHECK(out[static_cast<std::size_t>(i)] == want);
      }
      const std::vector<Tensor> back = eagle::unstack(s, axis);
      REQUIRE(back.size() == 2u);
      CHECK(values_of(back[0]) == va);
      CHECK(values_of(back[1]) == vb);
    }
    const std::vector<std::string> ops = logged_ops(log);
    CHECK(std::count(ops.begin(), ops.end(), "Pack") == 6);
    CHECK(std::count(ops.begin(), ops.end(), "Unpack") == 6);
    CHECK(ops.size() == 12u);
  }
  eagle_test::CapturedLog log;
  // Stacking scalars, one tensor, and unstacking an empty axis (an op with no outputs).
  CHECK(values_of(eagle::stack({eagle::constant(1.f), eagle::constant(2.f)})) ==
        std::vector<double>{1, 2});
  CHECK(eagle::stack({eagle::zeros({2})}, 1).shape() == Shape{2, 1});
  CHECK(eagle::unstack(eagle::zeros({0, 3})).empty());
  CHECK(eagle::unstack(eagle::zeros({3, 0}), 0).size() == 3u);
  CHECK(logged_ops(log) ==
        std::vector<std::string>{"Pack", "Fill", "Pack", "Fill", "Unpack", "Fill", "Unpack"});
}

TEST_CASE("sort and argsort: stable, on any axis, against std::stable_sort") {
  const Shape shape{3, 4, 7};
  for (DType d : kNumeric) {
    INFO(eagle::dtype_name(d));
    // Many ties: values in [-3, 3].
    const Tensor x =
        eagle::cast(eagle::floormod(iota(shape, DType::kInt32) * 5, eagle::constant(7)) - 3, d);
    const std::vector<double> in = values_of(x);
    for (const std::string direction : {"ASCENDING", "DESCENDING"}) {
      for (int axis = -3; axis < 3; ++axis) {
        INFO(direction << " axis " << axis);
        const int a = axis < 0 ? axis + 3 : axis;
        const std::vector<double> sorted = values_of(eagle::sort(x, axis, direction));
        const Tensor order = eagle::argsort(x, axis, direction);
        CHECK(order.dtype() == DType::kInt32);
        const std::vector<double> indices = values_of(order);
        for (int64_t i = 0; i < shape.num_elements(); ++i) {
          auto c = coords(shape, i);
          if (c[static_cast<std::size_t>(a)] != 0) continue;
          std::vector<int64_t> line(static_cast<std::size_t>(shape[a]));
          std::iota(line.begin(), line.end(), 0);
          const auto value = [&](int64_t k) {
            auto s = c;
            s[static_cast<std::size_t>(a)] = k;
            return in[static_cast<std::size_t>(offset(shape, s))];
          };
          std::stable_sort(line.begin(), line.end(), [&](int64_t p, int64_t q) {
            return direction == "ASCENDING" ? value(p) < value(q) : value(p) > value(q);
          });
          for (int64_t k = 0; k < shape[a]; ++k) {
            auto at = c;
            at[static_cast<std::size_t>(a)] = k;
            const auto o = static_cast<std::size_t>(offset(shape, at));
            CHECK(sorted[o] == value(line[static_cast<std::size_t>(k)]));
            CHECK(indices[o] == static_cast<double>(line[static_cast<std::size_t>(k)]));
          }
        }
      }
    }
  }
  // The integers' extremes: -x - 1 maps the minimum to the maximum without overflow.
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  CHECK(eagle::sort(eagle::constant({hi, 0, lo, -1})).to_vector<int32_t>() ==
        std::vector<int32_t>{lo, -1, 0, hi});
  CHECK(eagle::argsort(eagle::constant({hi, 0, lo, -1})).to_vector<int32_t>() ==
        std::vector<int32_t>{2, 3, 1, 0});
  // NaN ranks above every number in top_k, so it comes first in both directions.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> up = eagle::sort(eagle::constant({1.f, nan, -1.f})).to_vector<float>();
  CHECK(std::isnan(up[0]));
  CHECK(up[1] == -1.f);
  CHECK(up[2] == 1.f);
  CHECK(eagle::argsort(eagle::constant({1.f, nan, -1.f}), -1, "DESCENDING").to_vector<int32_t>() ==
        std::vector<int32_t>{1, 0, 2});
  CHECK(eagle::sort(eagle::zeros({2, 0})).shape() == Shape{2, 0});
}

TEST_CASE("sort and argsort log the ops TensorFlow's sort_ops.py runs") {
  const Tensor f = eagle::constant({{3.f, 1.f}, {2.f, 0.f}});
  const Tensor i = eagle::constant({{3, 1}, {2, 0}});
  eagle_test::CapturedLog log;
  (void)eagle::sort(f);
  CHECK(logged_ops(log) == std::vector<std::string>{"Neg", "TopKV2", "Neg"});
  (void)eagle::sort(f, -1, "DESCENDING");
  CHECK(logged_ops(log) == std::vector<std::string>{"TopKV2"});
  (void)eagle::sort(i);
  CHECK(logged_ops(log) == std::vector<std::string>{"Neg", "Sub", "TopKV2", "Neg", "Sub"});
  (void)eagle::sort(f, 0);
  CHECK(logged_ops(log) ==
        std::vector<std::string>{"Neg", "Transpose", "TopKV2", "Transpose", "Neg"});
  (void)eagle::argsort(f);
  CHECK(logged_ops(log) == std::vector<std::string>{"Neg", "TopKV2"});
  (void)eagle::argsort(i, 0);
  CHECK(logged_ops(log) ==
        std::vector<std::string>{"Neg", "Sub", "Transpose", "TopKV2", "Transpose"});
  (void)eagle::sort(f, 0, "DESCENDING");
  CHECK(logged_ops(log) == std::vector<std::string>{"Transpose", "TopKV2", "Transpose"});
}

TEST_CASE("the new ops' errors: TensorFlow's classes and messages") {
  const Tensor x = eagle::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const Tensor undefined;
  using Catch::Message;
  using eagle::InvalidArgumentError;
  CHECK_THROWS_MATCHES(eagle::tile(undefined, {}), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:Tile]"));
  CHECK_THROWS_MATCHES(eagle::tile(eagle::constant(1.f), {1}), InvalidArgumentError,
                       Message("Expected multiples argument to be a vector of length 0 but got "
                               "length 1 [Op:Tile]"));
  CHECK_THROWS_MATCHES(eagle::pad(undefined, {}, "REFLECT"), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:MirrorPad]"));
  CHECK_THROWS_MATCHES(eagle::pad(x, {{1, 1}, {1}}), InvalidArgumentError,
                       Message("paddings must be a matrix with 2 columns: [2,2] [Op:Pad]"));
  CHECK_THROWS_MATCHES(eagle::pad(x, {{1, 1}, {0, 0}, {0, 0}}, "SYMMETRIC"), InvalidArgumentError,
                       Message("The first dimension of paddings must be the rank of inputs[3,2], "
                               "[2,3] [Op:MirrorPad]"));
  // The first dimension's size is refused before the second dimension's negative padding.
  CHECK_THROWS_MATCHES(eagle::pad(x, {{std::numeric_limits<int64_t>::max(), 0}, {-1, 0}}),
                       InvalidArgumentError,
                       Message("Expected a non-negative size, got -9223372036854775807 [Op:Pad]"));
  CHECK_THROWS_MATCHES(eagle::reverse(undefined, {}), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:ReverseV2]"));
  CHECK_THROWS_MATCHES(eagle::reverse(x, {2}), InvalidArgumentError,
                       Message("'axis'[0] = 2 is out of valid range [0, 1 [Op:ReverseV2]"));
  CHECK_THROWS_MATCHES(eagle::cumsum(undefined), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:Cumsum]"));
  CHECK_THROWS_MATCHES(eagle::cumprod(x, 5), InvalidArgumentError,
                       Message("ScanOp: Expected scan axis in the range [-2, 2), but got 5 "
                               "[Op:Cumprod]"));
  CHECK_THROWS_MATCHES(eagle::split(undefined, 2), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:Split]"));
  CHECK_THROWS_MATCHES(eagle::split(x, -1), InvalidArgumentError,
                       Message("Value for attr 'num_split' of -1 must be at least minimum 1 "
                               "[Op:Split]"));
  CHECK_THROWS_MATCHES(eagle::split(x, {-1, 2, -1}, 1), InvalidArgumentError,
                       Message("There can only be one -1 in the input. [Op:SplitV]"));
  CHECK_THROWS_MATCHES(eagle::split(x, {-3, -1}, 1), InvalidArgumentError,
                       Message("Split size at index 0 must be >= 0. Got: -3 [Op:SplitV]"));
  CHECK_THROWS_MATCHES(eagle::stack({x, undefined}), InvalidArgumentError,
                       Message("input #1 is an undefined tensor [Op:Pack]"));
  CHECK_THROWS_MATCHES(eagle::stack({x, eagle::cast(x, DType::kInt32)}), InvalidArgumentError,
                       Message("cannot compute Pack as input #1(zero-based) was expected to be a "
                               "float tensor but is a int32 tensor [Op:Pack]"));
  CHECK_THROWS_MATCHES(eagle::unstack(undefined), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:Unpack]"));
  CHECK_THROWS_MATCHES(eagle::unstack(eagle::constant(1.f)), InvalidArgumentError,
                       Message("Argument `axis` = 0 not in range [0, 0)"));
  CHECK_THROWS_MATCHES(eagle::sort(undefined), InvalidArgumentError,
                       Message("input #0 is an undefined tensor [Op:TopKV2]"));
  CHECK_THROWS_MATCHES(eagle::argsort(x, 0, "UP"), InvalidArgumentError,
                       Message("Argument `direction` should be one of ASCENDING, DESCENDING. "
                               "Received: direction=UP"));
  CHECK_THROWS_MATCHES(eagle::sort(eagle::constant({true}), -1, "DESCENDING"), InvalidArgumentError,
                       Message("Value for attr 'T' of bool is not in the list of allowed values: "
                               "float, double, int32, int64, bfloat16, half [Op:TopKV2]"));
}

// The CUDA kernels map each output element on its own (kernels::source_offset, and the ranks of
// kernels/top_k_rank.hpp) where the CPU kernels walk rows: the same functions run here on the
// host, element by element as a GPU thread would, must give the CPU kernels' results.
TEST_CASE("the CUDA kernels' per-element index arithmetic gives the CPU kernels' results") {
  const Shape in_shape{3, 4, 5};
  const Tensor x = iota(in_shape, DType::kFloat64);
  const std::vector<double> in = x.to_vector<double>();
  const auto per_element = [&](const eagle::kernels::IndexMap& map, const Shape& out_shape,
                               double fill) {
    std::vector<double> out;
    for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
      const int64_t s = eagle::kernels::source_offset(map, i);
      out.push_back(s < 0 ? fill : in[static_cast<std::size_t>(s)]);
    }
    return out;
  };
  const Tensor tiled = eagle::tile(x, {2, 1, 3});
  CHECK(per_element(eagle::kernels::tile_map(in_shape, tiled.shape()), tiled.shape(), 0) ==
        tiled.to_vector<double>());
  const std::vector<std::vector<int64_t>> paddings = {{2, 1}, {0, 3}, {4, 4}};
  for (const std::string mode : {"CONSTANT", "REFLECT", "SYMMETRIC"}) {
    INFO(mode);
    const Tensor padded = eagle::pad(x, paddings, mode, -1.5);
    eagle::opdefs::PadAttrs attrs{{2, 0, 4}, {1, 3, 4}, -1.5, mode == "SYMMETRIC"};
    CHECK(per_element(eagle::kernels::pad_map(in_shape, padded.shape(), attrs, mode != "CONSTANT"),
                      padded.shape(), -1.5) == padded.to_vector<double>());
  }
  for (const std::vector<int>& axes : std::vector<std::vector<int>>{{0}, {1, 2}, {0, 1, 2}}) {
    CHECK(per_element(eagle::kernels::reverse_map(in_shape, axes), in_shape, 0) ==
          eagle::reverse(x, axes).to_vector<double>());
  }

  // TopKV2: element i goes to position rank(i) (sorted) or to its place among the k best in index
  // order; ties and NaN included.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> row = {2, nan, -1, 2, 0, -0.0, nan, 7, 2, -1};
  const auto value = [&](int64_t j) { return row[static_cast<std::size_t>(j)]; };
  const auto columns = static_cast<int64_t>(row.size());
  for (int64_t k = 1; k <= columns; ++k) {
    for (bool sorted : {true, false}) {
      INFO("k " << k << (sorted ? " sorted" : " unsorted"));
      std::vector<int64_t> placed(static_cast<std::size_t>(k), -1);
      int64_t t = -1;
      for (int64_t i = 0; i < columns; ++i) {
        if (eagle::kernels::rank_in_row(value, columns, i) == k - 1) t = i;
      }
      REQUIRE(t >= 0);
      for (int64_t i = 0; i < columns; ++i) {
        const int64_t rank = eagle::kernels::rank_in_row(value, columns, i);
        if (sorted && rank < k) placed[static_cast<std::size_t>(rank)] = i;
        if (!sorted && eagle::kernels::among_best(value, i, t)) {
          placed[static_cast<std::size_t>(eagle::kernels::position_in_index_order(value, i, t))] =
              i;
        }
      }
      const std::vector<int32_t> cpu =
          eagle::top_k(eagle::constant(row), static_cast<int>(k), sorted)
              .indices.to_vector<int32_t>();
      CHECK(std::vector<int64_t>(cpu.begin(), cpu.end()) == placed);
    }
  }
}
