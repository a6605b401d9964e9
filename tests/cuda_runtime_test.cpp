// The runtime scenarios of device_config_test.cpp and multi_device_test.cpp, on a real CUDA GPU:
// placement lines, device details, memory growth, the default limit, virtual GPUs and their
// limits, recoverable out-of-memory errors, sync_devices, TF32. Each TEST_CASE configures devices
// in a fresh process (tests/fresh_runtime.hpp: ctest runs every case as its own process). Without
// a CUDA GPU the program exits 77, which ctest reports as "Not Run".
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"
#include "real_gpu.hpp"
#include "runtime/device_config.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace opdefs = eagle::opdefs;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

std::string full(const std::string& device) {
  return "/job:localhost/replica:0/task:0/device:" + device;
}
std::string executing(const char* op, const char* device) {
  return std::string("Executing op ") + op + " in device " + full(device);
}

std::vector<eagle::config::PhysicalDevice> gpus() {
  return eagle::config::list_physical_devices("GPU");
}

eagle::config::DeviceDetails gpu0_details() {
  return eagle::config::get_device_details(gpus().at(0));
}

bool initialized() { return eagle::runtime::DeviceConfig::get().initialized(); }

void grow_all_gpus() {
  for (const auto& gpu : gpus()) eagle::config::set_memory_growth(gpu, true);
}

// max |x - ref| / scale over all elements (float64 tensors of one shape, read on the host).
double worst_ratio(const eagle::Tensor& x, const eagle::Tensor& ref, const eagle::Tensor& scale) {
  const auto xv = eagle::cast(x, eagle::DType::kFloat64).to_vector<double>();
  const auto rv = eagle::cast(ref, eagle::DType::kFloat64).to_vector<double>();
  const auto sv = scale.to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    worst = std::max(worst, std::fabs(xv[i] - rv[i]) / std::max(sv[i], 1e-30));
  }
  return worst;
}

}  // namespace

