// Registration of the CPU kernels, called once from runtime::Context (explicit, no static init).
#pragma once

#include "runtime/kernel_table.hpp"

namespace eagle::cpu {

void register_kernels(runtime::KernelTable& table);

void register_elementwise_kernels(runtime::KernelTable& table);
void register_creation_kernels(runtime::KernelTable& table);
void register_reduction_kernels(runtime::KernelTable& table);
void register_linalg_kernels(runtime::KernelTable& table);
void register_shape_kernels(runtime::KernelTable& table);
void register_sort_kernels(runtime::KernelTable& table);

}  // namespace eagle::cpu
