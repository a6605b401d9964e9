// The value of EAGLE_SIMULATED_GPUS (SEMANTICS §7): "N" or "N:SIZE", e.g. "2" or "2:16GiB".
#pragma once

#include <cstddef>
#include <string_view>

#include "eagle/config.hpp"

namespace eagle::simulated {

struct SimulatedGpuSpec {
  int count = 0;
  std::size_t memory_bytes = config::kDefaultSimulatedGpuMemory;
};

inline constexpr int kMaxSimulatedGpus = 64;

// SIZE is a whole number with an optional unit: B, KiB, MiB, GiB, TiB (powers of 1024) or KB,
// MB, GB, TB (powers of 1000); at least 1 MiB. A typo is an InvalidArgumentError naming the
// variable and the accepted forms, never silence.
SimulatedGpuSpec parse_simulated_gpu_spec(std::string_view text);

}  // namespace eagle::simulated
