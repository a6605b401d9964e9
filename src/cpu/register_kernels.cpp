#include "cpu/register_kernels.hpp"

namespace eagle::cpu {

void register_kernels(runtime::KernelTable& table) {
  register_elementwise_kernels(table);
  register_creation_kernels(table);
  register_reduction_kernels(table);
  register_linalg_kernels(table);
  register_shape_kernels(table);
  register_sort_kernels(table);
}

}  // namespace eagle::cpu
