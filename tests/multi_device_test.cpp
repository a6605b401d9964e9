// Placement across devices on simulated GPUs (docs/guide.md, "How an op is placed"): default
// placement, scopes, soft placement, input copies and their mirrors, device policies, towers. Each
// TEST_CASE is a fresh process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::string full(const char* device) {
  return std::string("/job:localhost/replica:0/task:0/device:") + device;
}

// The explicit policy's refusal (docs/guide.md, "Configuring devices") of input #0, on CPU:0, for
// an op on GPU:0.
std::string conflicting_devices(const char* op) {
  return std::string("Tensors on conflicting devices: cannot compute ") + op +
         " as input #0 was expected to be on " + full("GPU:0") + " but is actually on " +
         full("CPU:0") + " (operation running on " + full("GPU:0") + ")";
}
std::string executing(const char* op, const char* device) {
  return std::string("Executing op ") + op + " in device " + full(device);
}

}  // namespace

TEST_CASE("constants live on CPU:0, ops with a GPU kernel run on GPU:0, results are right") {
  EAGLE_FRESH_RUNTIME("2");
  eagle_test::CapturedLog log;
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  CHECK(a.device() == full("CPU:0"));
  const auto c = eagle::matmul(a, b);
  CHECK(c.device() == full("GPU:0"));
  CHECK(c.to_vector<float>() == std::vector<float>{22, 28, 49, 64});
  const auto d = eagle::relu(c - 30.0f);
  CHECK(d.device() == full("GPU:0"));
  CHECK(d.to_vector<float>() == std::vector<float>{0, 0, 19, 34});
  CHECK(log.lines() == std::vector<std::string>{executing("MatMul", "GPU:0"),
                                                executing("Sub", "GPU:0"),
                                                executing("Relu", "GPU:0")});
}

TEST_CASE("an op without a GPU kernel for its dtype runs on the CPU (integer matmul)") {
  EAGLE_FRESH_RUNTIME("1");
  eagle_test::CapturedLog log;
  const auto a = eagle::constant(std::vector<int>{1, 2, 3, 4}, eagle::Shape{2, 2});
  const auto c = eagle::matmul(a, a);
  CHECK(c.device() == full("CPU:0"));
  CHECK(c.to_vector<int>() == std::vector<int>{7, 10, 15, 22});
  const auto sum = eagle::add(a, a);  // int32 AddV2 has a GPU kernel
  CHECK(sum.device() == full("GPU:0"));
  {
    auto scope = eagle::device("/GPU:0");
    const auto on_gpu = eagle::constant(std::vector<int>{1, 0, 0, 1}, eagle::Shape{2, 2});
    CHECK(eagle::matmul(on_gpu, on_gpu).device() == full("CPU:0"));  // soft placement
    eagle::config::set_soft_device_placement(false);
    CHECK_THROWS_MATCHES(
        eagle::matmul(on_gpu, on_gpu), eagle::InvalidArgumentError,
        Catch::Message("Could not satisfy device specification '" + full("GPU:0") +
                       "'. enable_soft_placement=0. Supported device types [CPU]. All available "
                       "devices [" +
                       full("GPU:0") + ", " + full("CPU:0") + "]. [Op:MatMul]"));
    eagle::config::set_soft_device_placement(true);
  }
  CHECK(log.lines() == std::vector<std::string>{executing("MatMul", "CPU:0"),
                                                executing("AddV2", "GPU:0"),
                                                executing("MatMul", "CPU:0")});
}

