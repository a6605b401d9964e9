#include "cuda_kernels.hpp"

namespace eagle::cuda {

void register_cuda_kernels(runtime::KernelTable& table) {
  register_elementwise_kernels(table);
  register_creation_kernels(table);
  register_reduction_kernels(table);
  register_softmax_kernels(table);
  register_add_n_kernels(table);
  register_matmul_kernels(table);
  register_shape_kernels(table);
  register_array_kernels(table);
  register_sort_kernels(table);
  register_index_kernels(table);
  register_einsum_kernels(table);
  register_variable_kernels(table);
  register_optimizer_kernels(table);
  register_conv_kernels(table);
  register_nn_kernels(table);
  register_segment_kernels(table);
  register_check_numerics_kernels(table);
}

}  // namespace eagle::cuda
