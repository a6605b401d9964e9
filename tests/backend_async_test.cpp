// The GPU runtime under the op suite: many ops queued before one read, inputs dropped while a
// queued kernel reads them, copies between the CPU and GPUs of every dtype, and two GPUs.
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

TEST_CASE("many ops queued back to back, then one read") {
  HardPlacement hard;
  const Tensor x0 = make(DType::kFloat32, {4097}, Domain::kUnit, 31);
  const Tensor i0 = make(DType::kInt32, {1023}, Domain::kGeneral, 32);
  const Tensor m0 = make(DType::kFloat32, {64, 64}, Domain::kUnit, 33);
  // Contracting steps (|derivative| <= 1): rounding differences cannot grow along the chain.
  // x0 enters every step, so the elements stay apart (a chain converging to one fixed point
  // would end in a cancellation, x - mean(x) ~ 0, and check nothing).
  const auto chain = [&] {
    Tensor x = x0;
    for (int i = 0; i < 300; ++i) {
      x = eagle::tanh(x * 0.5f + x0 * 0.75f);
      x = eagle::maximum(x, -x * 0.5f) - 0.125f;
      if (i % 50 == 49) x = x - eagle::reduce_mean(x) * 0.5f;
    }
    return x;
  };
  const auto int_chain = [&] {
    Tensor x = i0;
    for (int i = 0; i < 500; ++i) x = x * 3 + 1;  // wraps
    return x;
  };
  const auto matrix_chain = [&] {
    const Tf32 off(false);
    Tensor m = m0;
    for (int i = 0; i < 40; ++i) m = eagle::softmax(eagle::matmul(m, m0, false, true)) - 0.01f;
    return m;
  };
  const Tol chain_tol = chain_of_ops_tol();
  compare_op(opdefs::OpId::kTanh, DType::kFloat32, "2700 float32 ops, then one read", chain,
             chain_tol);
  compare_op(opdefs::OpId::kMul, DType::kInt32, "1000 int32 ops, then one read", int_chain,
             exact());
  compare_op(opdefs::OpId::kMatMul, DType::kFloat32, "120 matmul, softmax and sub ops",
             matrix_chain, chain_tol);
  // Many results queued, read back in reverse order.
  std::vector<Tensor> cpu, gpu;
  {
    auto scope = eagle::device(kCpu0);
    for (int i = 0; i < 64; ++i) cpu.push_back(eagle::sqrt(eagle::abs(x0) * static_cast<float>(i)));
  }
  {
    auto scope = eagle::device(kGpu0);
    for (int i = 0; i < 64; ++i) gpu.push_back(eagle::sqrt(eagle::abs(x0) * static_cast<float>(i)));
  }
  for (int i = 63; i >= 0; --i) {
    INFO("result " << i);
    CHECK(mismatches(gpu[static_cast<std::size_t>(i)], cpu[static_cast<std::size_t>(i)],
                     float_tol(DType::kFloat32)) == "");
  }
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("a tensor dropped while a queued op still reads it") {
  HardPlacement hard;
  const Tf32 off(false);
  constexpr std::int64_t kN = std::int64_t{1} << 20;  // 4 MiB of float32
  const Tensor expected = eagle::with_device(kCpu0, [&] {
    const Tensor x = eagle::random_uniform({kN}, -1, 1, DType::kFloat32, 77);
    return eagle::exp(x) * 2.0f + eagle::abs(x);  // positive terms: no cancellation
  });
  Tensor result;
  {
    auto scope = eagle::device(kGpu0);
    // Work queued ahead, so that the reading kernels have not run when their input is dropped.
    const Tensor big = eagle::random_uniform({1024, 1024}, -1, 1, DType::kFloat32, 5);
    Tensor busy = big;
    for (int i = 0; i < 4; ++i) busy = eagle::matmul(busy, big) * 0.03f;
    Tensor x = eagle::random_uniform({kN}, -1, 1, DType::kFloat32, 77);
    result = eagle::exp(x) * 2.0f + eagle::abs(x);
    x = Tensor();  // dropped: its memory is free for the allocator, the kernels may still read
  }
  std::vector<Tensor> fillers;
  {
    auto scope = eagle::device(kGpu0);
    for (int i = 0; i < 8; ++i) fillers.push_back(eagle::fill({kN}, 1000.0 + i));
  }
  CHECK(mismatches(result, expected, float_tol(DType::kFloat32)) == "");
  for (int i = 0; i < 8; ++i) {
    auto scope = eagle::device(kGpu0);
    CHECK(eagle::reduce_max(fillers[static_cast<std::size_t>(i)]).item<float>() == 1000.0f + i);
    CHECK(eagle::reduce_min(fillers[static_cast<std::size_t>(i)]).item<float>() == 1000.0f + i);
  }
  // Host memory handed to a constant may be reused as soon as constant() returns.
  Tensor doubled;
  {
    std::vector<float> host(static_cast<std::size_t>(kN), 3.0f);
    auto scope = eagle::device(kGpu0);
    const Tensor c = eagle::constant(host, Shape{kN});
    std::fill(host.begin(), host.end(), -1.0f);
    host.clear();
    host.shrink_to_fit();
    doubled = c * 2.0f;
  }
  CHECK(on_device(doubled, kGpu0));
  const auto v = doubled.to_vector<float>();
  CHECK(std::all_of(v.begin(), v.end(), [](float e) { return e == 6.0f; }));
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("GPU to CPU to GPU round trips keep every dtype's bytes, queued results are copied") {
  HardPlacement hard;
  for (DType d : all_dtypes()) {
    if (!opdefs::gpu_implements(opdefs::OpId::kIdentity, d)) continue;
    for (std::size_t s = 0; s < elementwise_shapes().size(); ++s) {
      const Tensor x = make(d, elementwise_shapes()[s], Domain::kGeneral, seed_of(s, 41), true);
      INFO(str(d) << " " << x.shape().to_string());
      const Tensor on_gpu = eagle::with_device(kGpu0, [&] { return eagle::identity(x); });
      const Tensor on_cpu = eagle::with_device(kCpu0, [&] { return eagle::identity(on_gpu); });
      const Tensor again = eagle::with_device(kGpu0, [&] { return eagle::identity(on_cpu); });
      CHECK(on_device(on_gpu, kGpu0));
      CHECK(on_device(on_cpu, kCpu0));
      CHECK(on_device(again, kGpu0));
      CHECK(mismatches(on_gpu, x, exact()) == "");
      CHECK(mismatches(on_cpu, x, exact()) == "");
      CHECK(mismatches(again, x, exact()) == "");
    }
  }
  // A CPU op reading a GPU result that may still be queued: the copy must wait for it.
  const Tensor x = make(DType::kFloat32, {65537}, Domain::kWide, 42);
  for (int i = 0; i < 4; ++i) {
    const Tensor queued = eagle::with_device(kGpu0, [&] {
      Tensor y = x;
      for (int k = 0; k < 20; ++k) y = eagle::tanh(y) + 0.5f;
      return y;
    });
    const Tensor reference = eagle::with_device(kCpu0, [&] {
      Tensor y = x;
      for (int k = 0; k < 20; ++k) y = eagle::tanh(y) + 0.5f;
      return y * 2.0f;
    });
    const Tensor on_cpu = eagle::with_device(kCpu0, [&] { return queued * 2.0f; });
    CHECK(on_device(on_cpu, kCpu0));
    CHECK(mismatches(on_cpu, reference, chain_of_ops_tol()) == "");
  }
  // The device policy "explicit" refuses the implicit copy; identity is the explicit one.
  struct ExplicitPolicy {
    ExplicitPolicy() { eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit); }
    ~ExplicitPolicy() { eagle::config::set_device_policy(eagle::DevicePolicy::kSilent); }
  } policy;
  {
    const Tensor fresh = make(DType::kFloat32, {1023}, Domain::kWide, 43);  // no GPU copy yet
    auto scope = eagle::device(kGpu0);
    CHECK_THROWS_AS(eagle::exp(fresh), eagle::InvalidArgumentError);
    const Tensor moved = eagle::identity(fresh);
    CHECK(on_device(moved, kGpu0));
    CHECK(mismatches(eagle::exp(moved),
                     eagle::with_device(kCpu0, [&] { return eagle::exp(fresh); }),
                     float_tol(DType::kFloat32)) == "");
  }
}

TEST_CASE("two GPUs: tensors move between GPU:0 and GPU:1, towers summed anywhere") {
  HardPlacement hard;
  if (logical_gpu_count() < 2) {
    WARN("only one logical GPU: the two-GPU test does not run (see main() for the split)");
    return;
  }
  const Tf32 off(false);
  const Tensor a = make(DType::kFloat32, {257, 513}, Domain::kUnit, 51);
  const Tensor b = make(DType::kFloat32, {513, 129}, Domain::kUnit, 52);
  const Tensor expected = eagle::with_device(kCpu0, [&] { return eagle::matmul(a, b); });
  const Tol tol = matmul_tol(DType::kFloat32, false, matmul_magnitudes(a, b, false, false));
  // Inputs produced on GPU:0 (maybe still queued), consumed on GPU:1.
  const Tensor a0 = eagle::with_device(kGpu0, [&] { return eagle::identity(a) * 1.0f; });
  const Tensor b0 = eagle::with_device(kGpu0, [&] { return eagle::identity(b) + 0.0f; });
  const Tensor c1 = eagle::with_device(kGpu1, [&] { return eagle::matmul(a0, b0); });
  CHECK(on_device(a0, kGpu0));
  CHECK(on_device(c1, kGpu1));
  CHECK(mismatches(c1, expected, tol) == "");
  // Every dtype GPU:0 -> GPU:1 -> GPU:0, with work queued on both in between.
  for (DType d : all_dtypes()) {
    if (!opdefs::gpu_implements(opdefs::OpId::kIdentity, d)) continue;
    INFO(str(d));
    const Tensor x = make(d, {4097}, Domain::kGeneral, 53, true);
    const Tensor x0 = eagle::with_device(kGpu0, [&] { return eagle::identity(x); });
    const Tensor x1 = eagle::with_device(kGpu1, [&] { return eagle::identity(x0); });
    const Tensor back = eagle::with_device(kGpu0, [&] { return eagle::identity(x1); });
    CHECK(on_device(x1, kGpu1));
    CHECK(on_device(back, kGpu0));
    CHECK(mismatches(x1, x, exact()) == "");
    CHECK(mismatches(back, x, exact()) == "");
  }
  // Towers: one matmul per GPU, summed on GPU:1, GPU:0 and the CPU.
  std::vector<Tensor> towers;
  for (const char* gpu : {kGpu0, kGpu1}) {
    towers.push_back(eagle::with_device(gpu, [&] { return eagle::matmul(a, b); }));
  }
  CHECK(on_device(towers[0], kGpu0));
  CHECK(on_device(towers[1], kGpu1));
  // Each tower is within tol of `expected`: their sum within twice that of 2 * expected.
  const Tensor twice = eagle::with_device(kCpu0, [&] { return expected * 2.0f; });
  Tol tol2 = tol;
  tol2.scale = eagle::with_device(kCpu0, [&] { return tol.scale * 2.0; });
  for (const char* where : {kGpu1, kGpu0, kCpu0}) {
    INFO("add_n on " << where);
    const Tensor sum = eagle::with_device(where, [&] { return eagle::add_n(towers); });
    CHECK(on_device(sum, where));
    CHECK(mismatches(sum, twice, tol2) == "");
  }
  // Both GPUs busy at once, then one read of each.
  std::vector<Tensor> per_gpu;
  for (const char* gpu : {kGpu0, kGpu1}) {
    per_gpu.push_back(eagle::with_device(gpu, [&] {
      Tensor m = eagle::identity(a);
      for (int i = 0; i < 30; ++i) m = eagle::tanh(m * 0.9f);
      return m;
    }));
  }
  const Tensor ref = eagle::with_device(kCpu0, [&] {
    Tensor m = a;
    for (int i = 0; i < 30; ++i) m = eagle::tanh(m * 0.9f);
    return m;
  });
  CHECK(mismatches(per_gpu[1], ref, chain_of_ops_tol()) == "");
  CHECK(mismatches(per_gpu[0], ref, chain_of_ops_tol()) == "");
  CHECK_NOTHROW(eagle::sync_devices());
}
