// eagle::config on simulated GPUs (docs/guide.md, "Configuring devices" and "Simulated GPUs"):
// physical devices, visibility, memory growth, logical devices, freezing at initialization and the
// exact error texts. Every TEST_CASE is a fresh process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"
#include "runtime/device_config.hpp"

namespace {

using eagle::config::LogicalDeviceConfiguration;
using eagle::config::PhysicalDevice;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

std::vector<std::string> names(const std::vector<PhysicalDevice>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.name);
  return out;
}

std::vector<std::string> names(const std::vector<eagle::config::LogicalDevice>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.name);
  return out;
}

// EAGLE_VALGRIND: the memcheck build (scripts/memcheck.sh), whose valgrind keeps shadow bits too.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(EAGLE_VALGRIND)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

bool initialized() { return eagle::runtime::DeviceConfig::get().initialized(); }

}  // namespace

TEST_CASE("physical devices: CPU first, then simulated GPUs, listing does not initialize") {
  EAGLE_FRESH_RUNTIME("2");
  const auto all = eagle::config::list_physical_devices();
  CHECK(names(all) == std::vector<std::string>{"/physical_device:CPU:0", "/physical_device:GPU:0",
                                               "/physical_device:GPU:1"});
  CHECK(all[0].device_type == "CPU");
  CHECK(all[1].device_type == "GPU");
  CHECK(names(eagle::config::list_physical_devices("GPU")) ==
        std::vector<std::string>{"/physical_device:GPU:0", "/physical_device:GPU:1"});
  CHECK(eagle::config::list_physical_devices("TPU").empty());

  const auto details = eagle::config::get_device_details(all[1]);
  CHECK(details.device_name == "Simulated GPU");
  CHECK_FALSE(details.compute_capability.has_value());
  CHECK(details.total_memory == 16 * kGiB);
  CHECK(eagle::config::get_device_details(all[0]).total_memory > 0);
  CHECK_THROWS_MATCHES(eagle::config::get_device_details({"/physical_device:GPU:2", "GPU"}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Unrecognized device: /physical_device:GPU:2"));
  CHECK_FALSE(initialized());
  CHECK(eagle::config::get_visible_devices() == all);
  CHECK_FALSE(initialized());

  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0", "/device:GPU:0", "/device:GPU:1"});
  CHECK(initialized());
}

TEST_CASE("EAGLE_SIMULATED_GPUS=N:SIZE sets the size of each GPU") {
  EAGLE_FRESH_RUNTIME("3:512MiB");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  REQUIRE(gpus.size() == 3);
  CHECK(eagle::config::get_device_details(gpus[2]).total_memory == 512 * kMiB);
}

TEST_CASE("no simulated GPUs: CPU only, and the GPU calls answer without throwing") {
  EAGLE_FRESH_RUNTIME(nullptr);
  if (!eagle::config::list_physical_devices("GPU").empty()) {
    WARN("a real GPU is present: this CPU-only scenario does not apply");
    return;
  }
  CHECK(names(eagle::config::list_physical_devices()) ==
        std::vector<std::string>{"/physical_device:CPU:0"});
  CHECK(names(eagle::config::list_logical_devices("GPU")).empty());
  CHECK(eagle::constant(1.0f).device() == "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("a typo in EAGLE_SIMULATED_GPUS is an error at first use, every time") {
  EAGLE_FRESH_RUNTIME("2:16GB!");
  const std::string message =
      "Invalid EAGLE_SIMULATED_GPUS='2:16GB!': unknown unit 'GB!'. Expected N or N:SIZE with 0 "
      "<= N <= 64 and SIZE like 512MiB, 16GiB or 8GB (e.g. EAGLE_SIMULATED_GPUS=2:16GiB)";
  CHECK_THROWS_MATCHES(eagle::config::list_physical_devices(), eagle::InvalidArgumentError,
                       Catch::Message(message));
  CHECK_THROWS_MATCHES(eagle::constant(1.0f), eagle::InvalidArgumentError, Catch::Message(message));
  ::setenv("EAGLE_SIMULATED_GPUS", "1", 1);  // fixed: the next use succeeds
  CHECK(eagle::config::list_physical_devices("GPU").size() == 1);
}

TEST_CASE("simulate_gpus_when_absent gives GPUs when there is no variable and no real GPU") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::simulate_gpus_when_absent(2, kGiB);
  const auto gpus = eagle::config::list_physical_devices("GPU");
  REQUIRE_FALSE(gpus.empty());
  if (eagle::config::get_device_details(gpus[0]).device_name != "Simulated GPU") {
    WARN("a real GPU is present: the simulated fallback does not apply");
    return;
  }
  CHECK(gpus.size() == 2);
  CHECK(eagle::config::get_device_details(gpus[1]).total_memory == kGiB);
  eagle::config::simulate_gpus_when_absent(2, kGiB);  // same again: no-op
  CHECK_THROWS_MATCHES(eagle::config::simulate_gpus_when_absent(3), eagle::FailedPreconditionError,
                       Catch::Message("Simulated GPUs cannot be configured after the physical "
                                      "devices were listed or the runtime initialized"));
}

TEST_CASE("simulate_gpus_when_absent yields to EAGLE_SIMULATED_GPUS") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::simulate_gpus_when_absent(4);
  CHECK(eagle::config::list_physical_devices("GPU").size() == 1);
}

TEST_CASE("simulate_gpus_when_absent: bad arguments") {
  EAGLE_FRESH_RUNTIME(nullptr);
  CHECK_THROWS_MATCHES(eagle::config::simulate_gpus_when_absent(-1), eagle::InvalidArgumentError,
                       Catch::Message("The number of simulated GPUs must be in [0, 64], got -1"));
  CHECK_THROWS_MATCHES(
      eagle::config::simulate_gpus_when_absent(1, 1000), eagle::InvalidArgumentError,
      Catch::Message("A simulated GPU needs at least 1MiB of memory, got 1000 bytes"));
  CHECK_THROWS_MATCHES(eagle::config::simulate_gpus_when_absent(65), eagle::InvalidArgumentError,
                       Catch::Message("The number of simulated GPUs must be in [0, 64], got 65"));
}

TEST_CASE("set_visible_devices: hide all GPUs, then the configuration is frozen") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::set_visible_devices(std::vector<PhysicalDevice>{}, "GPU");
  CHECK(names(eagle::config::get_visible_devices()) ==
        std::vector<std::string>{"/physical_device:CPU:0"});
  CHECK(names(eagle::config::list_logical_devices()) == std::vector<std::string>{"/device:CPU:0"});
  // Setting the same list again after initialization is a silent no-op; a change is an error.
  eagle::config::set_visible_devices(std::vector<PhysicalDevice>{}, "GPU");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  CHECK_THROWS_MATCHES(
      eagle::config::set_visible_devices(gpus, "GPU"), eagle::FailedPreconditionError,
      Catch::Message("Visible devices cannot be modified after being initialized"));
  // The op still runs, on the CPU, although a physical GPU exists.
  eagle::config::set_soft_device_placement(false);
  CHECK_THROWS_MATCHES(
      [] {
        auto scope = eagle::device("/GPU:0");
        return eagle::matmul(eagle::constant({{1.0, 2.0}}),
                             eagle::constant({1.0, 2.0}, eagle::Shape{2, 1}));
      }(),
      eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. "
                     "Supported device types [CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
  eagle::config::set_soft_device_placement(true);
}

TEST_CASE("set_visible_devices: only GPU:1 of two becomes logical GPU:0") {
  EAGLE_FRESH_RUNTIME("2:1GiB");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_visible_devices(gpus[1], "GPU");
  CHECK(names(eagle::config::get_visible_devices("GPU")) ==
        std::vector<std::string>{"/physical_device:GPU:1"});
  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0", "/device:GPU:0"});
}

TEST_CASE("set_visible_devices: bad input") {
  EAGLE_FRESH_RUNTIME("1");
  const auto cpu = eagle::config::list_physical_devices("CPU").at(0);
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  CHECK_THROWS_MATCHES(
      eagle::config::set_visible_devices(PhysicalDevice{"/physical_device:GPU:7", "GPU"}),
      eagle::InvalidArgumentError, Catch::Message("Unrecognized device: /physical_device:GPU:7"));
  CHECK_THROWS_MATCHES(eagle::config::set_visible_devices(cpu, "GPU"), eagle::InvalidArgumentError,
                       Catch::Message("Unrecognized device: /physical_device:CPU:0"));
  CHECK_THROWS_MATCHES(eagle::config::set_visible_devices(gpu), eagle::InvalidArgumentError,
                       Catch::Message("The CPU must stay visible: it holds host tensors. To "
                                      "choose GPUs only, pass device_type \"GPU\""));
  // Nothing changed by the failed calls.
  CHECK(eagle::config::get_visible_devices().size() == 2);
}

TEST_CASE("memory growth: set, get, errors, and the first region is 2 MiB") {
  EAGLE_FRESH_RUNTIME("2");
  const auto cpu = eagle::config::list_physical_devices("CPU").at(0);
  const auto gpus = eagle::config::list_physical_devices("GPU");
  CHECK_FALSE(eagle::config::get_memory_growth(gpus[0]).has_value());
  CHECK_THROWS_MATCHES(eagle::config::set_memory_growth(cpu, true), eagle::InvalidArgumentError,
                       Catch::Message("Cannot set memory growth on non-GPU devices"));
  for (const auto& gpu : gpus) eagle::config::set_memory_growth(gpu, true);
  CHECK(eagle::config::get_memory_growth(gpus[1]) == std::optional<bool>(true));
  CHECK(names(eagle::config::list_logical_devices("GPU")) ==
        std::vector<std::string>{"/device:GPU:0", "/device:GPU:1"});

  eagle::config::set_memory_growth(gpus[0], true);  // same value: no-op
  CHECK_THROWS_MATCHES(
      eagle::config::set_memory_growth(gpus[0], false), eagle::FailedPreconditionError,
      Catch::Message("Physical devices cannot be modified after being initialized"));

  const auto before = eagle::config::get_memory_info("GPU:0");
  CHECK(before.current == 0);
  CHECK(before.reserved == 0);
  CHECK(before.limit == 16 * kGiB - 1800 * kMiB);
  auto scope = eagle::device("/GPU:0");
  const auto small = eagle::zeros({256});  // 1 KiB
  auto info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 1024);
  CHECK(info.reserved == 2 * kMiB);
  const auto bigger = eagle::zeros({1 << 20});  // 4 MiB: a region of its own, doubling to 4 MiB
  info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 1024 + 4 * kMiB);
  CHECK(info.reserved == 6 * kMiB);
  CHECK(eagle::config::get_memory_info("GPU:1").reserved == 0);
}

