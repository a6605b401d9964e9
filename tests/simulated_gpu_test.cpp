// The simulated GPU platform's parts that need no runtime: the EAGLE_SIMULATED_GPUS parser and
// the GPU kernel set it registers (Note [GPU kernel set]).
#include <catch2/catch.hpp>

#include <string>

#include "eagle/errors.hpp"
#include "memory/bfc_allocator.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/backends.hpp"
#include "simulated/simulated_gpu_kernels.hpp"
#include "simulated/simulated_gpu_platform.hpp"
#include "simulated/simulated_gpu_spec.hpp"

namespace opdefs = eagle::opdefs;

using eagle::simulated::parse_simulated_gpu_spec;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

std::string invalid(const std::string& text, const std::string& why) {
  return "Invalid EAGLE_SIMULATED_GPUS='" + text + "': " + why +
         ". Expected N or N:SIZE with 0 <= N <= 64 and SIZE like 512MiB, 16GiB or 8GB (e.g. "
         "EAGLE_SIMULATED_GPUS=2:16GiB)";
}

}  // namespace

TEST_CASE("EAGLE_SIMULATED_GPUS: accepted forms") {
  const auto two = parse_simulated_gpu_spec("2");
  CHECK(two.count == 2);
  CHECK(two.memory_bytes == 16 * kGiB);
  CHECK(parse_simulated_gpu_spec("2:16GiB").memory_bytes == 16 * kGiB);
  CHECK(parse_simulated_gpu_spec("1:512MiB").memory_bytes == 512 * kMiB);
  CHECK(parse_simulated_gpu_spec("3:8GB").memory_bytes == 8000000000u);
  CHECK(parse_simulated_gpu_spec("1:1TiB").memory_bytes == 1024 * kGiB);
  CHECK(parse_simulated_gpu_spec("1:1048576").memory_bytes == kMiB);
  CHECK(parse_simulated_gpu_spec("1:2048KiB").memory_bytes == 2 * kMiB);
  CHECK(parse_simulated_gpu_spec("0").count == 0);
  CHECK(parse_simulated_gpu_spec("64").count == 64);
}

TEST_CASE("EAGLE_SIMULATED_GPUS: every typo is an InvalidArgumentError that says what is wrong") {
  const std::pair<std::string, std::string> cases[] = {
      {"", "N must be a whole number"},
      {"two", "N must be a whole number"},
      {"-1", "N must be a whole number"},
      {"2 ", "N must be a whole number"},
      {"65", "N is too large"},
      {"99999999999999999999999", "N must be a whole number"},
      {"2:", "SIZE must start with a whole number"},
      {"2:GiB", "SIZE must start with a whole number"},
      {"2:16gb", "unknown unit 'gb'"},
      {"2:16 GiB", "unknown unit ' GiB'"},
      {"2:16GiB:3", "unknown unit 'GiB:3'"},
      {"1:1KiB", "SIZE must be at least 1MiB"},
      {"1:99999999999TiB", "SIZE is too large"},
  };
  for (const auto& [text, why] : cases) {
    INFO(text);
    CHECK_THROWS_MATCHES(parse_simulated_gpu_spec(text), eagle::InvalidArgumentError,
                         Catch::Message(invalid(text, why)));
  }
}

TEST_CASE("the GPU kernel set: integer matmul is the CPU's alone") {
  using eagle::DType;
  using eagle::opdefs::gpu_implements;
  using eagle::opdefs::OpId;
  CHECK(opdefs::gpu_implements(opdefs::OpId::kMatMul, DType::kFloat32));
  CHECK(opdefs::gpu_implements(opdefs::OpId::kMatMul, DType::kBFloat16));
  CHECK_FALSE(opdefs::gpu_implements(opdefs::OpId::kMatMul, DType::kInt32));
  CHECK_FALSE(opdefs::gpu_implements(opdefs::OpId::kBatchMatMulV2, DType::kInt64));
  CHECK(opdefs::gpu_implements(opdefs::OpId::kAddV2, DType::kInt32));
  CHECK_FALSE(opdefs::gpu_implements(opdefs::OpId::kAddV2, DType::kBool));
  CHECK(opdefs::gpu_implements(opdefs::OpId::kConst, DType::kBool));
}

TEST_CASE("simulated GPUs register exactly the declared set, each backed by the CPU kernel") {
  using eagle::runtime::DeviceType;
  eagle::runtime::KernelTable table;
  eagle::runtime::register_backend_kernels(table, DeviceType::kCPU, nullptr);
  eagle::simulated::register_simulated_gpu_kernels(table);
  int declared = 0;
  for (int o = 0; o < eagle::opdefs::kNumOps; ++o) {
    const auto op = static_cast<eagle::opdefs::OpId>(o);
    for (int d = 0; d < eagle::kNumDTypes; ++d) {
      const auto dtype = static_cast<eagle::DType>(d);
      INFO(eagle::opdefs::op_name(op) << " " << eagle::dtype_name(dtype));
      const auto gpu = table.find(op, DeviceType::kGPU, dtype);
      CHECK((gpu != nullptr) == eagle::opdefs::gpu_implements(op, dtype));
      if (gpu) CHECK(gpu == table.find(op, DeviceType::kCPU, dtype));
      declared += gpu != nullptr;
    }
  }
  CHECK(declared > 200);
}

TEST_CASE("the simulated platform reports its GPUs and shares one memory among logical GPUs") {
  eagle::simulated::SimulatedGpuPlatform platform({2, 64 * kMiB});
  CHECK(platform.device_count() == 2);
  CHECK(platform.info(1).device_name == "Simulated GPU");
  CHECK(platform.info(1).total_memory == 64 * kMiB);
  CHECK(platform.free_memory(0) == 64 * kMiB);
  CHECK(platform.host_accessible());
  auto first = platform.make_logical_device(0, 0, 48 * kMiB, false);
  auto second = platform.make_logical_device(0, 1, 48 * kMiB, false);
  CHECK(first->name() == "/job:localhost/replica:0/task:0/device:GPU:0");
  CHECK(second->bfc_allocator()->name() == "GPU_1_bfc");
  void* p = first->allocate(1000, eagle::Shape{250}, eagle::DType::kFloat32);
  CHECK(platform.free_memory(0) == 16 * kMiB);  // the whole 48 MiB limit was taken
  CHECK(platform.free_memory(1) == 64 * kMiB);
  // The card has 16 MiB left, so the second logical GPU cannot take its 48 MiB region; it
  // shrinks its ask to the request, as TensorFlow's allocator does.
  void* q = second->allocate(kMiB, eagle::Shape{262144}, eagle::DType::kFloat32);
  CHECK(platform.free_memory(0) == 15 * kMiB);
  CHECK_THROWS_MATCHES(
      second->allocate(32 * kMiB, eagle::Shape{8, 1048576}, eagle::DType::kFloat32),
      eagle::ResourceExhaustedError,
      Catch::Message("OOM when allocating tensor with shape[8,1048576] and type float on "
                     "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc"));
  second->deallocate(q, kMiB);
  first->deallocate(p, 1000);
}
