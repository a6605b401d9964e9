// The value of EAGLE_SIMULATED_GPUS (docs/guide.md, "Simulated GPUs"): "N" or "N:SIZE", e.g. "2"
// or "2:16GiB".
#pragma once

#include <string_view>

#include "runtime/backends.hpp"

namespace eagle::simulated {

using runtime::kMaxSimulatedGpus;
using runtime::SimulatedGpuSpec;

// SIZE is a whole number with an optional unit: B, KiB, MiB, GiB, TiB (powers of 1024) or KB,
// MB, GB, TB (powers of 1000); at least 1 MiB. A typo is an InvalidArgumentError naming the
// variable and the accepted forms, never silence.
SimulatedGpuSpec parse_simulated_gpu_spec(std::string_view text);

}  // namespace eagle::simulated