TEST_CASE("CUDA: device details name a real GPU with a compute capability") {
  EAGLE_FRESH_RUNTIME(nullptr);
  CHECK(eagle::is_built_with_cuda());
  const auto physical = gpus();
  REQUIRE_FALSE(physical.empty());
  for (std::size_t i = 0; i < physical.size(); ++i) {
    INFO(physical[i].name);
    CHECK(physical[i].name == "/physical_device:GPU:" + std::to_string(i));
    CHECK(physical[i].device_type == "GPU");
    const auto details = eagle::config::get_device_details(physical[i]);
    CHECK_FALSE(details.device_name.empty());
    CHECK(details.device_name != "Simulated GPU");
    REQUIRE(details.compute_capability.has_value());
    CHECK(details.compute_capability->first >= 3);
    CHECK(details.total_memory > kGiB);
    WARN("GPU " << i << ": " << details.device_name << ", compute capability "
                << details.compute_capability->first << "." << details.compute_capability->second
                << ", " << (details.total_memory >> 20) << " MiB");
  }
  const std::string unknown = "/physical_device:GPU:" + std::to_string(physical.size());
  CHECK_THROWS_MATCHES(eagle::config::get_device_details({unknown, "GPU"}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Unrecognized device: " + unknown));
  CHECK_FALSE(initialized());
  const auto logical = eagle::config::list_logical_devices("GPU");
  REQUIRE(logical.size() == physical.size());
  for (std::size_t i = 0; i < logical.size(); ++i) {
    CHECK(logical[i].name == "/device:GPU:" + std::to_string(i));
  }
  CHECK(initialized());
}

TEST_CASE("CUDA: placement log lines name the real GPU") {
  EAGLE_FRESH_RUNTIME(nullptr);
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
  const auto i = eagle::constant(std::vector<int>{1, 2, 3, 4}, eagle::Shape{2, 2});
  const auto im = eagle::matmul(i, i);  // no integer GEMM on GPUs: the CPU
  CHECK(im.device() == full("CPU:0"));
  CHECK(im.to_vector<int>() == std::vector<int>{7, 10, 15, 22});
  const auto is = eagle::add(i, i);
  CHECK(is.device() == full("GPU:0"));
  CHECK(is.to_vector<int>() == std::vector<int>{2, 4, 6, 8});
  CHECK(log.take() ==
        std::vector<std::string>{executing("MatMul", "GPU:0"), executing("Sub", "GPU:0"),
                                 executing("Relu", "GPU:0"), executing("MatMul", "CPU:0"),
                                 executing("AddV2", "GPU:0")});
  // Hard placement: the error lists the real devices, GPUs first.
  std::string all;
  for (const auto& dev : eagle::config::list_logical_devices("GPU")) {
    all += full(dev.name.substr(std::string("/device:").size())) + ", ";
  }
  all += full("CPU:0");
  auto scope = eagle::device("/GPU:0");
  eagle::config::set_soft_device_placement(false);
  CHECK_THROWS_MATCHES(eagle::matmul(i, i), eagle::InvalidArgumentError,
                       Catch::Message("Could not satisfy device specification '" + full("GPU:0") +
                                      "'. enable_soft_placement=0. Supported device types [CPU]. "
                                      "All available devices [" +
                                      all + "]. [Op:MatMul]"));
  const auto e = eagle::exp(eagle::constant(0.0f));
  CHECK(e.device() == full("GPU:0"));
  CHECK(e.item<float>() == 1.0f);
  CHECK(log.lines() == std::vector<std::string>{executing("Exp", "GPU:0")});
}

TEST_CASE("CUDA: memory growth: reserved starts at 2 MiB and grows with the tensors") {
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  const auto details = gpu0_details();
  const auto before = eagle::config::get_memory_info("GPU:0");
  CHECK(before.current == 0);
  CHECK(before.reserved == 0);
  CHECK(before.limit > 0);
  CHECK(before.limit <= details.total_memory);
  auto scope = eagle::device("/GPU:0");
  const auto small = eagle::zeros({256});  // 1 KiB
  auto info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 1024);
  CHECK(info.reserved == 2 * kMiB);
  const auto bigger = eagle::zeros({1 << 20});  // 4 MiB: a region of its own, doubling to 4 MiB
  info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 1024 + 4 * kMiB);
  CHECK(info.reserved == 6 * kMiB);
  const auto big = eagle::fill({64 << 20}, 1.0);  // 256 MiB
  info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 1024 + 260 * kMiB);
  CHECK(info.reserved >= 262 * kMiB);
  CHECK(info.reserved <= 6 * kMiB + 512 * kMiB);
  CHECK(info.peak == info.current);
  CHECK(eagle::reduce_max(big).item<float>() == 1.0f);
  CHECK(eagle::reduce_min(big).item<float>() == 1.0f);
  CHECK(eagle::reduce_max(bigger).item<float>() == 0.0f);
  if (gpus().size() > 1) CHECK(eagle::config::get_memory_info("GPU:1").reserved == 0);
}

TEST_CASE("CUDA: without memory growth the first allocation takes the whole limit") {
  EAGLE_FRESH_RUNTIME(nullptr);
  const auto details = gpu0_details();
  auto scope = eagle::device("/GPU:0");
  const auto x = eagle::constant({1.0f, 2.0f, 3.0f});
  CHECK(x.device() == full("GPU:0"));
  const auto info = eagle::config::get_memory_info("/device:GPU:0");
  CHECK(info.current == 256);
  CHECK(info.peak == 256);
  // The limit is the free memory at initialization less TensorFlow's reserve (at least 225 MiB).
  CHECK(info.limit + 225 * kMiB <= details.total_memory);
  CHECK(info.reserved == info.limit);
  CHECK(x.to_vector<float>() == std::vector<float>{1, 2, 3});
  WARN("default limit " << (info.limit >> 20) << " MiB of " << (details.total_memory >> 20)
                        << " MiB");
}

