// The CUDA backend's index arithmetic, checked without a GPU: each plan (broadcast, gather,
// reduction, matmul) is evaluated on the host exactly as its kernel or cuBLAS call evaluates it,
// and compared with the CPU backend's result on random shapes. Plus: the CUDA backend registers
// exactly the GPU kernel set.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "broadcast_plan.hpp"
#include "cpu/layout.hpp"
#include "cpu/matmul.hpp"
#include "cpu/reduce.hpp"
#include "cublas_library.hpp"
#include "cuda_kernels.hpp"
#include "gather_plan.hpp"
#include "matmul_plan.hpp"
#include "opdefs/op_defs.hpp"
#include "portable/portable_kernels.hpp"
#include "reduction_plan.hpp"
#include "runtime/kernel_table.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::Shape;
using namespace eagle::cuda;

std::vector<double> iota_values(std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

Shape random_shape(std::mt19937& rng, int rank, int max_dim) {
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d)
    dims.push_back(std::uniform_int_distribution<int>(1, max_dim)(rng));
  return Shape(dims);
}

// ---- Broadcast --------------------------------------------------------------------------------

// What binary_broadcast computes: the offsets of a and b for each output index.
std::vector<std::pair<std::int64_t, std::int64_t>> evaluate(const BroadcastPlan& plan,
                                                            std::int64_t n) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, oa = 0, ob = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const std::int64_t digit = rest % plan.dims[d];
      rest /= plan.dims[d];
      oa += digit * plan.strides_a[d];
      ob += digit * plan.strides_b[d];
    }
    out.emplace_back(oa, ob);
  }
  return out;
}

// NumPy broadcasting by definition: output coordinates mapped to each input's coordinates.
std::vector<std::pair<std::int64_t, std::int64_t>> reference(const Shape& a, const Shape& b,
                                                             const Shape& out) {
  std::vector<std::pair<std::int64_t, std::int64_t>> result;
  const auto offset = [&](const Shape& s, const std::vector<std::int64_t>& coord) {
    std::int64_t off = 0;
    const int shift = out.rank() - s.rank();
    for (int d = 0; d < s.rank(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : coord[d + shift]);
    return off;
  };
  std::vector<std::int64_t> coord(static_cast<std::size_t>(out.rank()), 0);
  for (std::int64_t i = 0; i < out.num_elements(); ++i) {
    std::int64_t rest = i;
    for (int d = out.rank() - 1; d >= 0; --d) {
      coord[d] = rest % out[d];
      rest /= out[d];
    }
    result.emplace_back(offset(a, coord), offset(b, coord));
  }
  return result;
}

Shape broadcast(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int ia = a.rank() - rank + d, ib = b.rank() - rank + d;
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    dims[d] = da == 1 ? db : da;
  }
  return Shape(dims);
}

TEST_CASE("broadcast plan collapses dimensions", "[cuda_plans]") {
  const BroadcastPlan same = make_broadcast_plan(Shape{4, 5, 6}, Shape{4, 5, 6}, Shape{4, 5, 6});
  CHECK(same.rank == 1);
  CHECK(same.dims[0] == 120);
  const BroadcastPlan row = make_broadcast_plan(Shape{4096, 4096}, Shape{4096}, Shape{4096, 4096});
  REQUIRE(row.rank == 2);
  CHECK(row.strides_a[0] == 4096);
  CHECK(row.strides_a[1] == 1);
  CHECK(row.strides_b[0] == 0);
  CHECK(row.strides_b[1] == 1);
  const BroadcastPlan scalar = make_broadcast_plan(Shape{}, Shape{}, Shape{});
  CHECK(scalar.rank == 0);
}

