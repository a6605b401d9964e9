// CPU kernels (reduce, argmax, softmax, transpose, concat, slice, matmul) against xtensor
// references on random inputs of every dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "test_support.hpp"
// xtensor 0.24's svector::insert trips a false -Warray-bounds at -O2 (GCC 12).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xstrided_view.hpp>
#pragma GCC diagnostic pop

#include "cpu/layout.hpp"
#include "cpu/matmul.hpp"
#include "cpu/reduce.hpp"
#include "cpu/softmax.hpp"
#include "eagle/dtype.hpp"
#include "eagle/half.hpp"
#include "eagle/shape.hpp"

namespace {

using eagle::bfloat16;
using eagle::float16;
using eagle::Shape;
using eagle::cpu::ReduceKind;
using std::int32_t;
using std::int64_t;

using eagle_test::from_d;
using eagle_test::kIsFloat;
using eagle_test::kIsHalf;
using eagle_test::to_d;

// Relative tolerance of float results (scaled by a magnitude the test picks).
template <class T>
double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  if constexpr (kIsHalf<T>) return 1e-2;
  return 0.0;
}

template <class T>
bool is_nan(T v) {
  if constexpr (kIsFloat<T>) {
    return std::isnan(to_d(v));
  } else {
    (void)v;
    return false;
  }
}

std::mt19937& rng() {
  static std::mt19937 gen(12345);
  return gen;
}

// Floats uniform in [lo, hi] (rounded to T); integers uniform in [lo, hi].
template <class T>
std::vector<T> random_values(int64_t n, double lo, double hi) {
  std::vector<T> v(static_cast<std::size_t>(n));
  if constexpr (kIsFloat<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = from_d<T>(d(rng()));
  } else {
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (auto& x : v) x = static_cast<T>(d(rng()));
  }
  return v;
}

// Integers over their full range: sums and products overflow.
template <class T>
std::vector<T> random_full_range(int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::uniform_int_distribution<T> d(std::numeric_limits<T>::lowest(),
                                     std::numeric_limits<T>::max());
  for (auto& x : v) x = d(rng());
  return v;
}

std::vector<std::size_t> xshape(const Shape& s) { return {s.begin(), s.end()}; }

template <class R, class T>
xt::xarray<R> to_xarray(const std::vector<T>& v, const Shape& s) {
  std::vector<R> d(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<R, double>) {
      d[i] = to_d(v[i]);
    } else {
      d[i] = static_cast<R>(v[i]);  // integers into int64_t / uint64_t (modular)
    }
  }
  xt::xarray<R> x = xt::adapt(d, xshape(s));
  return x;
}

// Wraps a 64-bit modular result into T (two's complement).
template <class T>
T wrap(std::uint64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

std::string shape_str(const Shape& s) { return s.to_string(); }

template <class C>
std::string vec_str(const C& c) {
  std::ostringstream os;
  os << "{";
  for (auto x : c) os << x << ",";
  os << "}";
  return os.str();
}

// "" when got matches ref elementwise within atol[i] (exact when atol is 0; NaN matches NaN).
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<double>& ref,
                    const std::vector<double>& atol) {
  if (got.size() != ref.size()) {
    return "size " + std::to_string(got.size()) + " != " + std::to_string(ref.size());
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = to_d(got[i]);
    const double r = ref[i];
    if (std::isnan(r) || std::isnan(g)) {
      if (std::isnan(r) && std::isnan(g)) continue;
    } else if (g == r || std::fabs(g - r) <= atol[i]) {
      continue;
    }
    std::ostringstream os;
    os.precision(17);
    os << "element " << i << ": got " << g << ", expected " << r << " (atol " << atol[i] << ")";
    return os.str();
  }
  return "";
}

template <class E>
std::vector<double> flat(const E& e) {
  xt::xarray<double> x = e;
  return {x.begin(), x.end()};
}

std::vector<Shape> reduce_shapes() {
  return {Shape{}, Shape{1}, Shape{7}, Shape{0}, Shape{1, 1}, Shape{5, 1}, Shape{1, 5}, Shape{4, 6},
          Shape{3, 0}, Shape{0, 4}, Shape{2, 3, 4}, Shape{3, 1, 5}, Shape{2, 0, 3},
          Shape{2, 3, 1, 5}, Shape{3, 4, 5, 6}, Shape{1, 2, 1, 3}, Shape{2, 3, 0, 2}, Shape{1000},
          Shape{3, 5000}, Shape{300, 17}, Shape{3, 4, 300}, Shape{2, 130, 3}, Shape{40, 3, 70},
          // Blockwise gathers: several blocks of the kept axis between reduced ones, and blocks
          // of one index (a reduced slab larger than the scratch).
          Shape{20, 30, 40, 3}, Shape{30, 40, 60}, Shape{300, 3, 300},
          // Three reduced groups alternating with kept ones.
          Shape{2, 3, 2, 3, 2, 3}};
}