TEST_CASE("memory growth must agree between visible GPUs (unset counts as different)") {
  EAGLE_FRESH_RUNTIME("2");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_memory_growth(gpus[0], true);
  CHECK_THROWS_MATCHES(eagle::config::list_logical_devices(), eagle::InvalidArgumentError,
                       Catch::Message("Memory growth cannot differ between GPU devices"));
  // Not initialized by the failure: the configuration can still be fixed.
  CHECK_FALSE(initialized());
  eagle::config::set_visible_devices(gpus[0], "GPU");
  CHECK(eagle::config::list_logical_devices("GPU").size() == 1);
}

TEST_CASE("without growth the first allocation takes the whole limit: free minus the reserve") {
  EAGLE_FRESH_RUNTIME("1");
  auto scope = eagle::device("/GPU:0");
  const auto x = eagle::constant({1.0f, 2.0f, 3.0f});
  CHECK(x.device() == "/job:localhost/replica:0/task:0/device:GPU:0");
  const auto info = eagle::config::get_memory_info("/device:GPU:0");
  CHECK(info.current == 256);
  CHECK(info.peak == 256);
  CHECK(info.limit == 16 * kGiB - 1800 * kMiB);
  CHECK(info.reserved == info.limit);
}

TEST_CASE("the reserve follows TensorFlow's MinSystemMemory") {
  using eagle::runtime::system_memory_reserve;
  CHECK(system_memory_reserve(kGiB, std::pair{9, 0}) == 225 * kMiB);
  CHECK(system_memory_reserve(80 * kGiB, std::pair{9, 0}) == 1800 * kMiB);
  CHECK(system_memory_reserve(40 * kGiB, std::pair{8, 0}) == 1536 * kMiB);
  CHECK(system_memory_reserve(16 * kGiB, std::pair{7, 5}) == 1050 * kMiB);
  CHECK(system_memory_reserve(12 * kGiB, std::pair{6, 1}) == 500 * kMiB);
  CHECK(system_memory_reserve(16 * kGiB, std::nullopt) == 1800 * kMiB);
}