TEST_CASE("row broadcasts are found on either side and nothing else is one", "[cuda_plans]") {
  const auto row = [](Shape a, Shape b, Shape out) {
    return row_broadcast(make_broadcast_plan(a, b, out));
  };
  RowBroadcast r = row(Shape{4096, 4096}, Shape{4096}, Shape{4096, 4096});
  CHECK(r.width == 4096);
  CHECK_FALSE(r.row_is_a);
  r = row(Shape{1, 8}, Shape{3, 5, 8}, Shape{3, 5, 8});  // rows merged over [3, 5]
  CHECK(r.width == 8);
  CHECK(r.row_is_a);
  CHECK(row(Shape{4, 6}, Shape{4, 6}, Shape{4, 6}).width == 0);  // same shape: rank 1
  CHECK(row(Shape{4, 6}, Shape{4, 1}, Shape{4, 6}).width == 0);  // a column, not a row
  CHECK(row(Shape{4, 1}, Shape{6}, Shape{4, 6}).width == 0);     // an outer sum
  CHECK(row(Shape{2, 3, 4}, Shape{3, 1}, Shape{2, 3, 4}).width == 0);
  CHECK(row(Shape{}, Shape{5}, Shape{5}).width == 0);  // a scalar
}

TEST_CASE("broadcast plan offsets equal NumPy broadcasting on random shapes", "[cuda_plans]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
    const Shape out = random_shape(rng, rank, 4);
    std::vector<std::int64_t> da, db;
    const int ra = std::uniform_int_distribution<int>(0, rank)(rng);
    const int rb = std::uniform_int_distribution<int>(0, rank)(rng);
    for (int d = rank - ra; d < rank; ++d) da.push_back(rng() % 2 ? out[d] : 1);
    for (int d = rank - rb; d < rank; ++d) db.push_back(rng() % 2 ? out[d] : 1);
    const Shape a(da), b(db);
    const Shape o = broadcast(a, b);
    INFO(a.to_string() << " + " << b.to_string());
    REQUIRE(evaluate(make_broadcast_plan(a, b, o), o.num_elements()) == reference(a, b, o));
  }
}

// ---- Gather (transpose, slice) -----------------------------------------------------------------

std::vector<double> evaluate(const GatherPlan& plan, const std::vector<double>& in,
                             std::int64_t n) {
  std::vector<double> out;
  if (plan.is_batched_transpose()) {  // transpose_tiles: in [batch, q, p] -> out [batch, p, q]
    const std::int64_t p = plan.dims[plan.rank - 2], q = plan.dims[plan.rank - 1];
    const std::int64_t batch = plan.rank == 3 ? plan.dims[0] : 1;
    out.assign(static_cast<std::size_t>(n), 0);
    for (std::int64_t b = 0; b < batch; ++b) {
      for (std::int64_t r = 0; r < q; ++r) {
        for (std::int64_t c = 0; c < p; ++c) {
          out[static_cast<std::size_t>(b * p * q + c * q + r)] =
              in[static_cast<std::size_t>(plan.base + b * p * q + r * p + c)];
        }
      }
    }
    return out;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, off = plan.base;
    for (int d = plan.rank - 1; d >= 0; --d) {
      off += (rest % plan.dims[d]) * plan.strides[d];
      rest /= plan.dims[d];
    }
    out.push_back(in[static_cast<std::size_t>(off)]);
  }
  return out;
}