const char* kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "sum";
    case ReduceKind::kMean:
      return "mean";
    case ReduceKind::kMax:
      return "max";
    case ReduceKind::kMin:
      break;
  }
  return "min";
}

// Checks every kind of reduction over every axis subset of `shape` for the input `in`.
template <class T>
void check_reductions(const std::vector<T>& in, const Shape& shape) {
  const int rank = shape.rank();
  const auto xd = to_xarray<double>(in, shape);
  const auto xabs = xt::xarray<double>(xt::abs(xd));
  xt::xarray<std::uint64_t> xu;
  xt::xarray<int64_t> xi;
  if constexpr (!kIsFloat<T>) {
    xu = to_xarray<std::uint64_t>(in, shape);
    xi = to_xarray<int64_t>(in, shape);
  }
  for (int mask = 0; mask < (1 << rank); ++mask) {
    std::vector<int> axes;
    std::vector<std::size_t> xaxes;
    int64_t count = 1;
    int64_t out_count = 1;
    for (int a = 0; a < rank; ++a) {
      if (mask & (1 << a)) {
        axes.push_back(a);
        xaxes.push_back(static_cast<std::size_t>(a));
        count *= shape[a];
      } else {
        out_count *= shape[a];
      }
    }
    for (ReduceKind kind :
         {ReduceKind::kSum, ReduceKind::kMean, ReduceKind::kMax, ReduceKind::kMin}) {
      INFO("shape " << shape_str(shape) << " axes " << vec_str(axes) << " kind "
                    << kind_name(kind));
      std::vector<T> out(static_cast<std::size_t>(out_count));
      eagle::cpu::reduce<T>(kind, in.data(), shape, axes, out.data());
      std::vector<double> ref;
      std::vector<double> atol(out.size(), 0.0);
      if (out_count == 0) {
        // Nothing to compare (xtensor's immediate reducers crash on empty inputs).
      } else if (count == 0) {
        double v = 0.0;
        if (kind == ReduceKind::kMean) {
          v = kIsFloat<T> ? std::nan("") : 0.0;
        } else if (kind == ReduceKind::kMax) {
          v = kIsFloat<T> ? -INFINITY : to_d(std::numeric_limits<T>::lowest());
        } else if (kind == ReduceKind::kMin) {
          v = kIsFloat<T> ? INFINITY : to_d(std::numeric_limits<T>::max());
        }
        ref.assign(out.size(), v);
      } else if (kind == ReduceKind::kMax || kind == ReduceKind::kMin) {
        if constexpr (kIsFloat<T>) {
          ref = kind == ReduceKind::kMax
                    ? flat(xt::amax(xd, xaxes, xt::evaluation_strategy::immediate))
                    : flat(xt::amin(xd, xaxes, xt::evaluation_strategy::immediate));
        } else {
          xt::xarray<int64_t> r = kind == ReduceKind::kMax
                                      ? xt::xarray<int64_t>(xt::amax(xi, xaxes))
                                      : xt::xarray<int64_t>(xt::amin(xi, xaxes));
          ref.assign(r.begin(), r.end());
        }
      } else if constexpr (kIsFloat<T>) {
        ref = flat(xt::sum(xd, xaxes, xt::evaluation_strategy::immediate));
        atol = flat(xt::sum(xabs, xaxes, xt::evaluation_strategy::immediate));
        for (std::size_t i = 0; i < ref.size(); ++i) {
          if (kind == ReduceKind::kMean) {
            ref[i] /= static_cast<double>(count);
            atol[i] /= static_cast<double>(count);
          }
          atol[i] *= tolerance<T>();
        }
      } else {
        xt::xarray<std::uint64_t> s = xt::sum(xu, xaxes, xt::evaluation_strategy::immediate);
        for (std::uint64_t v : s) {
          const T w = wrap<T>(v);
          ref.push_back(kind == ReduceKind::kMean ? static_cast<double>(w / count)
                                                  : static_cast<double>(w));
        }
      }
      CHECK(compare(out, ref, atol) == "");
    }
  }
}

template <class T>
std::vector<int64_t> run_argmax(const std::vector<T>& in, const Shape& shape, int axis) {
  int64_t n = 1;
  for (int a = 0; a < shape.rank(); ++a) n *= a == axis ? 1 : shape[a];
  std::vector<int64_t> out(static_cast<std::size_t>(n), -1);
  eagle::cpu::argmax<T>(in.data(), shape, axis, out.data());
  return out;
}

