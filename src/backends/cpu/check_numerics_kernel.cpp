// The CPU kernel of CheckNumerics: raises when the tensor has a NaN or an infinity, otherwise
// its output is an alias of its input (the same bytes, as TensorFlow's kernel forwards them).
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/non_finite.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
struct CheckNumericsKernel {
  static void run(KernelContext& ctx) {
    const runtime::TensorImpl& x = ctx.input(0);
    const T* v = x.data<const T>();
    runtime::NonFiniteCounts found;
    for (std::int64_t i = 0, n = x.shape().num_elements(); i < n; ++i) {
      const auto f = static_cast<compute_t<T>>(v[i]);
      if (std::isnan(f)) {
        found.nan = 1;
      } else if (std::isinf(f)) {
        (f < 0 ? found.negative_inf : found.positive_inf) = 1;
      }
    }
    if (found.any()) {
      runtime::throw_check_numerics(ctx.attrs<opdefs::CheckNumericsAttrs>().message, found);
    }
    ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
  }
};

}  // namespace

void register_check_numerics_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kCheckNumerics, DeviceType::kCPU, CheckNumericsKernel>(table);
}

}  // namespace eagle::cpu
