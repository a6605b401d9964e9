// Case 6 of docs/performance.md (cold start), the child side: bench/compare takes the monotonic
// clock, starts this program, and subtracts. It adds two [1024] float32 tensors (1.5 + 2.25),
// reads one value, prints the clock; multiplies two [256, 256] matrices of 0.5, reads one value,
// prints the clock again. One JSON line (cold-start protocol in bench/cpu_cases.py). The clock is
// CLOCK_MONOTONIC, which is std::chrono::steady_clock here and Python's time.monotonic_ns in the
// parent.
//
// Everything a first op costs is inside: loading libeagle and its libraries, creating the runtime
// (device discovery, CUDA probe included when built with CUDA), placement, the first
// allocations, and OpenBLAS's thread start-up for the first GEMM.
#include <chrono>
#include <cstdio>

#include "eagle/eagle.hpp"

namespace {

long long monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main() {
  const eagle::Tensor x = eagle::fill({1024}, 1.5);
  const eagle::Tensor y = eagle::fill({1024}, 2.25);
  const float sum = (x + y).to_vector<float>()[0];
  const long long t_add = monotonic_ns();

  const eagle::Tensor a = eagle::fill({256, 256}, 0.5);
  const float product = eagle::matmul(a, a).to_vector<float>()[0];
  const long long t_matmul = monotonic_ns();

  std::printf(
      "{\"impl\": \"eagle\", \"t_add_ns\": %lld, \"t_matmul_ns\": %lld, \"add_value\": %.9g, "
      "\"matmul_value\": %.9g}\n",
      t_add, t_matmul, static_cast<double>(sum), static_cast<double>(product));
  return 0;
}
