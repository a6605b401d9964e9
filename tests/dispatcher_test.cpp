// The dispatcher in the real (CPU-only) runtime: log lines through the sink, soft placement,
// flags, constants, thread safety of logging.
#include <catch2/catch.hpp>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"

namespace {

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

using eagle_test::CapturedLog;

}  // namespace

// As seeds 002 and 003 show it (samples/log_device_placement.cpp; the seeds: samples/README.md).
TEST_CASE("matmul logs its placement line, constants log nothing (seed 002/003)") {
  CapturedLog log;
  const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  CHECK(log.lines().empty());
  CHECK(a.device() == kCpu0);
  const auto c = eagle::matmul(a, b);
  CHECK(log.lines() == std::vector<std::string>{"Executing op MatMul in device " + kCpu0});
  CHECK(c.device() == kCpu0);
  CHECK(c.to_vector<float>() == std::vector<float>{22, 28, 49, 64});
}

TEST_CASE("every op logs its TensorFlow name") {
  CapturedLog log;
  const auto x = eagle::constant({1.0, -2.0});
  const auto i = eagle::constant({3, 4});
  (void)(x + x);
  (void)(x - x);
  (void)(x * x);
  (void)eagle::relu(x);
  (void)eagle::reduce_sum(x);
  (void)eagle::reshape(x, {2, 1});
  (void)eagle::add_n({x, x});
  (void)(i / i);  // true division of integers: two casts, then RealDiv
  (void)eagle::zeros({2});
  const std::vector<std::string> expected_ops = {
      "AddV2", "Sub", "Mul", "Relu", "Sum", "Reshape", "AddN", "Cast", "Cast", "RealDiv", "Fill"};
  std::vector<std::string> expected;
  for (const auto& op : expected_ops)
    expected.push_back("Executing op " + op + " in device " + kCpu0);
  CHECK(log.lines() == expected);
}

TEST_CASE("logging off prints nothing, the flag can change at any time") {
  CapturedLog log;
  eagle::debugging::set_log_device_placement(false);
  const auto x = eagle::constant({1.0});
  (void)(x + x);
  CHECK(log.lines().empty());
  eagle::debugging::set_log_device_placement(true);
  CHECK(eagle::debugging::get_log_device_placement());
  (void)(x + x);
  CHECK(log.lines().size() == 1);
}

TEST_CASE("a GPU request on a CPU-only machine: error without soft placement, CPU with it") {
  CapturedLog log;
  const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  {
    auto scope = eagle::device("/GPU:0");
    eagle::config::set_soft_device_placement(false);
    CHECK_FALSE(eagle::config::get_soft_device_placement());
    CHECK_THROWS_MATCHES(
        eagle::matmul(a, b), eagle::InvalidArgumentError,
        Catch::Message("Could not satisfy device specification "
                       "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. "
                       "Supported device types [CPU]. All available devices "
                       "[/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
    CHECK(log.lines().empty());  // nothing ran, nothing logged
    // Constants are data: they are placed softly even now (Note [Constant placement]).
    CHECK(eagle::constant({1.0}).device() == kCpu0);

    eagle::config::set_soft_device_placement(true);
    const auto c = eagle::matmul(a, b);
    CHECK(c.device() == kCpu0);
    CHECK(c.to_vector<float>() == std::vector<float>{22, 28, 49, 64});
  }
  CHECK(log.lines() == std::vector<std::string>{"Executing op MatMul in device " + kCpu0});
}

TEST_CASE("a dtype the op does not allow is TensorFlow's InvalidArgumentError, logging nothing") {
  CapturedLog log;
  const auto i = eagle::constant({1, 2});
  CHECK_THROWS_MATCHES(eagle::exp(i), eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'T' of int32 is not in the list of allowed "
                                      "values: bfloat16, half, float, double [Op:Exp]"));
  CHECK_THROWS_MATCHES(eagle::constant({true}) + eagle::constant({false}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'T' of bool is not in the list of allowed "
                                      "values: bfloat16, half, float, double, int32, int64 "
                                      "[Op:AddV2]"));
  CHECK(log.lines().empty());
}

TEST_CASE("the default sink can be restored and logging works from many threads") {
  CapturedLog log;
  constexpr int kThreads = 8, kOps = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      const auto x = eagle::constant({1.0, 2.0});
      for (int i = 0; i < kOps; ++i) (void)eagle::square(x);
    });
  }
  for (auto& th : threads) th.join();
  const auto lines = log.lines();
  REQUIRE(lines.size() == kThreads * kOps);
  for (const auto& line : lines) CHECK(line == "Executing op Square in device " + kCpu0);
}

TEST_CASE("device policy setting round-trips") {
  eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit);
  CHECK(eagle::config::get_device_policy() == eagle::DevicePolicy::kExplicit);
  // Every tensor is on CPU:0 here, so even the explicit policy has nothing to refuse.
  const auto x = eagle::constant({1.0});
  CHECK((x + x).item<float>() == 2.0f);
  eagle::config::set_device_policy(eagle::DevicePolicy::kSilent);
}

TEST_CASE("list_logical_devices and is_built_with_cuda answer on a CPU-only machine") {
  const auto devices = eagle::config::list_logical_devices();
  REQUIRE(devices.size() == 1);
  CHECK(devices[0].name == "/device:CPU:0");
  CHECK(devices[0].device_type == "CPU");
  CHECK(eagle::config::list_logical_devices("GPU").empty());
#ifdef EAGLE_EXPECT_CUDA
  CHECK(eagle::is_built_with_cuda());
#endif
}
