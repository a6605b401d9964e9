// What the runtime asks of the backends built into this library, without knowing which they are.
//
// Note [Backend registry]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The runtime (devices, kernel table, dispatcher, config) names no backend. What it needs from
// them (the platforms a machine has, a CPU device, every backend's kernels, the CPU's thread
// count) it asks through the functions below, which one file defines: src/backends/registry.cpp,
// the composition root, the only file that names cpu/, simulated/, cuda/ and portable/. Adding a
// backend is a room under src/backends/ and a few lines there; the runtime does not change, and
// the build keeps runtime/ from including a backend (Note [Rooms]).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "eagle/config.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_table.hpp"
#include "runtime/platform.hpp"

namespace eagle::runtime {

// Simulated GPUs (docs/guide.md, "Simulated GPUs"): how many, and the memory of
// each; from EAGLE_SIMULATED_GPUS or config::simulate_gpus_when_absent.
struct SimulatedGpuSpec {
  int count = 0;
  std::size_t memory_bytes = config::kDefaultSimulatedGpuMemory;
};

inline constexpr int kMaxSimulatedGpus = 64;

struct Platforms {
  std::unique_ptr<Platform> cpu;
  std::unique_ptr<GpuPlatform> gpu;  // CUDA, simulated, or none
};

// The machine's platforms: CUDA's GPUs when it has any, otherwise the simulated GPUs
// EAGLE_SIMULATED_GPUS names, otherwise `fallback`'s (config::simulate_gpus_when_absent),
// otherwise none. A malformed EAGLE_SIMULATED_GPUS is an InvalidArgumentError.
Platforms discover_platforms(const std::optional<SimulatedGpuSpec>& fallback);

// The logical CPU device CPU:<id>.
std::unique_ptr<Device> make_cpu_device(int id);

// Registers every kernel of `type`'s devices: the CPU's, or those of `gpu`'s platform (CUDA's,
// or the CPU's under the GPU type for simulated GPUs, Note [GPU kernel set]). The CPU's first.
void register_backend_kernels(KernelTable& table, DeviceType type, const GpuPlatform* gpu);

// The CPU kernels' intra-op thread count (config::set_intra_op_parallelism_threads); 0: the
// number of cores.
void set_intra_op_threads(int threads);
int configured_intra_op_threads();

}  // namespace eagle::runtime
