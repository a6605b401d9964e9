// NcclAllReduce on real CUDA GPUs (Note [NcclAllReduce] in src/distribute/nccl_all_reduce.cpp):
// the selection and its log, a 1-replica all-reduce per dtype, a 2-replica all-reduce against
// ReductionToOneDevice where two GPUs exist, MirroredStrategy training with NCCL against
// ReductionToOneDevice, and the fallbacks (NCCL missing, two logical GPUs of one card). Each
// TEST_CASE runs in its own process (tests/fresh_runtime.hpp). Without a CUDA GPU the program
// exits 77 ("Not Run"); a case that needs two GPUs exits 77 on a machine with one.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"
#include "real_gpu.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

using eagle_test::LevelLog;

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::MirroredStrategy;
using eagle::distribute::NcclAllReduce;
using eagle::distribute::ReduceOp;
using eagle::distribute::ReductionToOneDevice;

std::string full(int gpu) {
  return "/job:localhost/replica:0/task:0/device:GPU:" + std::to_string(gpu);
}

int physical_gpus() { return static_cast<int>(eagle::config::list_physical_devices("GPU").size()); }

// For a case that needs `n` GPUs: this process ends "Not Run" on a machine with fewer.
void require_gpus(int n) {
  if (physical_gpus() < n) {
    std::printf("SKIP: this case needs %d CUDA GPUs, the machine has %d\n", n, physical_gpus());
    std::exit(eagle_test::kSkipReturnCode);
  }
}

void grow_all_gpus() {
  for (const auto& gpu : eagle::config::list_physical_devices("GPU")) {
    eagle::config::set_memory_growth(gpu, true);
  }
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  const Tensor x = eagle::with_device("/CPU:0", [&] { return eagle::identity(a); });
  const Tensor y = eagle::with_device("/CPU:0", [&] { return eagle::identity(b); });
  const auto& xi = eagle::runtime::impl_of(x);
  const auto& yi = eagle::runtime::impl_of(y);
  return x.dtype() == y.dtype() && x.shape() == y.shape() && xi->bytes() == yi->bytes() &&
         std::memcmp(xi->data(), yi->data(), xi->bytes()) == 0;
}

// n values of `dtype` on GPU:<gpu>, from a seed.
Tensor values_on(int gpu, eagle::DType dtype, std::int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-50, 50);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(rng) / 4.0;
  return eagle::with_device("/GPU:" + std::to_string(gpu),
                            [&] { return eagle::cast(eagle::constant(v, {n}), dtype); });
}

const std::vector<eagle::DType> kDTypes = {eagle::kFloat32,  eagle::kFloat64, eagle::kFloat16,
                                           eagle::kBFloat16, eagle::kInt32,   eagle::kInt64};

}  // namespace

TEST_CASE("one GPU: MirroredStrategy selects NcclAllReduce, and its all-reduce copies each dtype") {
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  LevelLog log;
  const MirroredStrategy strategy({"GPU:0"});
  CHECK(log.take() == std::vector<std::string>{"INFO:eagle:Using MirroredStrategy with devices ('" +
                                               full(0) + "',)"});
  REQUIRE(strategy.cross_device_ops().name() == "NcclAllReduce");
  auto& nccl = strategy.cross_device_ops();
  for (eagle::DType dtype : kDTypes) {
    INFO(eagle::dtype_name(dtype));
    const Tensor x = values_on(0, dtype, 1000, 1);
    const auto sum = nccl.all_reduce(ReduceOp::kSum, {x}, {full(0)});
    REQUIRE(sum.size() == 1);
    CHECK(sum[0].device() == full(0));
    CHECK(eagle::runtime::impl_of(sum[0])->data() != eagle::runtime::impl_of(x)->data());
    CHECK(same_bytes(sum[0], x));
  }
  // num_packs splits the buffer into contiguous NCCL calls; an empty buffer makes none.
  for (int packs : {0, 3, 7}) {
    NcclAllReduce split(packs);
    split.prepare({"GPU:0"});
    const Tensor x = values_on(0, eagle::kFloat32, 10, 2);
    CHECK(same_bytes(split.all_reduce(ReduceOp::kSum, {x}, {"GPU:0"})[0], x));
  }
  const Tensor empty = values_on(0, eagle::kFloat32, 0, 3);
  CHECK(nccl.all_reduce(ReduceOp::kSum, {empty}, {full(0)})[0].shape() == eagle::Shape{0});
  // A value on another device is copied to the destination GPU first; MEAN divides.
  const Tensor host = eagle::constant({2.0f, 4.0f});
  const Tensor mean = nccl.all_reduce(ReduceOp::kMean, {host}, {full(0)})[0];
  CHECK(mean.device() == full(0));
  CHECK(mean.to_vector<float>() == std::vector<float>{2, 4});
  // Booleans have no NCCL sum.
  const Tensor flags = eagle::with_device("/GPU:0", [] { return eagle::constant({true, false}); });
  CHECK_THROWS_MATCHES(nccl.all_reduce(ReduceOp::kSum, {flags}, {full(0)}),
                       eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce: NCCL cannot sum bool values; it sums "
                                      "float32, float64, float16, bfloat16, int32 and int64"));
}