TEST_CASE("CUDA: a 1024 MiB logical GPU: a 2 GiB tensor is out of memory, 800 MiB still fits") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(gpus().at(0), {{1024}});
  auto scope = eagle::device("/GPU:0");
  const auto kept = eagle::fill({256, 1024}, 2.0);  // 1 MiB, stays alive
  CHECK_THROWS_MATCHES(
      eagle::zeros({512, 1024, 1024}), eagle::ResourceExhaustedError,
      Catch::Message("OOM when allocating tensor with shape[512,1024,1024] and type float on "
                     "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"));
  CHECK_THROWS_AS(eagle::zeros({300, 1024, 1024}), eagle::ResourceExhaustedError);  // 1200 MiB
  const auto fits = eagle::zeros({200, 1024, 1024});  // 800 MiB beside `kept`
  CHECK(fits.device() == full("GPU:0"));
  CHECK(eagle::reduce_max(fits).item<float>() == 0.0f);
  const auto total = eagle::reduce_sum(kept);
  CHECK(total.item<float>() == 2.0f * 256 * 1024);
  const auto info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 801 * kMiB + 256);
  CHECK(info.limit == 1024 * kMiB);
  CHECK(info.reserved == 1024 * kMiB);
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("CUDA: one GPU split into two logical GPUs of 1024 MiB, each with its own allocator") {
  EAGLE_FRESH_RUNTIME(nullptr);
  const auto physical = gpus();
  const std::vector<eagle::config::LogicalDeviceConfiguration> two{{1024}, {1024}};
  eagle::config::set_logical_device_configuration(physical.at(0), two);
  CHECK(eagle::config::get_logical_device_configuration(physical[0]) == two);
  const auto logical = eagle::config::list_logical_devices("GPU");
  REQUIRE(logical.size() == physical.size() + 1);
  CHECK(logical[0].name == "/device:GPU:0");
  CHECK(logical[1].name == "/device:GPU:1");
  for (const char* name : {"GPU:0", "GPU:1"}) {
    const auto info = eagle::config::get_memory_info(name);
    CHECK(info.limit == 1024 * kMiB);
    CHECK(info.reserved == 0);
  }
  const auto a = eagle::with_device("/GPU:1", [] { return eagle::ones({2, 2}) * 3.0f; });
  CHECK(a.device() == full("GPU:1"));
  CHECK(a.to_vector<float>() == std::vector<float>{3, 3, 3, 3});
  CHECK(eagle::config::get_memory_info("GPU:1").reserved == 1024 * kMiB);
  CHECK(eagle::config::get_memory_info("GPU:0").reserved == 0);
  CHECK_THROWS_MATCHES(
      eagle::with_device("/GPU:1",
                         [] {
                           return eagle::zeros({512, 1024, 1024});
                         }),
      eagle::ResourceExhaustedError,
      Catch::Message("OOM when allocating tensor with shape[512,1024,1024] and type float on "
                     "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc"));
  // GPU:0 is unaffected by GPU:1's failure; tensors move between the two.
  const auto b = eagle::with_device("/GPU:0", [&] { return eagle::identity(a) + 1.0f; });
  CHECK(b.device() == full("GPU:0"));
  CHECK(b.to_vector<float>() == std::vector<float>{4, 4, 4, 4});
  const auto fits = eagle::with_device("/GPU:0", [] { return eagle::zeros({200, 1024, 1024}); });
  CHECK(eagle::with_device("/GPU:0", [&] { return eagle::reduce_max(fits); }).item<float>() == 0);
  CHECK(a.to_vector<float>() == std::vector<float>{3, 3, 3, 3});
}

TEST_CASE("CUDA: out of memory on the whole GPU is an error the program continues after") {
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  auto scope = eagle::device("/GPU:0");
  const auto kept = eagle::fill({1000}, 5.0);
  const auto before = eagle::config::get_memory_info("GPU:0");
  // More float32 elements than the limit has bytes for.
  const auto n = static_cast<std::int64_t>(before.limit / 4 + (std::size_t{1} << 28));
  CHECK_THROWS_MATCHES(
      eagle::zeros({n}), eagle::ResourceExhaustedError,
      Catch::Message("OOM when allocating tensor with shape[" + std::to_string(n) +
                     "] and type float on " + full("GPU:0") + " by allocator GPU_0_bfc"));
  const auto after = eagle::config::get_memory_info("GPU:0");
  CHECK(after.current == before.current);
  // The device works on: a kernel, an earlier tensor, a large allocation.
  const auto e = eagle::exp(eagle::fill({1000}, 0.0));
  CHECK(eagle::reduce_min(e).item<float>() == 1.0f);
  CHECK(eagle::reduce_max(kept).item<float>() == 5.0f);
  {
    const auto bytes = std::min<std::size_t>(before.limit / 2, 4 * kGiB);
    const auto large = eagle::fill({static_cast<std::int64_t>(bytes / 4)}, 7.0);
    CHECK(eagle::reduce_max(large).item<float>() == 7.0f);
  }
  CHECK_NOTHROW(eagle::sync_devices());
  CHECK(eagle::config::release_unused_memory("GPU:0") > 0);
  // `kept` and `e` (1000 floats: 4 KiB each) are all that is left.
  CHECK(eagle::config::get_memory_info("GPU:0").current == before.current + 4096);
}

