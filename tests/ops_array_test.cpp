// Values of reshape, expand_dims, squeeze, transpose, concat and slice over every dtype. The
// every-backend comparison, the errors and the gradients are in the OpInfo table
// (tests/op_info/array_op_infos.cpp); tile, pad, reverse, split, stack and the scans are in
// ops_shape_test.cpp.
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

TEST_CASE("reshape infers -1 beside zeros, transpose counts negative perms from the end",
          "[ops][shape]") {
  // TensorFlow infers -1 from the nonzero sizes when the shapes hold zeros.
  CHECK(eagle::reshape(eagle::zeros({0, 3}), {0, -1}).shape() == Shape{0, 3});
  CHECK(eagle::reshape(eagle::zeros({0, 3}), {-1, 0}).shape() == Shape{3, 0});
  CHECK(eagle::reshape(eagle::zeros({2, 0}), {-1}).shape() == Shape{0});
  CHECK(eagle::reshape(eagle::zeros({0}), {-1, 5}).shape() == Shape{0, 5});
  const Tensor x = eagle::zeros({2, 3});
  CHECK(eagle::transpose(x, {-1, 0}).shape() == Shape{3, 2});
  CHECK(eagle::transpose(x, {-1, -2}).to_vector<float>() == std::vector<float>(6, 0.f));
}

// Found by tests/fuzz/shape_ops_fuzzer: inputs without elements may have huge dimensions after
// their zero, which neither the kernel nor the output shape may multiply out unchecked (the
// overflowing case is an error case of ConcatV2's OpInfo entry).
TEST_CASE("concat of zero-element inputs with huge dimensions", "[ops][shape]") {
  const std::int64_t big = std::int64_t{1} << 62;
  const Tensor wide =
      eagle::zeros({0, (std::int64_t{1} << 57) - 1, 1, std::int64_t{1} << 40}, DType::kInt64);
  const Tensor joined = eagle::concat({wide}, -4);
  CHECK(joined.shape() == wide.shape());
  CHECK(joined.num_elements() == 0);
  const Tensor tall = eagle::zeros({1, big, 0});
  CHECK(eagle::concat({tall}, 0).shape() == tall.shape());
}