TEST_CASE("a scope puts constants and ops on its device, soft placement falls back to GPU:0") {
  EAGLE_FRESH_RUNTIME("2");
  eagle_test::CapturedLog log;
  {
    auto scope = eagle::device("/GPU:1");
    const auto a = eagle::constant({1.0f, 2.0f});
    CHECK(a.device() == full("GPU:1"));
    CHECK(eagle::exp(a).device() == full("GPU:1"));
  }
  {
    auto scope = eagle::device("/GPU:7");
    CHECK(eagle::exp(eagle::constant(0.0f)).device() == full("GPU:0"));
    eagle::config::set_soft_device_placement(false);
    CHECK_THROWS_MATCHES(
        eagle::exp(eagle::constant(0.0f)), eagle::InvalidArgumentError,
        Catch::Message("Could not satisfy device specification '" + full("GPU:7") +
                       "'. enable_soft_placement=0. Supported device types [GPU, CPU]. All "
                       "available devices [" +
                       full("GPU:0") + ", " + full("GPU:1") + ", " + full("CPU:0") +
                       "]. [Op:Exp]"));
    eagle::config::set_soft_device_placement(true);
  }
  CHECK(log.lines() ==
        std::vector<std::string>{executing("Exp", "GPU:1"), executing("Exp", "GPU:0")});
}

TEST_CASE("a CPU constant used on a GPU is copied once and the copy is reused (mirror)") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::set_memory_growth(eagle::config::list_physical_devices("GPU").at(0), true);
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  const auto c1 = eagle::matmul(a, b);
  // The output and the two mirrors: 256 bytes each.
  CHECK(eagle::config::get_memory_info("GPU:0").current == 3 * 256);
  const auto c2 = eagle::matmul(a, b);
  CHECK(eagle::config::get_memory_info("GPU:0").current == 4 * 256);
  CHECK(c2.to_vector<float>() == c1.to_vector<float>());
}

TEST_CASE("device policy warn: one warning per copy, none for a mirror") {
  EAGLE_FRESH_RUNTIME("1");
  eagle_test::CapturedLog log(false);
  eagle::config::set_device_policy(eagle::DevicePolicy::kWarn);
  const auto a = eagle::constant({1.0f, 2.0f});
  const auto b = eagle::constant({3.0f, 4.0f});
  const auto c = a + b;
  const auto d = a * b;
  CHECK(c.to_vector<float>() == std::vector<float>{4, 6});
  CHECK(d.to_vector<float>() == std::vector<float>{3, 8});
  CHECK(log.lines() ==
        std::vector<std::string>{
            "Copying input #0 of AddV2 from " + full("CPU:0") + " to " + full("GPU:0"),
            "Copying input #1 of AddV2 from " + full("CPU:0") + " to " + full("GPU:0")});
  eagle::config::set_device_policy(eagle::DevicePolicy::kSilent);
}

TEST_CASE("device policy explicit: refuses implicit copies, identity is the explicit copy") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit);
  const auto a = eagle::constant({1.0f, 2.0f});
  CHECK_THROWS_MATCHES(eagle::exp(a), eagle::InvalidArgumentError,
                       Catch::Message(conflicting_devices("Exp")));
  const auto on_gpu = eagle::with_device("/GPU:0", [&] { return eagle::identity(a); });
  CHECK(on_gpu.device() == full("GPU:0"));
  const auto e = eagle::exp(on_gpu);
  CHECK(e.device() == full("GPU:0"));
  CHECK(e.to_vector<float>()[0] == Approx(2.718281828f));
  // The failed call left nothing behind on the GPU: two 256-byte chunks (identity, exp).
  CHECK(eagle::config::get_memory_info("GPU:0").current == 2 * 256);
  // identity's copy stays cached on `a` (a mirror), and still `a` may not be used on the GPU.
  CHECK_THROWS_MATCHES(eagle::exp(a), eagle::InvalidArgumentError,
                       Catch::Message(conflicting_devices("Exp")));
  eagle::config::set_device_policy(eagle::DevicePolicy::kSilent);
}

