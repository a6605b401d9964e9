// One op suite for every GPU backend: each entry of the OpInfo table (tests/op_info/, Note
// [OpInfo table]), for every dtype the op table's gpu column declares, computed under each
// logical GPU and under /CPU:0 with soft placement off (so the GPU run really runs there) and
// compared with the CPU as the reference (tolerances: tests/op_info/op_info.hpp). One ctest entry
// per op ("backend_ops_test: AddV2 on every GPU gives the CPU's results").
//
// The same binary runs in two registrations (tests/CMakeLists.txt):
//   - simulated GPUs (EAGLE_SIMULATED_GPUS=2, label "cpu"): checks the suite itself, everywhere;
//   - `--require-cuda` (label "gpu"): exits 77 ("Not Run") unless GPU:0 is a real CUDA device.
//     With one real GPU, main() splits it into two logical GPUs before the runtime initializes,
//     so the two-device tests run too.
// Beside this file: backend_special_values_test.cpp (wrap-around, NaN, refused integer powers),
// backend_state_test.cpp (variables and optimizers) and backend_async_test.cpp (queues, copies,
// two GPUs).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "backend_support.hpp"
#include "op_info/op_info.hpp"
#include "op_info/register_tests.hpp"
#include "real_gpu.hpp"
#include "runtime/context.hpp"

namespace opdefs = eagle::opdefs;

using namespace eagle_test;
using eagle::opdefs::gpu_implements;

namespace {

std::vector<std::string> logical_gpus() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < logical_gpu_count(); ++i)
    names.push_back("/GPU:" + std::to_string(i));
  return names;
}

// One sample under /CPU:0, then under each logical GPU, twice under GPU:0 (the second run reads
// the GPU copies the first one made of host inputs, so a kernel that wrote into an input
// shows). An exception is a failed check, not the end of the test: one missing kernel hides
// nothing else.
void compare_sample(const OpInfo& e, DType d, const Sample& s,
                    const std::vector<std::string>& gpus) {
  INFO(str(e.op) << " " << str(d) << ": " << s.what);
  const Call call = s.call ? s.call : e.call;
  const Call reference = s.reference ? s.reference : call;
  const Tol tol = s.tol ? *s.tol : e.tolerance(d);
  Tensor cpu;
  try {
    cpu = eagle::with_device(kCpu0, [&] { return reference(s.inputs); });
  } catch (const std::exception& ex) {
    FAIL_CHECK("the CPU threw: " << ex.what());
    return;
  }
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const char* gpu = gpus[g].c_str();
    for (int run = 0; run < (g == 0 ? 2 : 1); ++run) {
      INFO("on " << gpu << (run ? ", second run" : ""));
      if (s.unimplemented_unless_cuda) {
        try {
          expect_match(eagle::with_device(gpu, [&] { return call(s.inputs); }), cpu, tol, gpu);
          CHECK(real_cuda_gpu_present());
        } catch (const eagle::UnimplementedError&) {
          CHECK_FALSE(real_cuda_gpu_present());
        }
        continue;
      }
      try {
        expect_match(eagle::with_device(gpu, [&] { return call(s.inputs); }), cpu, tol, gpu);
      } catch (const std::exception& ex) {
        FAIL_CHECK("threw: " << ex.what());
      }
    }
  }
}

void compare_on_every_gpu(const OpInfo& e) {
  HardPlacement hard;
  const Tf32 no_tf32(false);  // float32 products as on the CPU unless a sample asks for TF32
  const auto gpus = logical_gpus();
  REQUIRE_FALSE(gpus.empty());
  const auto dtypes = gpu_dtypes(e.op);
  REQUIRE_FALSE(dtypes.empty());
  for (DType d : dtypes) {
    const auto samples = eagle::with_device(kCpu0, [&] { return e.samples(d); });
    INFO(str(e.op) << " " << str(d));
    CHECK_FALSE(samples.empty());  // a declared GPU kernel without samples
    for (const Sample& s : samples) compare_sample(e, d, s, gpus);
  }
}

const bool registered = register_op_info_tests(
    " on every GPU gives the CPU's results", "[backend][opinfo]", compare_on_every_gpu,
    [](const OpInfo& e) { return !gpu_dtypes(e.op).empty(); });

}  // namespace

