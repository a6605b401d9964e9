// What MirroredStrategy asks before it selects NcclAllReduce (Note [NcclAllReduce] in
// nccl_all_reduce.cpp), without knowing whether this build has a CUDA backend.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace eagle::distribute::detail {

// Why NcclAllReduce cannot run over `devices` (full names of logical devices of this process), or
// nullopt when it can: every device a CUDA GPU (not a CPU, not a simulated GPU), no two of them
// logical GPUs of one physical GPU, and NCCL loaded (Note [NCCL on demand] in
// backends/cuda/nccl_library.hpp; the first call loads it). Never throws for a missing NCCL.
std::optional<std::string> nccl_unusable_reason(const std::vector<std::string>& devices);

}  // namespace eagle::distribute::detail
