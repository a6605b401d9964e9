// The CUDA backend's entries in the kernel table, one function per family of ops (each in its
// own file). register_cuda_kernels registers exactly the GPU kernel set (Note [GPU kernel set]).
#pragma once

#include "runtime/kernel_table.hpp"

namespace eagle::cuda {

void register_cuda_kernels(runtime::KernelTable& table);

void register_elementwise_kernels(runtime::KernelTable& table);
void register_creation_kernels(runtime::KernelTable& table);
void register_reduction_kernels(runtime::KernelTable& table);
void register_softmax_kernels(runtime::KernelTable& table);
void register_add_n_kernels(runtime::KernelTable& table);
void register_matmul_kernels(runtime::KernelTable& table);
void register_shape_kernels(runtime::KernelTable& table);
void register_array_kernels(runtime::KernelTable& table);
void register_sort_kernels(runtime::KernelTable& table);
void register_index_kernels(runtime::KernelTable& table);
void register_einsum_kernels(runtime::KernelTable& table);
void register_variable_kernels(runtime::KernelTable& table);
void register_optimizer_kernels(runtime::KernelTable& table);
// cuDNN (cudnn_conv_kernels.cpp): Conv2D, its backprops, MaxPool(Grad), AvgPool(Grad).
void register_conv_kernels(runtime::KernelTable& table);
void register_nn_kernels(runtime::KernelTable& table);
void register_segment_kernels(runtime::KernelTable& table);
void register_check_numerics_kernels(runtime::KernelTable& table);

}  // namespace eagle::cuda
