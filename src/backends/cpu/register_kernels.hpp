// Registration of the CPU kernels, called once from runtime::Context (explicit, no static init).
#pragma once

#include "cpu/isa.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::cpu {

// Registers every CPU kernel, the hot ones from the variant choose_cpu_variant picks (Note [CPU
// kernel variants]).
void register_kernels(runtime::KernelTable& table);

void register_array_kernels(runtime::KernelTable& table);
void register_creation_kernels(runtime::KernelTable& table);
void register_index_kernels(runtime::KernelTable& table);
void register_linalg_kernels(runtime::KernelTable& table);
void register_shape_kernels(runtime::KernelTable& table);
void register_sort_kernels(runtime::KernelTable& table);
void register_variable_kernels(runtime::KernelTable& table);
void register_nn_kernels(runtime::KernelTable& table);
void register_segment_kernels(runtime::KernelTable& table);
void register_check_numerics_kernels(runtime::KernelTable& table);
// FusedBatchNormV3 and its gradient (cpu/batch_norm_kernels.cpp), on the convolutions' provider.
void register_batch_norm_kernels(runtime::KernelTable& table);
void register_string_kernels(runtime::KernelTable& table);

// Compiled once per variant (cpu/isa.hpp).
EAGLE_CPU_ISA_BEGIN
void register_elementwise_kernels(runtime::KernelTable& table);
void register_reduction_kernels(runtime::KernelTable& table);
void register_softmax_kernels(runtime::KernelTable& table);
void register_optimizer_kernels(runtime::KernelTable& table);
// All of the above: the variant's entry point.
void register_variant_kernels(runtime::KernelTable& table);
EAGLE_CPU_ISA_END

}  // namespace eagle::cpu