TEST_CASE("gather plans transpose and slice as the CPU does", "[cuda_plans]") {
  std::mt19937 rng(11);
  int batched_transposes = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = std::uniform_int_distribution<int>(1, 5)(rng);
    const Shape shape = random_shape(rng, rank, 5);
    const std::vector<double> in = iota_values(shape.num_elements());
    std::vector<int> perm(static_cast<std::size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<double> expected(in.size());
    eagle::cpu::transpose(in.data(), shape, perm, sizeof(double), expected.data());
    const GatherPlan transpose = make_transpose_plan(shape, perm);
    batched_transposes += transpose.is_batched_transpose();
    INFO("transpose " << shape.to_string());
    REQUIRE(evaluate(transpose, in, shape.num_elements()) == expected);

    std::vector<std::int64_t> begin, size;
    for (int d = 0; d < rank; ++d) {
      begin.push_back(std::uniform_int_distribution<std::int64_t>(0, shape[d] - 1)(rng));
      size.push_back(std::uniform_int_distribution<std::int64_t>(0, shape[d] - begin.back())(rng));
    }
    const Shape box(size);
    std::vector<double> sliced(static_cast<std::size_t>(box.num_elements()));
    eagle::cpu::slice(in.data(), shape, begin, box, sizeof(double), sliced.data());
    INFO("slice " << shape.to_string() << " -> " << box.to_string());
    REQUIRE(evaluate(make_slice_plan(shape, begin, box), in, box.num_elements()) == sliced);
  }
  CHECK(batched_transposes > 20);  // the tiled path was exercised
  CHECK(make_transpose_plan(Shape{1025, 257}, {1, 0}).is_batched_transpose());
  CHECK(make_transpose_plan(Shape{3, 1025, 257}, {0, 2, 1}).is_batched_transpose());
  CHECK_FALSE(make_transpose_plan(Shape{3, 4, 5}, {2, 1, 0}).is_batched_transpose());
}

TEST_CASE("strided plans (StridedSlice, Einsum views) walk negative and zero strides",
          "[cuda_plans]") {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
    const Shape shape = random_shape(rng, rank, 5);
    if (shape.num_elements() == 0) continue;
    const std::vector<double> in = iota_values(shape.num_elements());
    std::vector<std::int64_t> row(static_cast<std::size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) row[d] = row[d + 1] * shape[d + 1];
    // Per dimension: a start, a step in [-3, 3] (0: a broadcast dimension of size 1..3) and a
    // count that stays inside.
    std::vector<std::int64_t> dims, strides;
    std::int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
      const std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, shape[d] - 1)(rng);
      const std::int64_t step = std::uniform_int_distribution<std::int64_t>(-3, 3)(rng);
      const std::int64_t room = step > 0   ? (shape[d] - 1 - start) / step
                                : step < 0 ? start / -step
                                           : 2;
      dims.push_back(1 + std::uniform_int_distribution<std::int64_t>(0, room)(rng));
      strides.push_back(step * row[d]);
      base += start * row[d];
    }
    std::int64_t n = 1;
    for (std::int64_t d : dims) n *= d;
    std::vector<double> expected;
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t rest = i, off = base;
      for (int d = rank - 1; d >= 0; --d) {
        off += (rest % dims[d]) * strides[d];
        rest /= dims[d];
      }
      expected.push_back(in[static_cast<std::size_t>(off)]);
    }
    const GatherPlan plan = make_strided_plan(base, dims, strides);
    INFO("strided " << shape.to_string() << " rank " << plan.rank);
    REQUIRE(evaluate(plan, in, n) == expected);
    // The kernel's 32-bit path: unsigned arithmetic wraps, and the sum comes back in range.
    for (std::int64_t i = 0; i < n; ++i) {
      std::uint32_t rest = static_cast<std::uint32_t>(i);
      std::uint32_t off = static_cast<std::uint32_t>(plan.base);
      for (int d = plan.rank - 1; d >= 0; --d) {
        const auto dim = static_cast<std::uint32_t>(plan.dims[d]);
        off += (rest % dim) * static_cast<std::uint32_t>(plan.strides[d]);
        rest /= dim;
      }
      REQUIRE(in[off] == expected[static_cast<std::size_t>(i)]);
    }
  }
}

// ---- Reduction ---------------------------------------------------------------------------------