TEST_CASE("EAGLE_FORCE_GPU_ALLOW_GROWTH=true overrides the configuration, with a warning") {
  EAGLE_FRESH_RUNTIME("1");
  ::setenv("EAGLE_FORCE_GPU_ALLOW_GROWTH", "true", 1);
  eagle_test::CapturedLog log(false);
  eagle::config::set_memory_growth(eagle::config::list_physical_devices("GPU").at(0), false);
  auto scope = eagle::device("/GPU:0");
  const auto x = eagle::zeros({4});
  CHECK(log.lines() == std::vector<std::string>{
                           "Overriding allow_growth setting because the "
                           "EAGLE_FORCE_GPU_ALLOW_GROWTH environment variable is set. Original "
                           "config value was false."});
  CHECK(eagle::config::get_memory_info("GPU:0").reserved == 2 * kMiB);
  ::unsetenv("EAGLE_FORCE_GPU_ALLOW_GROWTH");
}

TEST_CASE("EAGLE_FORCE_GPU_ALLOW_GROWTH with another value is an error at initialization") {
  EAGLE_FRESH_RUNTIME("1");
  ::setenv("EAGLE_FORCE_GPU_ALLOW_GROWTH", "yes", 1);
  CHECK_THROWS_MATCHES(
      eagle::config::list_logical_devices(), eagle::InvalidArgumentError,
      Catch::Message("Invalid EAGLE_FORCE_GPU_ALLOW_GROWTH='yes': only 'true' or 'false' are "
                     "accepted"));
  ::setenv("EAGLE_FORCE_GPU_ALLOW_GROWTH", "false", 1);
  CHECK(eagle::config::list_logical_devices().size() == 2);
  ::unsetenv("EAGLE_FORCE_GPU_ALLOW_GROWTH");
}

