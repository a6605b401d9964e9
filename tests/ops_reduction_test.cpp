// Values of the reductions and argmax/argmin against xtensor and hand-computed results. The
// every-backend comparison, the errors and the gradients are in the OpInfo table
// (tests/op_info/reduction_op_infos.cpp).
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