TEST_CASE("reduction plans reduce over every axis subset as the CPU does", "[cuda_plans]") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
    const Shape shape = random_shape(rng, rank, 4);
    std::vector<int> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng() % 2) axes.push_back(d);
    }
    const std::vector<double> in = iota_values(shape.num_elements());
    std::int64_t kept = 1;
    for (int d = 0; d < rank; ++d) {
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept *= shape[d];
    }
    std::vector<double> expected(static_cast<std::size_t>(kept));
    eagle::cpu::reduce<double>(eagle::cpu::ReduceKind::kSum, in.data(), shape, axes,
                               expected.data());

    const ReductionPlan plan = make_reduction_plan(shape, axes);
    std::vector<double> got(static_cast<std::size_t>(kept), 0);
    INFO(shape.to_string() << " axes " << axes.size());
    switch (plan.kind) {
      case ReductionPlan::Kind::kNothingToWrite:
      case ReductionPlan::Kind::kIdentity:
        FAIL("shapes here have no empty dimension");
        break;
      case ReductionPlan::Kind::kCopy:
        got = in;
        break;
      case ReductionPlan::Kind::kReduce: {
        std::vector<double> view = in;
        if (!plan.perm.empty()) {
          eagle::cpu::transpose(in.data(), shape, plan.perm, sizeof(double), view.data());
          REQUIRE(plan.inner == 1);
        }
        REQUIRE(plan.outer * plan.inner == kept);
        REQUIRE(plan.outer * plan.reduced * plan.inner == shape.num_elements());
        for (std::int64_t o = 0; o < plan.outer; ++o) {
          for (std::int64_t r = 0; r < plan.reduced; ++r) {
            for (std::int64_t i = 0; i < plan.inner; ++i) {
              got[static_cast<std::size_t>(o * plan.inner + i)] +=
                  view[static_cast<std::size_t>((o * plan.reduced + r) * plan.inner + i)];
            }
          }
        }
        break;
      }
    }
    REQUIRE(got == expected);
  }
  CHECK(make_reduction_plan(Shape{3, 0, 2}, {1}).kind == ReductionPlan::Kind::kIdentity);
  CHECK(make_reduction_plan(Shape{3, 0, 2}, {0}).kind == ReductionPlan::Kind::kNothingToWrite);
  CHECK(make_reduction_plan(Shape{3, 1, 2}, {1}).kind == ReductionPlan::Kind::kCopy);
  const ReductionPlan interleaved = make_reduction_plan(Shape{2, 3, 4, 5}, {0, 2});
  CHECK(interleaved.perm == std::vector<int>{1, 3, 0, 2});
}

// ---- Matmul ------------------------------------------------------------------------------------

// Column-major GEMM as cuBLAS defines it: C[i + j * ldc] = sum_p op(A)[i, p] * op(B)[p, j].
void column_major_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                       const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
                       double* c, std::int64_t ldc) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[p + i * lda] : a[i + p * lda];
        const double bv = tb ? b[j + p * ldb] : b[p + j * ldb];
        sum += av * bv;
      }
      c[i + j * ldc] = sum;
    }
  }
}