// Seed 003's one GPU as two (samples/virtual_gpus.cpp; the seeds: samples/README.md).
TEST_CASE("logical devices: one GPU split into two 1024 MiB GPUs (seed 003)") {
  EAGLE_FRESH_RUNTIME("1");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  const std::vector<LogicalDeviceConfiguration> two{{1024}, {1024}};
  eagle::config::set_logical_device_configuration(gpus[0], two);
  CHECK(eagle::config::get_logical_device_configuration(gpus[0]) == two);
  CHECK_THROWS_MATCHES(
      eagle::config::set_memory_growth(gpus[0], true), eagle::InvalidArgumentError,
      Catch::Message("Cannot set memory growth on device when virtual devices configured"));
  CHECK(names(eagle::config::list_logical_devices("GPU")) ==
        std::vector<std::string>{"/device:GPU:0", "/device:GPU:1"});
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration(gpus[0], {{2048}}),
      eagle::FailedPreconditionError,
      Catch::Message("Virtual devices cannot be modified after being initialized"));
  eagle::config::set_logical_device_configuration(gpus[0], two);  // same: no-op

  for (const char* name : {"GPU:0", "GPU:1"}) {
    const auto info = eagle::config::get_memory_info(name);
    CHECK(info.limit == 1024 * kMiB);
    CHECK(info.reserved == 0);
  }
  const auto a = eagle::with_device("/GPU:1", [] { return eagle::ones({2, 2}) * 3.0f; });
  CHECK(a.device() == "/job:localhost/replica:0/task:0/device:GPU:1");
  CHECK(a.to_vector<float>() == std::vector<float>{3, 3, 3, 3});
  CHECK(eagle::config::get_memory_info("GPU:1").reserved == 1024 * kMiB);
  CHECK(eagle::config::get_memory_info("GPU:0").reserved == 0);
}

