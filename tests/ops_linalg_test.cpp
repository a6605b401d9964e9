// Values of matmul (BLAS and the integer loops), add_n and softmax against float64 references.
// The every-backend comparison, the errors and the gradients are in the OpInfo table
// (tests/op_info/linalg_op_infos.cpp).
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
