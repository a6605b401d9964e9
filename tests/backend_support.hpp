// What the backend_ops_test files share: hard placement, device checks and the comparison of a
// GPU result with the CPU's (tolerances and inputs: tests/op_info/op_info.hpp).
#pragma once

#include <catch2/catch.hpp>

#include <exception>
#include <string>

#include "eagle/eagle.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

inline constexpr const char* kGpu0 = "/GPU:0";
inline constexpr const char* kGpu1 = "/GPU:1";
inline constexpr const char* kCpu0 = "/CPU:0";

// Every test runs with soft placement off: an op under /GPU:0 runs there or throws.
class HardPlacement {
 public:
  HardPlacement() { eagle::config::set_soft_device_placement(false); }
  ~HardPlacement() { eagle::config::set_soft_device_placement(true); }
  HardPlacement(const HardPlacement&) = delete;
  HardPlacement& operator=(const HardPlacement&) = delete;
};

inline std::size_t logical_gpu_count() { return eagle::config::list_logical_devices("GPU").size(); }

inline bool on_device(const Tensor& t, const char* name) {
  const std::string suffix = std::string("device:") + (name[0] == '/' ? name + 1 : name);
  const std::string& d = t.device();
  return d.size() >= suffix.size() &&
         d.compare(d.size() - suffix.size(), suffix.size(), suffix) == 0;
}

inline void expect_match(const Tensor& gpu, const Tensor& cpu, const Tol& tol,
                         const char* gpu_name) {
  INFO("GPU result on " << gpu.device());
  CHECK(on_device(gpu, gpu_name));
  CHECK(on_device(cpu, kCpu0));
  CHECK(mismatches(gpu, cpu, tol) == "");
}

// Runs fn() under /CPU:0, then twice under `gpu` (the second run reads the GPU copies the first
// one made of host inputs, so a kernel that wrote into an input shows), and compares. An
// exception is a failed check, not the end of the test: one missing kernel hides nothing else.
template <class Fn>
void compare_op(opdefs::OpId op, DType dtype, const std::string& what, Fn&& fn, const Tol& tol,
                const char* gpu = kGpu0) {
  INFO(str(op) << " " << str(dtype) << ": " << what);
  Tensor cpu, first, second;
  try {
    cpu = eagle::with_device(kCpu0, fn);
    first = eagle::with_device(gpu, fn);
    second = eagle::with_device(gpu, fn);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
    return;
  }
  expect_match(first, cpu, tol, gpu);
  INFO("second run");
  CHECK(mismatches(second, cpu, tol) == "");
}

}  // namespace eagle_test