TEST_CASE("two GPUs: NcclAllReduce sums bit for bit as ReductionToOneDevice does") {
  require_gpus(2);
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  const std::vector<std::string> devices = {full(0), full(1)};
  NcclAllReduce nccl;
  nccl.prepare(devices);
  ReductionToOneDevice to_one;
  for (eagle::DType dtype : kDTypes) {
    INFO(eagle::dtype_name(dtype));
    const std::vector<Tensor> values = {values_on(0, dtype, 4099, 5), values_on(1, dtype, 4099, 6)};
    const auto got = nccl.all_reduce(ReduceOp::kSum, values, devices);
    const auto want = to_one.all_reduce(ReduceOp::kSum, values, devices);
    for (std::size_t r = 0; r < 2; ++r) {
      CHECK(got[r].device() == devices[r]);
      CHECK(same_bytes(got[r], want[r]));
    }
  }
  NcclAllReduce packed(4);
  const std::vector<Tensor> values = {values_on(0, eagle::kFloat32, 1001, 7),
                                      values_on(1, eagle::kFloat32, 1001, 8)};
  const auto got = packed.all_reduce(ReduceOp::kMean, values, devices);
  const auto want = to_one.all_reduce(ReduceOp::kMean, values, devices);
  CHECK(same_bytes(got[0], want[0]));
  CHECK(same_bytes(got[1], want[1]));
}