TEST_CASE("logical device configuration: bad input") {
  EAGLE_FRESH_RUNTIME("1");
  const auto cpu = eagle::config::list_physical_devices("CPU").at(0);
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  CHECK_THROWS_MATCHES(eagle::config::set_logical_device_configuration(gpu, {{1024}, {}}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Setting memory limit is required for GPU virtual devices"));
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration(cpu, {{1024}}), eagle::InvalidArgumentError,
      Catch::Message("Setting memory limit on CPU virtual devices is currently not supported"));
  CHECK_THROWS_MATCHES(eagle::config::set_logical_device_configuration(gpu, {{0}}),
                       eagle::InvalidArgumentError,
                       Catch::Message("memory_limit must be a positive number of MiB, got 0"));
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration({"/physical_device:GPU:3", "GPU"}, {{1}}),
      eagle::InvalidArgumentError, Catch::Message("Unrecognized device: /physical_device:GPU:3"));
  CHECK_FALSE(eagle::config::get_logical_device_configuration(gpu).has_value());
}

TEST_CASE("the CPU split into two logical CPUs") {
  EAGLE_FRESH_RUNTIME("1");
  const auto cpu = eagle::config::list_physical_devices("CPU").at(0);
  eagle::config::set_logical_device_configuration(cpu, {{}, {}});
  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0", "/device:CPU:1", "/device:GPU:0"});
  const auto x = eagle::with_device("/CPU:1", [] { return eagle::constant({1, 2}) + 1; });
  CHECK(x.device() == "/job:localhost/replica:0/task:0/device:CPU:1");
  CHECK(x.to_vector<int>() == std::vector<int>{2, 3});
}

TEST_CASE("gpu memory fraction: the limit is total * fraction, refused with virtual devices") {
  EAGLE_FRESH_RUNTIME("2:1GiB");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  CHECK_THROWS_MATCHES(
      eagle::config::set_gpu_memory_fraction(1.5), eagle::InvalidArgumentError,
      Catch::Message("per_process_gpu_memory_fraction must be in (0, 1], got 1.5"));
  eagle::config::set_gpu_memory_fraction(0.25);
  CHECK(eagle::config::get_gpu_memory_fraction() == std::optional<double>(0.25));
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration(gpus[1], {{100}}),
      eagle::InvalidArgumentError,
      Catch::Message(
          "It's invalid to set per_process_gpu_memory_fraction when virtual devices are set"));
  CHECK(eagle::config::get_memory_info("GPU:1").limit == 256 * kMiB);
  CHECK_THROWS_MATCHES(
      eagle::config::set_gpu_memory_fraction(0.5), eagle::FailedPreconditionError,
      Catch::Message("GPU memory fraction cannot be modified after being initialized"));
}