template <class T>
std::vector<T> run_reduce(ReduceKind kind, const std::vector<T>& in, const Shape& shape,
                          const std::vector<int>& axes) {
  int64_t n = 1;
  for (int a = 0; a < shape.rank(); ++a) {
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) n *= shape[a];
  }
  std::vector<T> out(static_cast<std::size_t>(n));
  eagle::cpu::reduce<T>(kind, in.data(), shape, axes, out.data());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reductions

TEMPLATE_TEST_CASE("reduce matches xtensor over every axis subset", "[cpu][reduce]", float, double,
                   int32_t, int64_t, float16, bfloat16) {
  for (const Shape& shape : reduce_shapes()) {
    const auto in = random_values<TestType>(shape.num_elements(), -100, 100);
    check_reductions(in, shape);
  }
}

TEMPLATE_TEST_CASE("integer sums and means wrap", "[cpu][reduce]", int32_t, int64_t) {
  for (const Shape& shape :
       {Shape{64}, Shape{5, 40}, Shape{40, 5}, Shape{3, 7, 9}, Shape{2, 3, 4, 5}}) {
    check_reductions(random_full_range<TestType>(shape.num_elements()), shape);
  }
  const TestType big = std::numeric_limits<TestType>::max();
  const std::vector<TestType> in = {big, big, 2};
  const auto s = run_reduce(ReduceKind::kSum, in, Shape{3}, {0});
  CHECK(s[0] == wrap<TestType>(static_cast<std::uint64_t>(big) * 2 + 2));
  CHECK(s[0] == TestType(0));  // 2 * (2^(b-1) - 1) + 2 == 2^b
}

TEMPLATE_TEST_CASE("max and min propagate NaN", "[cpu][reduce]", float, double, float16, bfloat16) {
  const TestType nan = from_d<TestType>(std::nan(""));
  // Long rows (blocked path) and column reductions (row-accumulating path).
  for (int64_t len : {5, 40, 3000}) {
    for (int64_t pos : {int64_t{0}, len / 2, len - 1}) {
      auto in = random_values<TestType>(len, -1, 1);
      in[static_cast<std::size_t>(pos)] = nan;
      for (ReduceKind kind : {ReduceKind::kMax, ReduceKind::kMin, ReduceKind::kSum}) {
        CHECK(is_nan(run_reduce(kind, in, Shape{len}, {0})[0]));
        const auto col = run_reduce(kind, in, Shape{len, 1}, {0});
        CHECK(is_nan(col[0]));
      }
    }
  }
  auto in = random_values<TestType>(3 * 4 * 5, -1, 1);
  in[1 * 20 + 2 * 5 + 3] = nan;  // [1, 2, 3]
  for (ReduceKind kind : {ReduceKind::kMax, ReduceKind::kMin}) {
    const auto over0 = run_reduce(kind, in, Shape{3, 4, 5}, {0});  // [4, 5]
    for (int i = 0; i < 20; ++i) CHECK(is_nan(over0[i]) == (i == 2 * 5 + 3));
    const auto over02 = run_reduce(kind, in, Shape{3, 4, 5}, {0, 2});  // [4]
    for (int i = 0; i < 4; ++i) CHECK(is_nan(over02[i]) == (i == 2));
    const auto over2 = run_reduce(kind, in, Shape{3, 4, 5}, {2});  // [3, 4]
    for (int i = 0; i < 12; ++i) CHECK(is_nan(over2[i]) == (i == 1 * 4 + 2));
  }
  // Infinities are ordinary values.
  const std::vector<TestType> inf = {from_d<TestType>(1), from_d<TestType>(INFINITY),
                                     from_d<TestType>(-INFINITY)};
  CHECK(to_d(run_reduce(ReduceKind::kMax, inf, Shape{3}, {0})[0]) == INFINITY);
  CHECK(to_d(run_reduce(ReduceKind::kMin, inf, Shape{3}, {0})[0]) == -INFINITY);
}

TEMPLATE_TEST_CASE("reductions over empty sets", "[cpu][reduce]", float, double, int32_t, int64_t,
                   float16, bfloat16) {
  const std::vector<TestType> none;
  const auto sum = run_reduce(ReduceKind::kSum, none, Shape{2, 0}, {1});
  const auto mean = run_reduce(ReduceKind::kMean, none, Shape{2, 0}, {1});
  const auto mx = run_reduce(ReduceKind::kMax, none, Shape{0, 3}, {0});
  const auto mn = run_reduce(ReduceKind::kMin, none, Shape{0}, {0});
  REQUIRE(sum.size() == 2);
  REQUIRE(mean.size() == 2);
  REQUIRE(mx.size() == 3);
  REQUIRE(mn.size() == 1);
  CHECK(to_d(sum[0]) == 0.0);
  if constexpr (kIsFloat<TestType>) {
    CHECK(is_nan(mean[1]));
    CHECK(to_d(mx[2]) == -INFINITY);
    CHECK(to_d(mn[0]) == INFINITY);
  } else {
    CHECK(mean[1] == 0);
    CHECK(mx[2] == std::numeric_limits<TestType>::lowest());
    CHECK(mn[0] == std::numeric_limits<TestType>::max());
  }
  // Empty output: nothing is written (and nothing is read).
  CHECK(run_reduce(ReduceKind::kSum, none, Shape{0, 3}, {1}).empty());
}