TEST_CASE(
    "device policy explicit: a mirror from an earlier silent copy does not let an op through") {
  EAGLE_FRESH_RUNTIME("1");
  const auto a = eagle::constant({1.0f, 2.0f});
  const auto b = eagle::constant({3.0f, 4.0f});
  CHECK((a + b).device() == full("GPU:0"));  // silent: a and b are copied once and cached
  eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit);
  CHECK_THROWS_MATCHES(a * b, eagle::InvalidArgumentError,
                       Catch::Message(conflicting_devices("Mul")));
  // Under CPU:0 no input moves, so the same tensors are accepted.
  const auto c = eagle::with_device("/CPU:0", [&] { return a * b; });
  CHECK(c.to_vector<float>() == std::vector<float>{3, 8});
  eagle::config::set_device_policy(eagle::DevicePolicy::kSilent);
  CHECK((a * b).to_vector<float>() == std::vector<float>{3, 8});
}

// Seed 002 §六's towers (samples/multi_gpu_towers.cpp; the seeds: samples/README.md).
TEST_CASE("towers on 4 GPUs summed on the CPU (seed 002, section 6)") {
  EAGLE_FRESH_RUNTIME("4");
  eagle_test::CapturedLog log;
  std::vector<eagle::Tensor> c;
  for (const char* d : {"/device:GPU:2", "/device:GPU:3"}) {
    auto scope = eagle::device(d);
    const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
    const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
    c.push_back(eagle::matmul(a, b));
  }
  auto scope = eagle::device("/cpu:0");
  const auto sum = eagle::add_n(c);
  CHECK(sum.device() == full("CPU:0"));
  CHECK(sum.to_vector<float>() == std::vector<float>{44, 56, 98, 128});
  CHECK(eagle::to_string(sum) ==
        "eagle.Tensor(\n[[ 44.  56.]\n [ 98. 128.]], shape=(2, 2), dtype=float32, device=" +
            full("CPU:0") + ")");
  CHECK(log.lines() == std::vector<std::string>{executing("MatMul", "GPU:2"),
                                                executing("MatMul", "GPU:3"),
                                                executing("AddN", "CPU:0")});
}

TEST_CASE("every op gives the same values on a simulated GPU as on the CPU") {
  EAGLE_FRESH_RUNTIME("1");
  const auto x = eagle::random_uniform({3, 4}, -2, 2, eagle::DType::kFloat32, 7);
  const auto y = eagle::random_uniform({4}, 0.5, 2, eagle::DType::kFloat32, 8);
  const auto run_all = [&] {
    return std::vector<eagle::Tensor>{x + y,
                                      x - y,
                                      x * y,
                                      x / y,
                                      eagle::maximum(x, y),
                                      eagle::pow(y, x),
                                      eagle::cast(eagle::less(x, y), eagle::DType::kFloat32),
                                      eagle::exp(x),
                                      eagle::abs(x),
                                      eagle::sqrt(y),
                                      eagle::tanh(x),
                                      eagle::sigmoid(x),
                                      eagle::reduce_sum(x, {1}),
                                      eagle::reduce_max(x),
                                      eagle::cast(eagle::argmax(x, 1), eagle::DType::kFloat32),
                                      eagle::matmul(x, eagle::transpose(x)),
                                      eagle::softmax(x),
                                      eagle::add_n({x, x, x}),
                                      eagle::reshape(x, {2, 6}),
                                      eagle::concat({x, x}, 0),
                                      eagle::slice(x, {1, 1}, {2, 2})};
  };
  const auto on_cpu = eagle::with_device("/CPU:0", run_all);
  const auto on_gpu = eagle::with_device("/GPU:0", run_all);
  REQUIRE(on_cpu.size() == on_gpu.size());
  for (std::size_t i = 0; i < on_cpu.size(); ++i) {
    INFO("op #" << i);
    CHECK(on_cpu[i].device() == full("CPU:0"));
    CHECK(on_gpu[i].device() == full("GPU:0"));
    CHECK(on_gpu[i].shape() == on_cpu[i].shape());
    CHECK(on_gpu[i].to_vector<float>() == on_cpu[i].to_vector<float>());
  }
  CHECK(eagle::config::get_memory_info("GPU:0").current > 0);
  CHECK(eagle::config::get_memory_info("GPU:0").limit == 16 * (kMiB << 10) - 1800 * kMiB);
}