TEST_CASE("MirroredStrategy training with NCCL equals training with ReductionToOneDevice") {
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  std::vector<std::string> devices;
  for (int g = 0; g < physical_gpus(); ++g) devices.push_back("GPU:" + std::to_string(g));
  const MirroredStrategy with_nccl(devices);
  REQUIRE(with_nccl.cross_device_ops().name() == "NcclAllReduce");
  const MirroredStrategy to_one(devices, std::make_shared<ReductionToOneDevice>());
  constexpr std::int64_t kBatch = 12;
  constexpr int kSteps = 10;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> xs(kSteps * kBatch * 5), ys(kSteps * kBatch * 2), w0(5 * 2);
  for (float& v : xs) v = normal(rng);
  for (float& v : ys) v = normal(rng);
  for (float& v : w0) v = normal(rng);
  auto train = [&](const MirroredStrategy& strategy) {
    Variable w, b;
    std::unique_ptr<eagle::optimizers::SGD> sgd;
    {
      auto scope = strategy.scope();
      w = Variable(eagle::constant(w0, {5, 2}), {"w"});
      b = Variable(eagle::zeros({2}), {"b"});
      sgd = std::make_unique<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.1, 0.9});
    }
    for (int s = 0; s < kSteps; ++s) {
      const Tensor x = eagle::constant(
          std::vector<float>(xs.begin() + s * kBatch * 5, xs.begin() + (s + 1) * kBatch * 5),
          {kBatch, 5});
      const Tensor y = eagle::constant(
          std::vector<float>(ys.begin() + s * kBatch * 2, ys.begin() + (s + 1) * kBatch * 2),
          {kBatch, 2});
      strategy.run(
          [&](const Tensor& xr, const Tensor& yr) {
            eagle::GradientTape tape;
            const Tensor err = eagle::matmul(xr, w) + b - yr;
            const Tensor loss =
                eagle::nn::compute_average_loss(eagle::reduce_sum(err * err, 1), kBatch);
            const auto grads = tape.gradient(loss, {w, b});
            sgd->apply_gradients({{grads[0], w}, {grads[1], b}});
          },
          strategy.split_batch(x), strategy.split_batch(y));
    }
    return std::vector<Variable>{w, b};
  };
  const auto got = train(with_nccl);
  const auto want = train(to_one);
  for (std::size_t v = 0; v < got.size(); ++v) {
    const auto components = got[v].components();
    for (std::size_t r = 0; r < components.size(); ++r) {
      CHECK(same_bytes(components[r].read_value(), got[v].components()[0].read_value()));
    }
    const auto g = got[v].read_value().to_vector<float>();
    const auto w = want[v].read_value().to_vector<float>();
    REQUIRE(g.size() == w.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
      // Two addends sum the same in any order: bit for bit up to two GPUs.
      if (devices.size() <= 2) {
        CHECK(g[i] == w[i]);
      } else {
        CHECK(std::fabs(g[i] - w[i]) <= 1e-5f * std::max(1.0f, std::fabs(w[i])));
      }
    }
  }
}

TEST_CASE("NCCL missing on a real GPU: the fallback warning at construction, and the reason") {
  ::setenv("EAGLE_NCCL_LIBRARY", "libnccl-eagle-absent.so.2", 1);
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  LevelLog log;
  const MirroredStrategy strategy({"GPU:0"});
  CHECK(log.take() == std::vector<std::string>{
                          "WARNING:eagle:Nccl kernel is not found, not using nccl allreduce.",
                          "INFO:eagle:Using MirroredStrategy with devices ('" + full(0) + "',)"});
  CHECK(strategy.cross_device_ops().name() == "ReductionToOneDevice");
  try {
    const MirroredStrategy explicit_nccl({"GPU:0"}, std::make_shared<NcclAllReduce>());
    FAIL("no exception");
  } catch (const eagle::InvalidArgumentError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("NcclAllReduce cannot run on ('" + full(0) +
                                 "',): NCCL could not be loaded (libnccl-eagle-absent.so.2: "));
  }
}

TEST_CASE("two logical GPUs of one card: fallingback, and an explicit NcclAllReduce is refused") {
  EAGLE_FRESH_RUNTIME(nullptr);
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_logical_device_configuration(gpus.at(0), {{256}, {256}});
  LevelLog log;
  const MirroredStrategy split({"GPU:0", "GPU:1"});
  CHECK(
      log.take() ==
      std::vector<std::string>{
          "WARNING:eagle:NCCL is not supported when using virtual GPUs, fallingback to "
          "reduction to one device",
          "INFO:eagle:Using MirroredStrategy with devices ('" + full(0) + "', '" + full(1) + "')"});
  CHECK_THROWS_MATCHES(MirroredStrategy({"GPU:0", "GPU:1"}, std::make_shared<NcclAllReduce>()),
                       eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce cannot run on ('" + full(0) + "', '" +
                                      full(1) + "'): '" + full(0) + "' and '" + full(1) +
                                      "' are logical GPUs of one physical GPU (CUDA device 0); "
                                      "NCCL needs a GPU of its own for each replica"));
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  const int parsed = session.applyCommandLine(argc, argv);
  if (parsed != 0) return parsed;
  const Catch::ConfigData& config = session.configData();
  if (config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters ||
      config.showHelp || config.libIdentify) {
    return session.run();  // listing (catch_discover_tests at build time) touches no device
  }
  if (const int skip = eagle_test::require_real_cuda_gpu("cuda_nccl_test")) return skip;
  return eagle_test::run_result(session.run());
}