TEST_CASE("memory info: current, peak, reset, release, and the errors for bad devices") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::set_memory_growth(eagle::config::list_physical_devices("GPU").at(0), true);
  CHECK_THROWS_MATCHES(eagle::config::get_memory_info("GPU:1"), eagle::InvalidArgumentError,
                       Catch::Message("No matching devices found for 'GPU:1'"));
  CHECK_THROWS_MATCHES(eagle::config::get_memory_info("CPU:0"), eagle::InvalidArgumentError,
                       Catch::Message("Allocator stats not available for device 'CPU:0'"));
  CHECK_THROWS_AS(eagle::config::get_memory_info("/bogus:0"), eagle::InvalidArgumentError);
  {
    auto scope = eagle::device("/GPU:0");
    const auto a = eagle::zeros({1000});  // 4000 B -> 4096
    {
      const auto b = eagle::zeros({64, 1024});  // 256 KiB
      const auto info = eagle::config::get_memory_info("GPU:0");
      CHECK(info.current == 4096 + 256 * 1024);
      CHECK(info.peak == 4096 + 256 * 1024);
    }
    auto info = eagle::config::get_memory_info("GPU:0");
    CHECK(info.current == 4096);
    CHECK(info.peak == 4096 + 256 * 1024);
    eagle::config::reset_memory_stats("GPU:0");
    info = eagle::config::get_memory_info("GPU:0");
    CHECK(info.peak == 4096);
    CHECK(eagle::config::release_unused_memory("GPU:0") == 0);  // the region is still in use
  }
  CHECK(eagle::config::release_unused_memory("GPU:0") == 2 * kMiB);
  const auto info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 0);
  CHECK(info.reserved == 0);
}

TEST_CASE("out of memory on a 1 GiB logical GPU is an error the program continues after") {
  EAGLE_FRESH_RUNTIME("1");
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("GPU").at(0),
                                                  {{1024}});
  auto scope = eagle::device("/GPU:0");
  const auto kept = eagle::fill({256, 1024}, 2.0);  // 1 MiB, stays alive
  CHECK_THROWS_MATCHES(
      eagle::zeros({512, 1024, 1024}), eagle::ResourceExhaustedError,
      Catch::Message("OOM when allocating tensor with shape[512,1024,1024] and type float on "
                     "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"));
  CHECK_THROWS_AS(eagle::zeros({300, 1024, 1024}), eagle::ResourceExhaustedError);  // 1200 MiB
  const auto fits = eagle::zeros({200, 1024, 1024});  // 800 MiB still fits beside `kept`
  CHECK(fits.device() == "/job:localhost/replica:0/task:0/device:GPU:0");
  const auto total = eagle::reduce_sum(kept);
  CHECK(total.item<float>() == 2.0f * 256 * 1024);
  const auto info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.current == 801 * kMiB + 256);
  CHECK(info.limit == 1024 * kMiB);
}

TEST_CASE("simulated GPU memory is committed only when touched") {
  EAGLE_FRESH_RUNTIME("1:8GiB");
  const auto resident = [] {
    long pages_total = 0, pages_resident = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    REQUIRE(f != nullptr);
    REQUIRE(std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) == 2);
    std::fclose(f);
    return static_cast<std::size_t>(pages_resident) * static_cast<std::size_t>(::getpagesize());
  };
  const std::size_t start = resident();
  auto scope = eagle::device("/GPU:0");
  const auto first = eagle::zeros({4});
  // The allocator now holds its whole default limit (8 GiB - 1800 MiB) from the host, and that
  // commits nothing...
  CHECK(eagle::config::get_memory_info("GPU:0").reserved == 8 * kGiB - 1800 * kMiB);
  CHECK(resident() - start < 64 * kMiB);
  // ...while 512 MiB written commits about that much.
  const auto written = eagle::fill({128, 1024, 1024}, 1.0);
  const std::size_t grown = resident() - start;
  CHECK(grown > 500 * kMiB);
  // Sanitizers and valgrind commit shadow memory for every byte written (TSan about 4 per byte).
  if (!kSanitized) CHECK(grown < 600 * kMiB);
}

// ---- Bad input (the audit in docs/errors.md) ----------------------------------------------------