TEST_CASE("matmul plans are the CPU's products as cuBLAS computes them", "[cuda_plans]") {
  std::mt19937 rng(17);
  int pointer_arrays = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t m = std::uniform_int_distribution<int>(1, 5)(rng);
    const std::int64_t n = std::uniform_int_distribution<int>(1, 5)(rng);
    const std::int64_t k = std::uniform_int_distribution<int>(1, 5)(rng);
    const bool ta = rng() % 2, tb = rng() % 2;
    const int batch_rank = std::uniform_int_distribution<int>(0, 3)(rng);
    const Shape out_batch = random_shape(rng, batch_rank, 3);
    std::vector<std::int64_t> da, db;
    const int ra = std::uniform_int_distribution<int>(0, batch_rank)(rng);
    const int rb = std::uniform_int_distribution<int>(0, batch_rank)(rng);
    for (int d = batch_rank - ra; d < batch_rank; ++d) da.push_back(rng() % 2 ? out_batch[d] : 1);
    for (int d = batch_rank - rb; d < batch_rank; ++d) db.push_back(rng() % 2 ? out_batch[d] : 1);
    const Shape ob = broadcast(Shape(da), Shape(db));
    da.push_back(ta ? k : m);
    da.push_back(ta ? m : k);
    db.push_back(tb ? n : k);
    db.push_back(tb ? k : n);
    std::vector<std::int64_t> dout = ob.to_vector();
    dout.push_back(m);
    dout.push_back(n);
    const Shape a(da), b(db), out(dout);
    const std::vector<double> av = iota_values(a.num_elements());
    std::vector<double> bv = iota_values(b.num_elements());
    for (double& x : bv) x = x * 0.5 - 3;
    std::vector<double> expected(static_cast<std::size_t>(out.num_elements()));
    eagle::cpu::matmul<double>(av.data(), a, bv.data(), b, ta, tb, expected.data(), out);

    const MatmulPlan plan = make_matmul_plan(a, b, ta, tb, out);
    pointer_arrays += !plan.strided;
    std::vector<double> got(expected.size(), -1);
    for (std::int64_t i = 0; i < plan.batch; ++i) {
      const std::int64_t off_a = plan.strided ? i * plan.stride_a : plan.offsets_a[i];
      const std::int64_t off_b = plan.strided ? i * plan.stride_b : plan.offsets_b[i];
      // cuBLAS's (m, n) are the row-major (n, m); its first operand is b.
      column_major_gemm(plan.transpose_first, plan.transpose_second, plan.n, plan.m, plan.k,
                        bv.data() + off_b, plan.ld_first, av.data() + off_a, plan.ld_second,
                        got.data() + i * plan.stride_out, plan.ld_out);
    }
    INFO(a.to_string() << (ta ? "^T" : "") << " @ " << b.to_string() << (tb ? "^T" : ""));
    REQUIRE(got == expected);
  }
  CHECK(pointer_arrays >= 3);  // the irregular-broadcast path was exercised
}

// ---- Registration ------------------------------------------------------------------------------

TEST_CASE("the CUDA and portable kernels are exactly the GPU kernel set", "[cuda_plans]") {
  using eagle::opdefs::OpId;
  using eagle::runtime::DeviceType;
  eagle::runtime::KernelTable table;
  register_cuda_kernels(table);
  eagle::portable::register_portable_kernels(table, DeviceType::kGPU);
  int registered = 0;
  for (int op = 0; op < eagle::opdefs::kNumOps; ++op) {
    for (int t = 0; t < eagle::kNumDTypes; ++t) {
      const auto id = static_cast<opdefs::OpId>(op);
      const auto dtype = static_cast<eagle::DType>(t);
      INFO(eagle::opdefs::op_name(id) << " " << eagle::dtype_name(dtype));
      const bool has = table.find(id, DeviceType::kGPU, dtype) != nullptr;
      CHECK(has == eagle::opdefs::gpu_implements(id, dtype));
      CHECK(table.find(id, DeviceType::kCPU, dtype) == nullptr);
      registered += has;
    }
  }
  CHECK(registered > 200);
}

}  // namespace

namespace {

bool cublas_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libcublas") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// Note [cuBLAS on demand]: libeagle does not load cuBLAS until a cuBLAS handle is made, and then
// finds every entry point it calls (the names behind cublas_v2.h's _v2 macros included). Needs
// the toolkit's libraries, not a GPU; each TEST_CASE runs in a fresh process under ctest.
TEST_CASE("cuBLAS is loaded on first use and has every entry point") {
  CHECK_FALSE(cublas_is_mapped());
  const eagle::cuda::CublasLibrary& api = eagle::cuda::cublas();
  CHECK(cublas_is_mapped());
  CHECK(&api == &eagle::cuda::cublas());
  CHECK(std::string(api.status_name(CUBLAS_STATUS_NOT_INITIALIZED)) ==
        "CUBLAS_STATUS_NOT_INITIALIZED");
  CHECK(api.create != nullptr);
  CHECK(api.destroy != nullptr);
  CHECK(api.set_stream != nullptr);
  CHECK(api.set_pointer_mode != nullptr);
  CHECK(api.set_workspace != nullptr);
  CHECK(api.status_string != nullptr);
  CHECK(api.gemm != nullptr);
  CHECK(api.gemm_strided_batched != nullptr);
  CHECK(api.gemm_batched != nullptr);
}
