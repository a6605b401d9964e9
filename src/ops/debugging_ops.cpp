// tf.debugging's numerics checks: check_numerics (the CheckNumerics op; kernels in
// cpu/check_numerics_kernel.cpp and backends/cuda/check_numerics_kernel.cu) and the switch of
// enable_check_numerics (the check itself is runtime/check_numerics.cpp, run by the dispatcher).
#include <fmt/format.h>

#include "eagle/debugging.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"
#include "runtime/flags.hpp"

namespace eagle::debugging {

Tensor check_numerics(const Tensor& tensor, std::string_view message) {
  ops::check_defined(tensor, opdefs::OpId::kCheckNumerics);
  return ops::run_unary(opdefs::OpId::kCheckNumerics, tensor, tensor.shape(), tensor.dtype(),
                        opdefs::OpAttrs{opdefs::CheckNumericsAttrs{std::string(message)}});
}

void enable_check_numerics() { runtime::g_check_numerics.store(true); }
void disable_check_numerics() { runtime::g_check_numerics.store(false); }
bool check_numerics_enabled() { return runtime::g_check_numerics.load(); }

}  // namespace eagle::debugging
