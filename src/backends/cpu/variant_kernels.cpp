// The entry point of one CPU kernel variant (Note [CPU kernel variants]); compiled once per
// variant, as the sources it calls are.
#include "cpu/conv_narrow.hpp"
#include "cpu/max_pool_direct.hpp"
#include "cpu/register_kernels.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN

void register_variant_kernels(runtime::KernelTable& table) {
  register_elementwise_kernels(table);
  register_reduction_kernels(table);
  register_softmax_kernels(table);
  register_optimizer_kernels(table);
  // Not table entries: the convolutions' provider calls them.
  use_narrow_conv_kernels();
  use_direct_max_pool_kernels();
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