// ---- The suite covers the kernel set ------------------------------------------------------------

TEST_CASE("the suite compares every op the GPU kernel set declares") {
  CHECK(registered);
  std::string missing;
  int declared = 0;
  for (int i = 0; i < eagle::opdefs::kNumOps; ++i) {
    const auto op = static_cast<opdefs::OpId>(i);
    const auto dtypes = gpu_dtypes(op);
    declared += static_cast<int>(dtypes.size());
    bool excluded = false;  // resource ops: backend_state_test.cpp
    for (const auto& [x, why] : op_info_exclusions()) excluded = excluded || x == op;
    if (!dtypes.empty() && !find_op_info(op) && !excluded) missing += " " + str(op);
  }
  INFO("ops with GPU kernels that no test of this suite compares:" << missing);
  CHECK(missing.empty());
  CHECK(declared > 100);
}

TEST_CASE("the running GPU backend registers exactly the declared kernel set") {
  const auto& table = eagle::runtime::Context::get().kernels();
  std::string missing, extra;
  for (int i = 0; i < eagle::opdefs::kNumOps; ++i) {
    const auto op = static_cast<opdefs::OpId>(i);
    for (DType d : all_dtypes()) {
      const bool registered = table.find(op, eagle::runtime::DeviceType::kGPU, d) != nullptr;
      if (opdefs::gpu_implements(op, d) && !registered) missing += " " + str(op) + "/" + str(d);
      if (!opdefs::gpu_implements(op, d) && registered) extra += " " + str(op) + "/" + str(d);
    }
  }
  INFO("declared but not registered:" << missing);
  CHECK(missing.empty());
  INFO("registered but not declared:" << extra);
  CHECK(extra.empty());
  // And the placer agrees: an op without a GPU kernel for its dtype is refused under /GPU:0.
  HardPlacement hard;
  const Tensor a = make(DType::kInt32, {2, 2}, Domain::kUnit, 1);
  auto scope = eagle::device(kGpu0);
  CHECK_THROWS_AS(eagle::matmul(a, a), eagle::InvalidArgumentError);
}

// ---- main ---------------------------------------------------------------------------------------

namespace {

// Configures the GPUs before anything initializes the runtime. Returns an exit code, or -1 to run.
int prepare_gpus(bool require_cuda) {
  if (require_cuda) {
    if (const int skip = eagle_test::require_real_cuda_gpu("backend_ops_test")) return skip;
  } else {
    // Run by hand without EAGLE_SIMULATED_GPUS: two simulated GPUs (the variable, or real GPUs,
    // win).
    eagle::config::simulate_gpus_when_absent(2);
  }
  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    std::printf("FAIL: backend_ops_test: no GPU at all (EAGLE_SIMULATED_GPUS=0?)\n");
    return 1;
  }
  const auto details = eagle::config::get_device_details(gpus[0]);
  if (details.compute_capability && gpus.size() == 1) {
    // One real GPU: two logical GPUs of up to 8 GiB each, for the two-device test.
    const auto each =
        std::min<std::int64_t>(8192, static_cast<std::int64_t>(details.total_memory >> 20) / 4);
    eagle::config::set_logical_device_configuration(gpus[0], {{each}, {each}});
  }
  std::printf("backend_ops_test: %zu logical GPU(s) on %zu physical %s (%s)\n", logical_gpu_count(),
              gpus.size(), details.device_name.c_str(),
              details.compute_capability
                  ? ("compute capability " + std::to_string(details.compute_capability->first) +
                     "." + std::to_string(details.compute_capability->second))
                        .c_str()
                  : "simulated");
  return -1;
}

}  // namespace

int main(int argc, char* argv[]) {
  // --require-cuda: the "gpu" registration; everything else goes to Catch.
  bool require_cuda = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--require-cuda") == 0) {
      require_cuda = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  Catch::Session session;
  const int parsed = session.applyCommandLine(static_cast<int>(args.size()), args.data());
  if (parsed != 0) return parsed;
  const Catch::ConfigData& config = session.configData();
  if (config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters ||
      config.showHelp || config.libIdentify) {
    return session.run();  // listing (catch_discover_tests at build time) touches no device
  }
  const int prepared = prepare_gpus(require_cuda);
  if (prepared >= 0) return prepared;
  return eagle_test::run_result(session.run());
}
