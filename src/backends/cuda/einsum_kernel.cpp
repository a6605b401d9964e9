// Einsum on CUDA devices, as on the CPU (ops/einsum_op.cpp makes the plan): each operand's strided
// view (transposes and diagonals) is copied and its reduce labels summed when it is not used as it
// is, the two meet in one cuBLAS (batched) product, and a last strided copy permutes the product to
// the output. Temporaries are device tensors freed in stream order.
#include "cuda_kernels.hpp"
#include "index_kernels.hpp"
#include "kernels/registration.hpp"
#include "layout_kernels.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
struct EinsumKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    const auto& a = ctx.attrs<opdefs::EinsumAttrs>();
    if (a.operands.size() == 1) {
      const opdefs::EinsumOperand& v = a.operands[0];
      if (!v.copy) {
        ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
        return;
      }
      auto out = ctx.allocate_output();
      launch_strided_sum<T>(scope, ctx.input(0).data(), ctx.input(0).shape().num_elements(), v.dims,
                            v.strides, v.reduce, ctx.output_shape().num_elements(), out->data());
      return;
    }
    std::shared_ptr<runtime::TensorImpl> views[2];
    const T* data[2];
    for (int i = 0; i < 2; ++i) {
      const opdefs::EinsumOperand& v = a.operands[static_cast<std::size_t>(i)];
      const runtime::TensorImpl& in = ctx.input(i);
      if (!v.copy) {
        data[i] = in.data<const T>();
        continue;
      }
      const Shape shape(i == 0 ? a.a_shape : a.b_shape);
      views[i] = runtime::allocate_tensor(scope.device(), shape, dtype_of_v<T>);
      launch_strided_sum<T>(scope, in.data(), in.shape().num_elements(), v.dims, v.strides,
                            v.reduce, shape.num_elements(), views[i]->data());
      data[i] = views[i]->data<const T>();
    }
    const Shape product(a.product_shape);
    auto out = ctx.allocate_output();
    if (!a.out_copy) {
      launch_matmul<T>(scope, data[0], Shape(a.a_shape), data[1], Shape(a.b_shape), a.transpose_a,
                       a.transpose_b, out->data<T>(), product);
      return;
    }
    const std::shared_ptr<runtime::TensorImpl> result =
        runtime::allocate_tensor(scope.device(), product, dtype_of_v<T>);
    launch_matmul<T>(scope, data[0], Shape(a.a_shape), data[1], Shape(a.b_shape), a.transpose_a,
                     a.transpose_b, result->data<T>(), product);
    if (ctx.output_shape().num_elements() == 0) return;
    launch_strided_copy(scope, result->data(), product.num_elements(), 0, a.out_dims, a.out_strides,
                        sizeof(T), out->data());
  }
};

}  // namespace

void register_einsum_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kEinsum, DeviceType::kGPU, EinsumKernel>(table);
}

}  // namespace eagle::cuda