TEST_CASE("every per-device call refuses a device that is not from the listing") {
  EAGLE_FRESH_RUNTIME("1");
  for (const PhysicalDevice& bad :
       {PhysicalDevice{"/physical_device:GPU:5", "GPU"},
        PhysicalDevice{"/physical_device:GPU:0", "CPU"}, PhysicalDevice{"/device:GPU:0", "GPU"}}) {
    INFO(bad.name << " " << bad.device_type);
    const auto message = Catch::Message("Unrecognized device: " + bad.name);
    CHECK_THROWS_MATCHES(eagle::config::get_device_details(bad), eagle::InvalidArgumentError,
                         message);
    CHECK_THROWS_MATCHES(eagle::config::set_visible_devices(bad, "GPU"),
                         eagle::InvalidArgumentError, message);
    CHECK_THROWS_MATCHES(eagle::config::set_memory_growth(bad, true), eagle::InvalidArgumentError,
                         message);
    CHECK_THROWS_MATCHES(eagle::config::get_memory_growth(bad), eagle::InvalidArgumentError,
                         message);
    CHECK_THROWS_MATCHES(eagle::config::set_logical_device_configuration(bad, {{512}}),
                         eagle::InvalidArgumentError, message);
    CHECK_THROWS_MATCHES(eagle::config::get_logical_device_configuration(bad),
                         eagle::InvalidArgumentError, message);
  }
  // An unknown device type is no error: it lists nothing and hides nothing.
  CHECK(eagle::config::list_physical_devices("TPU").empty());
  CHECK(eagle::config::get_visible_devices("gpu").empty());
  eagle::config::set_visible_devices(std::vector<PhysicalDevice>{}, "TPU");
  // Nothing changed and nothing initialized.
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  CHECK(eagle::config::get_visible_devices().size() == 2);
  CHECK_FALSE(eagle::config::get_memory_growth(gpu).has_value());
  CHECK_FALSE(eagle::config::get_logical_device_configuration(gpu).has_value());
  CHECK_FALSE(initialized());
  CHECK(eagle::config::list_logical_devices("TPU").empty());
  CHECK(names(eagle::config::list_logical_devices()) ==
        std::vector<std::string>{"/device:CPU:0", "/device:GPU:0"});
}

TEST_CASE("gpu memory fraction: values outside 0 < f <= 1, and virtual devices configured first") {
  EAGLE_FRESH_RUNTIME("1:1GiB");
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  for (const auto& [fraction, text] : std::vector<std::pair<double, std::string>>{
           {0.0, "0"},
           {-0.25, "-0.25"},
           {1.0000001, "1.0000001"},
           {std::numeric_limits<double>::quiet_NaN(), "nan"},
           {std::numeric_limits<double>::infinity(), "inf"}}) {
    CHECK_THROWS_MATCHES(
        eagle::config::set_gpu_memory_fraction(fraction), eagle::InvalidArgumentError,
        Catch::Message("per_process_gpu_memory_fraction must be in (0, 1], got " + text));
  }
  CHECK_FALSE(eagle::config::get_gpu_memory_fraction().has_value());
  eagle::config::set_logical_device_configuration(gpu, {{256}});
  CHECK_THROWS_MATCHES(
      eagle::config::set_gpu_memory_fraction(0.5), eagle::InvalidArgumentError,
      Catch::Message(
          "It's invalid to set per_process_gpu_memory_fraction when virtual devices are set"));
  CHECK_FALSE(eagle::config::get_gpu_memory_fraction().has_value());
  CHECK(eagle::config::get_memory_info("GPU:0").limit == 256 * kMiB);
}

TEST_CASE("logical device configuration: negative and oversized memory limits") {
  EAGLE_FRESH_RUNTIME("1:1GiB");
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  CHECK_THROWS_MATCHES(eagle::config::set_logical_device_configuration(gpu, {{512}, {-1}}),
                       eagle::InvalidArgumentError,
                       Catch::Message("memory_limit must be a positive number of MiB, got -1"));
  // 2^44 MiB are 2^64 bytes: the limit used to wrap around to 0 and every allocation failed.
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration(gpu, {{std::int64_t{1} << 44}}),
      eagle::InvalidArgumentError,
      Catch::Message("memory_limit must be at most 8796093022208 MiB (2^63 bytes), got "
                     "17592186044416"));
  CHECK_THROWS_MATCHES(
      eagle::config::set_logical_device_configuration(
          gpu, {{512}, {std::numeric_limits<std::int64_t>::max()}}),
      eagle::InvalidArgumentError,
      Catch::Message("memory_limit must be at most 8796093022208 MiB (2^63 bytes), got "
                     "9223372036854775807"));
  CHECK_FALSE(eagle::config::get_logical_device_configuration(gpu).has_value());
  // The largest accepted limit is a limit, not a wrapped one.
  eagle::config::set_logical_device_configuration(gpu, {{std::int64_t{1} << 43}});
  CHECK(eagle::config::get_memory_info("GPU:0").limit == std::size_t{1} << 63);
}

