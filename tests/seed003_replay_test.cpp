// Replays the GPU sessions of seed 003 ("使用GPU", the TensorFlow 2 notes of samples/README.md)
// line by line on simulated GPUs: each tensor's device, each placement line, the soft-placement
// error text, the visible-device and logical-device listings. Each TEST_CASE is one session of the
// seed, in its own process, on as many GPUs as the seed's machine had there (1 or 2).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

namespace {

using eagle::config::LogicalDeviceConfiguration;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

template <class Device>
std::vector<std::string> names(const std::vector<Device>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.name + " " + d.device_type);
  return out;
}

eagle::Tensor seed_a() { return eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}); }
eagle::Tensor seed_b() { return eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}); }

}  // namespace

TEST_CASE("seed 003 准备: tf.config.list_physical_devices()") {
  EAGLE_FRESH_RUNTIME("1");
  CHECK(names(eagle::config::list_physical_devices()) ==
        std::vector<std::string>{"/physical_device:CPU:0 CPU", "/physical_device:GPU:0 GPU"});
}

TEST_CASE("seed 003 记录使用设备: constants on CPU:0, MatMul on GPU:0") {
  EAGLE_FRESH_RUNTIME("1");
  eagle_test::CapturedLog log;  // tf.debugging.set_log_device_placement(True)
  const auto a = seed_a();
  CHECK(a.device() == kCpu0);
  const auto b = seed_b();
  CHECK(b.device() == kCpu0);
  CHECK(log.take().empty());
  const auto c = eagle::matmul(a, b);
  CHECK(log.take() == std::vector<std::string>{"Executing op MatMul in device " + kGpu0});
  CHECK(c.device() == kGpu0);
  CHECK(c.to_vector<float>() == std::vector<float>{22, 28, 49, 64});
}

TEST_CASE("seed 003 手动指定设备: with tf.device('/CPU:0') and with tf.device('/GPU:1')") {
  EAGLE_FRESH_RUNTIME("2");
  eagle_test::CapturedLog log;
  {
    auto scope = eagle::device("/CPU:0");
    const auto a = seed_a();
    const auto b = seed_b();
    const auto c = eagle::matmul(a, b);
    CHECK(c.device() == kCpu0);
  }
  CHECK(log.take() == std::vector<std::string>{"Executing op MatMul in device " + kCpu0});
  {
    auto scope = eagle::device("/GPU:1");
    const auto a = seed_a();
    const auto b = seed_b();
    CHECK(a.device() == kGpu1);
    const auto c = eagle::matmul(a, b);
    CHECK(c.device() == kGpu1);
  }
  CHECK(log.take() == std::vector<std::string>{"Executing op MatMul in device " + kGpu1});
}

TEST_CASE("seed 003 软设备放置: /GPU:1 on a one-GPU machine, soft placement off then on") {
  EAGLE_FRESH_RUNTIME("1");
  eagle_test::CapturedLog log;
  eagle::config::set_soft_device_placement(false);
  const auto run = [] {
    auto scope = eagle::device("/GPU:1");
    const auto a = seed_a();
    const auto b = seed_b();
    return eagle::matmul(a, b);
  };
  // The seed's error names MatMul because TensorFlow places its constants softly. eagle does the
  // same (Note [Constant placement]), so the first op to fail is the MatMul.
  CHECK_THROWS_MATCHES(
      run(), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:1'. enable_soft_placement=0. "
                     "Supported device types [GPU, CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:GPU:0, "
                     "/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
  CHECK(log.take().empty());
  eagle::config::set_soft_device_placement(true);
  const auto c = run();
  CHECK(c.device() == kGpu0);
  CHECK(log.take() == std::vector<std::string>{"Executing op MatMul in device " + kGpu0});
}

TEST_CASE("seed 003 限制GPU使用: set_visible_devices([], 'GPU') leaves only the CPU") {
  EAGLE_FRESH_RUNTIME("1");
  CHECK(names(eagle::config::list_physical_devices()) ==
        std::vector<std::string>{"/physical_device:CPU:0 CPU", "/physical_device:GPU:0 GPU"});
  eagle::config::set_visible_devices(std::vector<eagle::config::PhysicalDevice>{}, "GPU");
  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0 CPU"});
}

TEST_CASE("seed 003 限制GPU使用: only GPU:0 of two") {
  EAGLE_FRESH_RUNTIME("2");
  CHECK(names(eagle::config::list_physical_devices()) ==
        std::vector<std::string>{"/physical_device:CPU:0 CPU", "/physical_device:GPU:0 GPU",
                                 "/physical_device:GPU:1 GPU"});
  eagle::config::set_visible_devices(eagle::config::list_physical_devices("GPU")[0], "GPU");
  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0 CPU", "/device:GPU:0 GPU"});
}

TEST_CASE("seed 003 显存增长: set_memory_growth on every GPU") {
  EAGLE_FRESH_RUNTIME("1");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  for (const auto& gpu : gpus) eagle::config::set_memory_growth(gpu, true);
  CHECK(names(eagle::config::list_logical_devices("GPU")) ==
        std::vector<std::string>{"/device:GPU:0 GPU"});
}

TEST_CASE("seed 003 显存限制: one logical GPU with memory_limit=1024") {
  EAGLE_FRESH_RUNTIME("1");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_logical_device_configuration(gpus[0], {LogicalDeviceConfiguration{1024}});
  CHECK(names(eagle::config::list_logical_devices("GPU")) ==
        std::vector<std::string>{"/device:GPU:0 GPU"});
  CHECK(eagle::config::get_memory_info("GPU:0").limit == std::size_t{1024} << 20);
}

TEST_CASE("seed 003 使用单个 GPU 模拟多个 GPU: two 1024 MiB logical GPUs") {
  EAGLE_FRESH_RUNTIME("1");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_logical_device_configuration(
      gpus[0], {LogicalDeviceConfiguration{1024}, LogicalDeviceConfiguration{1024}});
  CHECK(names(eagle::config::list_logical_devices("GPU")) ==
        std::vector<std::string>{"/device:GPU:0 GPU", "/device:GPU:1 GPU"});
  for (const char* gpu : {"GPU:0", "GPU:1"}) {
    CHECK(eagle::config::get_memory_info(gpu).limit == std::size_t{1024} << 20);
  }
}
