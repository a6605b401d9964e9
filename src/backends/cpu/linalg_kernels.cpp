// Kernel-table entries for MatMul, BatchMatMulV2 and AddN (Softmax registers with its variant)
#include "cpu/matmul.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
struct MatMulKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::MatMulAttrs>();
    const runtime::TensorImpl& a = ctx.input(0);
    const runtime::TensorImpl& b = ctx.input(1);
    matmul<T>(a.data<const T>(), a.shape(), b.data<const T>(), b.shape(), attrs.transpose_a,
              attrs.transpose_b, out->data<T>(), ctx.output_shape());
  }
};

template <class T>
struct AddNKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    using C = compute_t<T>;
    T* __restrict o = out->data<T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    const T* first = ctx.input(0).data<const T>();
    if constexpr (std::is_same_v<C, T>) {
      for (std::int64_t i = 0; i < n; ++i) o[i] = first[i];
      for (int k = 1; k < ctx.num_inputs(); ++k) {
        const T* __restrict in = ctx.input(k).data<const T>();
        for (std::int64_t i = 0; i < n; ++i) o[i] = wrap_add(o[i], in[i]);
      }
    } else {  // one rounding at the end (Note [Half precision on the CPU])
      for (std::int64_t i = 0; i < n; ++i) {
        C sum = C(first[i]);
        for (int k = 1; k < ctx.num_inputs(); ++k) sum += C(ctx.input(k).data<const T>()[i]);
        o[i] = T(sum);
      }
    }
  }
};

}  // namespace

void register_linalg_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kMatMul, DeviceType::kCPU, MatMulKernel>(table);
  kernels::register_op<opdefs::OpId::kBatchMatMulV2, DeviceType::kCPU, MatMulKernel>(table);
  kernels::register_op<opdefs::OpId::kAddN, DeviceType::kCPU, AddNKernel>(table);
  set_matmul_provider(choose_matmul_provider());  // Note [Matmul providers]
}

}  // namespace eagle::cpu
