#include "cpu/register_kernels.hpp"

#include <string>

#include "cpu/conv_kernels.hpp"
#include "cpu/cpu_variant.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::cpu {

// The extra variants' entry points (the only global functions of their objects).
#if defined(EAGLE_CPU_HAVE_AVX2)
namespace avx2 {
void register_variant_kernels(runtime::KernelTable& table);
}
#endif
#if defined(EAGLE_CPU_HAVE_AVX512)
namespace avx512 {
void register_variant_kernels(runtime::KernelTable& table);
}
#endif

void register_kernels(runtime::KernelTable& table) {
  const std::string variant = choose_cpu_variant();
  if (false) {
#if defined(EAGLE_CPU_HAVE_AVX512)
  } else if (variant == "avx512") {
    avx512::register_variant_kernels(table);
#endif
#if defined(EAGLE_CPU_HAVE_AVX2)
  } else if (variant == "avx2") {
    avx2::register_variant_kernels(table);
#endif
  } else {
    register_variant_kernels(table);  // the library's own compile: baseline, or native
  }
  detail::set_active_cpu_variant(variant);
  register_array_kernels(table);
  register_creation_kernels(table);
  register_index_kernels(table);
  register_linalg_kernels(table);
  register_shape_kernels(table);
  register_sort_kernels(table);
  register_variable_kernels(table);
  register_conv_kernels(table);
  register_nn_kernels(table);
  register_segment_kernels(table);
  register_check_numerics_kernels(table);
  register_batch_norm_kernels(table);
  register_string_kernels(table);
}

}  // namespace eagle::cpu