TEST_CASE("memory calls: malformed, unknown and allocator-less device names") {
  EAGLE_FRESH_RUNTIME("1");
  using Call = std::function<void(const std::string&)>;
  const std::vector<std::pair<std::string, Call>> calls{
      {"get_memory_info", [](const std::string& d) { eagle::config::get_memory_info(d); }},
      {"reset_memory_stats", [](const std::string& d) { eagle::config::reset_memory_stats(d); }},
      {"release_unused_memory",
       [](const std::string& d) { eagle::config::release_unused_memory(d); }},
  };
  for (const auto& [name, call] : calls) {
    INFO(name);
    CHECK_THROWS_MATCHES(call("/bogus:0"), eagle::InvalidArgumentError,
                         Catch::Message("Malformed device specification '/bogus:0'"));
    CHECK_THROWS_MATCHES(call("GPU:0x"), eagle::InvalidArgumentError,
                         Catch::Message("Malformed device specification 'GPU:0x'"));
    CHECK_THROWS_MATCHES(call("GPU:1"), eagle::InvalidArgumentError,
                         Catch::Message("No matching devices found for 'GPU:1'"));
    CHECK_THROWS_MATCHES(call("TPU:0"), eagle::InvalidArgumentError,
                         Catch::Message("No matching devices found for 'TPU:0'"));
    CHECK_THROWS_MATCHES(
        call("/job:worker/device:GPU:0"), eagle::InvalidArgumentError,
        Catch::Message("No matching devices found for '/job:worker/device:GPU:0'"));
    CHECK_THROWS_MATCHES(
        call("/device:CPU:0"), eagle::InvalidArgumentError,
        Catch::Message("Allocator stats not available for device '/device:CPU:0'"));
  }
  // The GPU's own names still work after all that.
  CHECK(eagle::config::get_memory_info("/job:localhost/replica:0/task:0/device:GPU:0").current ==
        0);
  CHECK_NOTHROW(eagle::config::reset_memory_stats("GPU"));
}

TEST_CASE("a tensor too large for any GPU is the GPU allocator's OOM, whatever its byte count") {
  EAGLE_FRESH_RUNTIME("1:1GiB");
  auto scope = eagle::device("/GPU:0");
  const auto kept = eagle::fill({4}, 3.0);
  const std::string where =
      " on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc";
  // 2^62 float32 elements: 2^64 bytes, which used to wrap around to 0.
  CHECK_THROWS_MATCHES(eagle::zeros({std::int64_t{1} << 62}), eagle::ResourceExhaustedError,
                       Catch::Message("OOM when allocating tensor with shape[4611686018427387904] "
                                      "and type float" +
                                      where));
  // One value filling such a shape: the host buffer it is filled in fails first.
  CHECK_THROWS_MATCHES(eagle::constant(1.0, eagle::Shape{std::int64_t{1} << 61}, eagle::float64),
                       eagle::ResourceExhaustedError,
                       Catch::Message("OOM when allocating tensor with shape[2305843009213693952] "
                                      "and type double on /job:localhost/replica:0/task:0/device:"
                                      "CPU:0 by allocator cpu"));
  CHECK(kept.device() == "/job:localhost/replica:0/task:0/device:GPU:0");
  CHECK(eagle::reduce_sum(kept).item<float>() == 12.0f);
}