TEST_CASE("CUDA: sync_devices waits for every queued op") {
  EAGLE_FRESH_RUNTIME(nullptr);
  CHECK_NOTHROW(eagle::sync_devices());  // nothing queued yet (and before initialization)
  const auto big = eagle::random_uniform({2048, 2048}, -1, 1, eagle::DType::kFloat32, 3);
  auto scope = eagle::device("/GPU:0");
  auto m = eagle::identity(big);
  for (int i = 0; i < 20; ++i) m = eagle::tanh(eagle::matmul(m, big) * (1.0f / 64));
  CHECK_NOTHROW(eagle::sync_devices());
  CHECK(m.device() == full("GPU:0"));
  const auto worst = eagle::reduce_max(eagle::abs(m)).item<float>();
  CHECK(std::isfinite(worst));
  CHECK(worst <= 1.0f);
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("CUDA: enable_tensor_float_32_execution switches float32 matmul to TF32 and back") {
  EAGLE_FRESH_RUNTIME(nullptr);
  CHECK(eagle::config::tensor_float_32_execution_enabled());  // TensorFlow's default
  const auto cc = gpu0_details().compute_capability;
  const eagle::Shape shape{1024, 1024};
  const auto a = eagle::random_uniform(shape, -1, 1, eagle::DType::kFloat32, 11);
  const auto b = eagle::random_uniform(shape, -1, 1, eagle::DType::kFloat32, 12);
  const auto [reference, magnitudes] = eagle::with_device("/CPU:0", [&] {
    const auto a64 = eagle::abs(eagle::cast(a, eagle::DType::kFloat64));
    const auto b64 = eagle::abs(eagle::cast(b, eagle::DType::kFloat64));
    return std::pair{eagle::matmul(a, b), eagle::matmul(a64, b64)};
  });
  eagle::config::set_soft_device_placement(false);
  eagle::config::enable_tensor_float_32_execution(false);
  CHECK_FALSE(eagle::config::tensor_float_32_execution_enabled());
  const auto off = eagle::with_device("/GPU:0", [&] { return eagle::matmul(a, b); });
  eagle::config::enable_tensor_float_32_execution(true);
  CHECK(eagle::config::tensor_float_32_execution_enabled());
  const auto on = eagle::with_device("/GPU:0", [&] { return eagle::matmul(a, b); });
  CHECK(off.device() == full("GPU:0"));
  CHECK(on.device() == full("GPU:0"));
  // Errors relative to |A||B| (each element's dot product of magnitudes).
  const double err_off = worst_ratio(off, reference, magnitudes);
  const double err_on = worst_ratio(on, reference, magnitudes);
  INFO("worst error relative to |A||B|: TF32 off " << err_off << ", on " << err_on);
  CHECK(err_off < 1e-5);
  CHECK(err_on < 1e-3);
  if (cc && cc->first >= 8) {
    // Tensor cores round the inputs to 10 mantissa bits: errors near 2^-11 per product, far
    // above full float32 accumulation (about 1e-8 here).
    CHECK(err_on > 1e-6);
    CHECK(err_on > 10 * err_off);
  } else {
    CHECK(err_on < 1e-5);
  }
  // float64 is unaffected.
  const auto a64 = eagle::cast(a, eagle::DType::kFloat64);
  const auto b64 = eagle::cast(b, eagle::DType::kFloat64);
  const auto ref64 = eagle::with_device("/CPU:0", [&] { return eagle::matmul(a64, b64); });
  const auto on64 = eagle::with_device("/GPU:0", [&] { return eagle::matmul(a64, b64); });
  CHECK(worst_ratio(on64, ref64, magnitudes) < 1e-12);
  eagle::config::set_soft_device_placement(true);
}

// Seed 002's multi-tower example (samples/multi_gpu_towers.cpp; the seeds: samples/README.md).
TEST_CASE("CUDA: towers on two logical GPUs summed on the CPU (seed 002)") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(gpus().at(0), {{2048}, {2048}});
  eagle_test::CapturedLog log;
  std::vector<eagle::Tensor> c;
  for (const char* d : {"/device:GPU:0", "/device:GPU:1"}) {
    auto scope = eagle::device(d);
    const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
    const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
    c.push_back(eagle::matmul(a, b));
  }
  CHECK(c[0].device() == full("GPU:0"));
  CHECK(c[1].device() == full("GPU:1"));
  auto scope = eagle::device("/cpu:0");
  const auto sum = eagle::add_n(c);
  CHECK(sum.device() == full("CPU:0"));
  CHECK(sum.to_vector<float>() == std::vector<float>{44, 56, 98, 128});
  CHECK(log.lines() == std::vector<std::string>{executing("MatMul", "GPU:0"),
                                                executing("MatMul", "GPU:1"),
                                                executing("AddN", "CPU:0")});
}