TEST_CASE("float32 sums of many elements stay accurate", "[cpu][reduce]") {
  const int64_t n = int64_t{1} << 22;
  const std::vector<float> in(static_cast<std::size_t>(n), 0.1f);
  const double exact = static_cast<double>(0.1f) * static_cast<double>(n);
  const float row = run_reduce(ReduceKind::kSum, in, Shape{n}, {0})[0];
  CHECK(std::fabs(row - exact) <= 1e-6 * exact);
  const auto cols = run_reduce(ReduceKind::kSum, in, Shape{n / 4, 4}, {0});
  for (float c : cols) CHECK(std::fabs(c - exact / 4) <= 1e-6 * exact / 4);
  const float mean = run_reduce(ReduceKind::kMean, in, Shape{n}, {0})[0];
  CHECK(std::fabs(mean - 0.1f) <= 1e-6f);
}

// ---------------------------------------------------------------------------------------------
// Argmax

TEMPLATE_TEST_CASE("argmax matches xtensor", "[cpu][argmax]", float, double, int32_t, int64_t,
                   float16, bfloat16) {
  const std::vector<Shape> shapes = {
      Shape{1},       Shape{7},       Shape{4, 6},       Shape{3, 0},       Shape{0, 4},
      Shape{2, 3, 4}, Shape{3, 1, 5}, Shape{2, 3, 1, 5}, Shape{3, 4, 5, 6}, Shape{1000},
      Shape{3, 700},  Shape{300, 17}, Shape{3, 4, 300}};
  for (const Shape& shape : shapes) {
    // A small integer range makes ties common; float16/bfloat16 rounding adds some too.
    const auto in = kIsFloat<TestType> ? random_values<TestType>(shape.num_elements(), -4, 4)
                                       : random_values<TestType>(shape.num_elements(), -3, 3);
    const auto xd = to_xarray<double>(in, shape);
    for (int axis = 0; axis < shape.rank(); ++axis) {
      if (shape[axis] == 0) continue;
      INFO("shape " << shape_str(shape) << " axis " << axis);
      const auto got = run_argmax(in, shape, axis);
      // xtensor 0.24's argmax along the only axis of a 1-D array returns 0: use the flat one.
      xt::xarray<std::size_t> ref = shape.rank() == 1
                                        ? xt::xarray<std::size_t>(xt::argmax(xd))
                                        : xt::xarray<std::size_t>(xt::argmax(xd, axis));
      REQUIRE(got.size() == ref.size());
      std::vector<int64_t> want(ref.begin(), ref.end());
      CHECK(got == want);
      // First index on ties, computed independently of xtensor's tie-breaking.
      int64_t outer = 1;
      for (int a = 0; a < axis; ++a) outer *= shape[a];
      int64_t inner = got.size() / std::max<int64_t>(outer, 1);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < inner; ++j) {
          int64_t best = 0;
          for (int64_t i = 1; i < shape[axis]; ++i) {
            if (to_d(in[(o * shape[axis] + i) * inner + j]) >
                to_d(in[(o * shape[axis] + best) * inner + j])) {
              best = i;
            }
          }
          CHECK(got[o * inner + j] == best);
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("argmax ties pick the first index", "[cpu][argmax]", float, double, int32_t,
                   int64_t, float16, bfloat16) {
  const std::vector<TestType> in = {from_d<TestType>(1), from_d<TestType>(3), from_d<TestType>(3),
                                    from_d<TestType>(2), from_d<TestType>(3), from_d<TestType>(0)};
  CHECK(run_argmax(in, Shape{6}, 0) == std::vector<int64_t>{1});
  // [3, 2]: columns {1, 3, 3} and {3, 2, 0}.
  CHECK(run_argmax(in, Shape{3, 2}, 0) == std::vector<int64_t>{1, 0});
  const std::vector<TestType> same(10, from_d<TestType>(5));
  CHECK(run_argmax(same, Shape{10}, 0) == std::vector<int64_t>{0});
  CHECK(run_argmax(same, Shape{5, 2}, 0) == std::vector<int64_t>{0, 0});
  CHECK(run_argmax(same, Shape{2, 5}, 1) == std::vector<int64_t>{0, 0});
}

// Note [ArgMax and NaN]: NaN is passed over, as TensorFlow does; infinity is a value like any.
TEMPLATE_TEST_CASE("argmax passes NaN over, infinity wins", "[cpu][argmax]", float, double, float16,
                   bfloat16) {
  const TestType nan = from_d<TestType>(std::nan(""));
  const TestType inf = from_d<TestType>(INFINITY);
  const std::vector<TestType> in = {from_d<TestType>(1), inf, nan, from_d<TestType>(7), nan};
  CHECK(run_argmax(in, Shape{5}, 0) == std::vector<int64_t>{1});
  const std::vector<TestType> first = {nan, inf, nan};
  CHECK(run_argmax(first, Shape{3}, 0) == std::vector<int64_t>{1});
  const std::vector<TestType> all_nan = {nan, nan};
  CHECK(run_argmax(all_nan, Shape{2}, 0) == std::vector<int64_t>{0});
  // Columns: [5, 2] with NaN at rows 3 and 4 of column 0 and none in column 1.
  std::vector<TestType> col(10, from_d<TestType>(0));
  col[2 * 2 + 1] = from_d<TestType>(9);
  col[3 * 2 + 0] = nan;
  col[4 * 2 + 0] = nan;
  col[1 * 2 + 0] = inf;
  CHECK(run_argmax(col, Shape{5, 2}, 0) == std::vector<int64_t>{1, 2});
}

// ---------------------------------------------------------------------------------------------
// Softmax

TEMPLATE_TEST_CASE("softmax matches xtensor", "[cpu][softmax]", float, double, float16, bfloat16) {
  const std::vector<Shape> shapes = {Shape{1},    Shape{5},         Shape{3, 7}, Shape{2, 3, 4},
                                     Shape{4, 1}, Shape{0, 3},      Shape{3, 0}, Shape{2, 1000},
                                     Shape{},     Shape{2, 1, 3, 5}};
  for (const Shape& shape : shapes) {
    INFO("shape " << shape_str(shape));
    const auto in = random_values<TestType>(shape.num_elements(), -3, 3);
    std::vector<TestType> out(in.size());
    eagle::cpu::softmax<TestType>(in.data(), shape, out.data());
    if (in.empty()) continue;
    xt::xarray<double> xd = to_xarray<double>(in, shape);
    if (shape.rank() == 0) xd.reshape({1});
    const std::size_t last = xd.dimension() - 1;
    // Immediate reducers: xtensor 0.24 mis-broadcasts lazy keep_dims reducers in expressions.
    const auto opts = xt::keep_dims | xt::evaluation_strategy::immediate;
    const xt::xarray<double> mx = xt::amax(xd, {last}, opts);
    const xt::xarray<double> e = xt::exp(xd - mx);
    const xt::xarray<double> sum = xt::sum(e, {last}, opts);
    const std::vector<double> ref = flat(e / sum);
    std::vector<double> atol(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
      atol[i] = tolerance<TestType>() * ref[i] + (kIsHalf<TestType> ? 1e-4 : 0.0);
    }
    CHECK(compare(out, ref, atol) == "");
    const int64_t n = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
    for (std::size_t r = 0; r < out.size() / n; ++r) {
      double s = 0;
      for (int64_t j = 0; j < n; ++j) s += to_d(out[r * n + j]);
      CHECK(std::fabs(s - 1.0) <= tolerance<TestType>() * (kIsHalf<TestType> ? 2 : 1));
    }
  }
}

TEMPLATE_TEST_CASE("softmax of large inputs does not overflow", "[cpu][softmax]", float, double,
                   float16) {
  const std::vector<TestType> in = {from_d<TestType>(1000), from_d<TestType>(1001)};
  std::vector<TestType> out(2);
  eagle::cpu::softmax<TestType>(in.data(), Shape{2}, out.data());
  const double e = std::exp(-1.0);
  CHECK(std::fabs(to_d(out[0]) - e / (1 + e)) <= 1e-2 * (kIsHalf<TestType> ? 1 : 1e-3));
  CHECK(std::fabs(to_d(out[1]) - 1 / (1 + e)) <= 1e-2 * (kIsHalf<TestType> ? 1 : 1e-3));
  // bfloat16 cannot hold 1001 (spacing 4 near 1000); its range goes far beyond float16's.
  const std::vector<bfloat16> h = {bfloat16(1e30f), bfloat16(1e30f), bfloat16(1000.f)};
  std::vector<bfloat16> ho(3);
  eagle::cpu::softmax<bfloat16>(h.data(), Shape{3}, ho.data());
  CHECK(static_cast<float>(ho[0]) == 0.5f);
  CHECK(static_cast<float>(ho[1]) == 0.5f);
  CHECK(static_cast<float>(ho[2]) == 0.0f);
  // A NaN poisons its row only; in place works.
  std::vector<float> rows = {1, NAN, 2, 1, 2, 3};
  eagle::cpu::softmax<float>(rows.data(), Shape{2, 3}, rows.data());
  CHECK(std::isnan(rows[0]));
  CHECK(std::isnan(rows[2]));
  CHECK(std::fabs(rows[3] + rows[4] + rows[5] - 1.0f) < 1e-6f);
}

// ---------------------------------------------------------------------------------------------
// Transpose, concat, slice

template <class E>
void check_transposes(const Shape& shape) {
  const int rank = shape.rank();
  const auto in = random_values<E>(shape.num_elements(), 0, std::numeric_limits<E>::max());
  xt::xarray<E> xin = xt::adapt(in, xshape(shape));
  std::vector<int> perm(static_cast<std::size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  do {
    INFO("shape " << shape_str(shape) << " perm " << vec_str(perm) << " element size "
                  << sizeof(E));
    std::vector<E> out(in.size());
    eagle::cpu::transpose(in.data(), shape, perm, sizeof(E), out.data());
    const std::vector<std::size_t> xperm(perm.begin(), perm.end());
    xt::xarray<E> ref = xt::transpose(xin, xperm);
    CHECK(std::equal(out.begin(), out.end(), ref.begin(), ref.end()));
  } while (std::next_permutation(perm.begin(), perm.end()));
}

std::vector<Shape> layout_shapes() {
  return {Shape{},           Shape{1},         Shape{6},         Shape{0},
          Shape{3, 4},       Shape{1, 5},      Shape{5, 1},      Shape{0, 3},
          Shape{2, 3, 4},    Shape{3, 1, 2},   Shape{2, 0, 3},   Shape{2, 3, 4, 5},
          Shape{2, 1, 3, 1}, Shape{70, 45},    Shape{3, 40, 50}, Shape{2, 33, 1, 65},
          Shape{1, 1, 1, 1}, Shape{4, 3, 0, 2}};
}

TEMPLATE_TEST_CASE("transpose matches xtensor for every permutation", "[cpu][layout]", std::uint8_t,
                   std::uint16_t, std::uint32_t, std::uint64_t) {
  for (const Shape& shape : layout_shapes()) check_transposes<TestType>(shape);
}

TEST_CASE("transpose of odd element sizes", "[cpu][layout]") {
  // An element of 3 (or 12) bytes is a trailing byte dimension that stays in place.
  for (std::size_t es : {3, 12}) {
    for (const Shape& shape : {Shape{2, 3}, Shape{4, 1, 5}, Shape{3, 2, 4}, Shape{}}) {
      Shape bytes = shape;
      bytes.push_back(static_cast<int64_t>(es));
      const auto in = random_values<std::uint8_t>(bytes.num_elements(), 0, 255);
      xt::xarray<std::uint8_t> xin = xt::adapt(in, xshape(bytes));
      std::vector<int> perm(static_cast<std::size_t>(shape.rank()));
      std::iota(perm.begin(), perm.end(), 0);
      do {
        INFO("shape " << shape_str(shape) << " perm " << vec_str(perm) << " element size " << es);
        std::vector<std::uint8_t> out(in.size());
        eagle::cpu::transpose(in.data(), shape, perm, es, out.data());
        std::vector<std::size_t> xperm(perm.begin(), perm.end());
        xperm.push_back(perm.size());
        xt::xarray<std::uint8_t> ref = xt::transpose(xin, xperm);
        CHECK(std::equal(out.begin(), out.end(), ref.begin(), ref.end()));
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

template <class E>
void check_concat(const Shape& base, int axis, const std::vector<int64_t>& extents) {
  std::vector<std::vector<E>> data;
  std::vector<Shape> shapes;
  std::vector<const void*> ptrs;
  for (int64_t ext : extents) {
    Shape s = base;
    s[axis] = ext;
    shapes.push_back(s);
    data.push_back(random_values<E>(s.num_elements(), 0, 1000));
  }
  for (const auto& d : data) ptrs.push_back(d.data());
  Shape out_shape = base;
  out_shape[axis] = std::accumulate(extents.begin(), extents.end(), int64_t{0});
  INFO("base " << shape_str(base) << " axis " << axis << " extents " << vec_str(extents));
  std::vector<E> out(static_cast<std::size_t>(out_shape.num_elements()));
  eagle::cpu::concat(ptrs, shapes, axis, sizeof(E), out.data());
  xt::xarray<E> a = xt::adapt(data[0], xshape(shapes[0]));
  xt::xarray<E> b = xt::adapt(data[1], xshape(shapes[1]));
  xt::xarray<E> c = xt::adapt(data[2], xshape(shapes[2]));
  xt::xarray<E> ref = xt::concatenate(xt::xtuple(a, b, c), static_cast<std::size_t>(axis));
  REQUIRE(ref.size() == out.size());
  CHECK(std::equal(out.begin(), out.end(), ref.begin()));
}

TEMPLATE_TEST_CASE("concat matches xtensor", "[cpu][layout]", std::uint8_t, std::uint16_t,
                   std::uint32_t, std::uint64_t) {
  for (const Shape& base :
       {Shape{5}, Shape{3, 4}, Shape{2, 3, 4}, Shape{2, 1, 3, 2}, Shape{0, 3}, Shape{3, 0, 2}}) {
    for (int axis = 0; axis < base.rank(); ++axis) {
      check_concat<TestType>(base, axis, {2, 3, 1});
      check_concat<TestType>(base, axis, {0, 4, 1});
      check_concat<TestType>(base, axis, {1, 0, 0});
      check_concat<TestType>(base, axis, {0, 0, 0});
    }
  }
}

TEMPLATE_TEST_CASE("slice matches xtensor", "[cpu][layout]", std::uint8_t, std::uint16_t,
                   std::uint32_t, std::uint64_t) {
  for (const Shape& shape : layout_shapes()) {
    const auto in = random_values<TestType>(shape.num_elements(), 0, 200);
    xt::xarray<TestType> xin = xt::adapt(in, xshape(shape));
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<int64_t> begin;
      Shape size;
      xt::xstrided_slice_vector sv;
      for (int a = 0; a < shape.rank(); ++a) {
        // Mostly partial boxes; every third trial keeps trailing dimensions whole.
        int64_t b = std::uniform_int_distribution<int64_t>(0, shape[a])(rng());
        int64_t e = std::uniform_int_distribution<int64_t>(b, shape[a])(rng());
        if (trial % 3 == 0 && a > 0) {
          b = 0;
          e = shape[a];
        }
        begin.push_back(b);
        size.push_back(e - b);
        sv.push_back(xt::range(static_cast<std::size_t>(b), static_cast<std::size_t>(e)));
      }
      INFO("shape " << shape_str(shape) << " begin " << vec_str(begin) << " size "
                    << shape_str(size));
      std::vector<TestType> out(static_cast<std::size_t>(size.num_elements()));
      eagle::cpu::slice(in.data(), shape, begin, size, sizeof(TestType), out.data());
      xt::xarray<TestType> ref = xt::strided_view(xin, sv);
      REQUIRE(ref.size() == out.size());
      CHECK(std::equal(out.begin(), out.end(), ref.begin()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Matmul

struct MatmulCase {
  std::vector<int64_t> a_batch;
  std::vector<int64_t> b_batch;
  int64_t m, k, n;
};

Shape stored_shape(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, bool t) {
  Shape s(batch);
  s.push_back(t ? cols : rows);
  s.push_back(t ? rows : cols);
  return s;
}

// The broadcast batch shape (NumPy rules; the cases are valid).
std::vector<int64_t> broadcast_batch(std::vector<int64_t> a, std::vector<int64_t> b) {
  while (a.size() < b.size()) a.insert(a.begin(), 1);
  while (b.size() < a.size()) b.insert(b.begin(), 1);
  std::vector<int64_t> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] == 1 ? b[i] : a[i];
  return out;
}

// Logical [batch..., rows, cols] operand as a broadcast contiguous xarray of R.
template <class R, class T>
xt::xarray<R> logical_operand(const std::vector<T>& v, const Shape& stored, bool t,
                              const std::vector<int64_t>& batch) {
  xt::xarray<R> x = to_xarray<R>(v, stored);
  const std::size_t r = x.dimension();
  std::vector<std::size_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  if (t) std::swap(perm[r - 1], perm[r - 2]);
  xt::xarray<R> lt = xt::transpose(x, perm);
  std::vector<std::size_t> full(batch.begin(), batch.end());
  full.push_back(lt.shape()[r - 2]);
  full.push_back(lt.shape()[r - 1]);
  xt::xarray<R> out = xt::broadcast(lt, full);
  return out;
}

template <class T>
void check_matmul(const MatmulCase& c, bool ta, bool tb, bool full_range) {
  const Shape a_shape = stored_shape(c.a_batch, c.m, c.k, ta);
  const Shape b_shape = stored_shape(c.b_batch, c.k, c.n, tb);
  const auto batch = broadcast_batch(c.a_batch, c.b_batch);
  Shape out_shape(batch);
  out_shape.push_back(c.m);
  out_shape.push_back(c.n);
  INFO("a " << shape_str(a_shape) << " b " << shape_str(b_shape) << " ta " << ta << " tb " << tb
            << " out " << shape_str(out_shape));
  std::vector<T> a;
  std::vector<T> b;
  if constexpr (!kIsFloat<T>) {
    if (full_range) {
      a = random_full_range<T>(a_shape.num_elements());
      b = random_full_range<T>(b_shape.num_elements());
    }
  }
  if (a.empty() && b.empty()) {
    a = random_values<T>(a_shape.num_elements(), -10, 10);
    b = random_values<T>(b_shape.num_elements(), -10, 10);
  }
  std::vector<T> out(static_cast<std::size_t>(out_shape.num_elements()), from_d<T>(12345));
  eagle::cpu::matmul<T>(a.data(), a_shape, b.data(), b_shape, ta, tb, out.data(), out_shape);
  int64_t nbatch = 1;
  for (int64_t d : batch) nbatch *= d;
  std::vector<double> ref(out.size());
  std::vector<double> atol(out.size(), 0.0);
  if constexpr (kIsFloat<T>) {
    const auto la = logical_operand<double>(a, a_shape, ta, batch);
    const auto lb = logical_operand<double>(b, b_shape, tb, batch);
    for (int64_t t = 0; t < nbatch; ++t) {
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < c.n; ++j) {
          double s = 0;
          double s_abs = 0;
          for (int64_t p = 0; p < c.k; ++p) {
            const double x = la.data()[(t * c.m + i) * c.k + p];
            const double y = lb.data()[(t * c.k + p) * c.n + j];
            s += x * y;
            s_abs += std::fabs(x * y);
          }
          ref[(t * c.m + i) * c.n + j] = s;
          atol[(t * c.m + i) * c.n + j] = tolerance<T>() * s_abs;
        }
      }
    }
  } else {
    const auto la = logical_operand<std::uint64_t>(a, a_shape, ta, batch);
    const auto lb = logical_operand<std::uint64_t>(b, b_shape, tb, batch);
    for (int64_t t = 0; t < nbatch; ++t) {
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < c.n; ++j) {
          std::uint64_t s = 0;
          for (int64_t p = 0; p < c.k; ++p) {
            s += la.data()[(t * c.m + i) * c.k + p] * lb.data()[(t * c.k + p) * c.n + j];
          }
          ref[(t * c.m + i) * c.n + j] = static_cast<double>(wrap<T>(s));
        }
      }
    }
  }
  CHECK(compare(out, ref, atol) == "");
}

TEMPLATE_TEST_CASE("matmul matches a naive reference", "[cpu][matmul]", float, double, int32_t,
                   int64_t, float16, bfloat16) {
  const std::vector<MatmulCase> cases = {
      {{}, {}, 3, 4, 5},       {{}, {}, 1, 1, 1},
      {{2, 1}, {5}, 3, 4, 2},                       // [2,1,3,4] x [5,4,2] -> [2,5,3,2]
      {{4}, {}, 3, 5, 2},                           // shared right operand: batch folds into m
      {{2, 3}, {1}, 3, 5, 2},  {{}, {6}, 3, 4, 2},  // shared left operand
      {{3}, {3}, 4, 6, 5},     {{1}, {1, 3}, 2, 3, 4},
      {{}, {}, 3, 0, 4},                           // k == 0: zeros
      {{2}, {}, 3, 0, 4},      {{}, {}, 0, 4, 3},  // m == 0
      {{}, {}, 3, 4, 0},                           // n == 0
      {{0}, {}, 3, 4, 2},                          // empty batch
      {{2}, {0, 1}, 3, 4, 2},  {{}, {}, 33, 70, 65},
      {{2}, {2}, 7, 300, 600},  // integer blocking over k and n
  };
  for (const MatmulCase& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) check_matmul<TestType>(c, ta, tb, false);
    }
  }
}

TEMPLATE_TEST_CASE("integer matmul wraps", "[cpu][matmul]", int32_t, int64_t) {
  for (const MatmulCase& c : {MatmulCase{{}, {}, 5, 7, 3}, MatmulCase{{2, 1}, {3}, 4, 9, 5},
                              MatmulCase{{}, {}, 3, 200, 520}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) check_matmul<TestType>(c, ta, tb, true);
    }
  }
  const TestType big = std::numeric_limits<TestType>::max();
  const std::vector<TestType> a = {big, 2};
  const std::vector<TestType> b = {2, 1};
  std::vector<TestType> out(1);
  eagle::cpu::matmul<TestType>(a.data(), Shape{1, 2}, b.data(), Shape{2, 1}, false, false,
                               out.data(), Shape{1, 1});
  CHECK(out[0] == TestType(0));  // 2 * (2^(b-1) - 1) + 2 wraps to 0
}

}  // namespace
