// NcclAllReduce where NCCL cannot run (simulated GPUs, CPUs): TensorFlow's num_packs error, the
// typed error at MirroredStrategy's construction, ReductionToOneDevice selected with TensorFlow's
// warning, reduce() to one device. The NCCL runs themselves are in cuda_nccl_test.cpp. Every
// TEST_CASE that configures devices runs in its own process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

using eagle_test::LevelLog;

namespace {

using eagle::Tensor;
using eagle::distribute::MirroredStrategy;
using eagle::distribute::NcclAllReduce;
using eagle::distribute::ReduceOp;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

}  // namespace

TEST_CASE("NcclAllReduce: a negative num_packs is TensorFlow's error, 0 and 1 are accepted") {
  CHECK_THROWS_MATCHES(
      NcclAllReduce(-1), eagle::InvalidArgumentError,
      Catch::Message("NCCL all-reduce requires num_packs >= 0, but -1 is specified"));
  CHECK(NcclAllReduce().num_packs() == 1);
  CHECK(NcclAllReduce(0).num_packs() == 0);
  CHECK(NcclAllReduce(4).name() == "NcclAllReduce");
}

TEST_CASE(
    "an explicit NcclAllReduce on simulated GPUs is refused at construction, logging nothing") {
  EAGLE_FRESH_RUNTIME("2");
  LevelLog log;
  CHECK_THROWS_MATCHES(MirroredStrategy({"GPU:0", "GPU:1"}, std::make_shared<NcclAllReduce>()),
                       eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce cannot run on ('" + kGpu0 + "', '" + kGpu1 +
                                      "'): '" + kGpu0 + "' is a simulated GPU, not a CUDA GPU"));
  CHECK(log.take().empty());
  // The same op passed to all_reduce directly: the same reason, before any work.
  NcclAllReduce nccl;
  const Tensor a = eagle::with_device("/GPU:0", [] { return eagle::constant({1.0f, 2.0f}); });
  const Tensor b = eagle::with_device("/GPU:1", [] { return eagle::constant({3.0f, 4.0f}); });
  CHECK_THROWS_MATCHES(nccl.all_reduce(ReduceOp::kSum, {a, b}, {"GPU:0", "GPU:1"}),
                       eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce cannot run on ('" + kGpu0 + "', '" + kGpu1 +
                                      "'): '" + kGpu0 + "' is a simulated GPU, not a CUDA GPU"));
}

TEST_CASE("an explicit NcclAllReduce on logical CPUs is refused: not a GPU") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("CPU").at(0),
                                                  {{}, {}});
  CHECK_THROWS_MATCHES(MirroredStrategy({"CPU:0", "CPU:1"}, std::make_shared<NcclAllReduce>(2)),
                       eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce cannot run on ('" + kCpu0 + "', '" + kCpu1 +
                                      "'): '" + kCpu0 + "' is not a GPU"));
}

TEST_CASE("selection on simulated GPUs and CPUs: ReductionToOneDevice with TensorFlow's warning") {
  EAGLE_FRESH_RUNTIME("2");
  LevelLog log;
  const MirroredStrategy gpus({"GPU:0", "GPU:1"});
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:Nccl kernel is not found, not using nccl allreduce.",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kGpu0 + "', '" + kGpu1 + "')"});
  CHECK(gpus.cross_device_ops().name() == "ReductionToOneDevice");
  const MirroredStrategy mixed({"GPU:0", "CPU:0"});
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:There are non-GPU devices in `tf.distribute.Strategy`, not using nccl "
            "allreduce.",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kGpu0 + "', '" + kCpu0 + "')"});
  CHECK(mixed.cross_device_ops().name() == "ReductionToOneDevice");
}

TEST_CASE("NcclAllReduce: reduce() to one device goes through ReductionToOneDevice") {
  EAGLE_FRESH_RUNTIME("2");
  NcclAllReduce nccl;
  const Tensor a = eagle::with_device("/GPU:0", [] { return eagle::constant({1.0f, 2.0f}); });
  const Tensor b = eagle::with_device("/GPU:1", [] { return eagle::constant({3.0f, 4.0f}); });
  const Tensor sum = nccl.reduce(ReduceOp::kSum, {a, b}, kCpu0);
  CHECK(sum.device() == kCpu0);
  CHECK(sum.to_vector<float>() == std::vector<float>{4, 6});
  const Tensor mean = nccl.reduce(ReduceOp::kMean, {a, b}, kGpu1);
  CHECK(mean.device() == kGpu1);
  CHECK(mean.to_vector<float>() == std::vector<float>{2, 3});
}

TEST_CASE("NcclAllReduce.all_reduce: mismatched arguments are errors before any device check") {
  EAGLE_FRESH_RUNTIME("2");
  NcclAllReduce nccl;
  const Tensor a = eagle::constant({1.0f, 2.0f});
  CHECK_THROWS_MATCHES(nccl.all_reduce(ReduceOp::kSum, {}, {"GPU:0"}), eagle::InvalidArgumentError,
                       Catch::Message("NcclAllReduce: no values to reduce"));
  CHECK_THROWS_MATCHES(
      nccl.all_reduce(ReduceOp::kSum, {a, a}, {"GPU:0"}), eagle::InvalidArgumentError,
      Catch::Message(
          "NcclAllReduce: 2 values for 1 destinations; it reduces one value per destination GPU"));
  CHECK_THROWS_MATCHES(
      nccl.all_reduce(ReduceOp::kSum, {a, eagle::cast(a, eagle::kFloat64)}, {"GPU:0", "GPU:1"}),
      eagle::InvalidArgumentError,
      Catch::Message("NcclAllReduce: every value needs one shape and dtype; value "
                     "0 is (2,) float32, value 1 is (2,) float64"));
}