TEST_CASE("CUDA: a CPU constant used on the GPU is copied once and the copy is reused") {
  EAGLE_FRESH_RUNTIME(nullptr);
  grow_all_gpus();
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  const auto c1 = eagle::matmul(a, b);
  // The output and the two mirrors (256 bytes each), plus the cuBLAS workspace that the device's
  // first matmul takes from its allocator (src/backends/cuda/cublas_handle.hpp).
  const std::size_t after_first = eagle::config::get_memory_info("GPU:0").current;
  CHECK(after_first > 3 * 256);
  CHECK((after_first - 3 * 256) % 256 == 0);
  const auto c2 = eagle::matmul(a, b);
  // Only the new output: the mirrors and the workspace are reused.
  CHECK(eagle::config::get_memory_info("GPU:0").current == after_first + 256);
  CHECK(c2.to_vector<float>() == c1.to_vector<float>());
  CHECK(c1.to_vector<float>() == std::vector<float>{22, 28, 49, 64});
}

TEST_CASE("CUDA: a donated input's bytes become a unary op's output, in place") {
  using eagle::opdefs::OpId;
  const eagle::runtime::TensorSpec spec{eagle::Shape{1000}, eagle::DType::kFloat32};
  const auto negate = [&](eagle::Tensor x, bool donate) {
    const eagle::Tensor inputs[1] = {std::move(x)};
    auto on_gpu = eagle::device("/GPU:0");
    return eagle::runtime::execute1({opdefs::OpId::kNeg, eagle::DType::kFloat32, inputs, 1, &spec,
                                     1, eagle::runtime::no_attrs(), false, 0u, donate ? 1u : 0u});
  };
  std::vector<float> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 500.f;
  eagle::Tensor x =
      eagle::with_device("/GPU:0", [&] { return eagle::identity(eagle::constant(values)); });
  REQUIRE(x.device() == full("GPU:0"));
  const void* bytes = eagle::runtime::impl_of(x)->data();
  eagle::Tensor y = negate(std::move(x), true);
  CHECK(eagle::runtime::impl_of(y)->data() == bytes);  // the in-place kernel ran
  std::vector<float> want(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) want[i] = -values[i];
  CHECK(y.to_vector<float>() == want);
  // The caller still holds y: fresh bytes, y unchanged.
  const eagle::Tensor z = negate(y, true);
  CHECK(eagle::runtime::impl_of(z)->data() != eagle::runtime::impl_of(y)->data());
  CHECK(y.to_vector<float>() == want);
  CHECK(z.to_vector<float>() == values);
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
  if (const int skip = eagle_test::require_real_cuda_gpu("cuda_runtime_test")) return skip;
  return eagle_test::run_result(session.run());
}
