// Kernel-table entries for FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU: the reference
// loops (cpu/batch_norm_reference.*) for every dtype and, when eagle is built with oneDNN and
// the convolution provider is oneDNN, oneDNN's batch normalization for float32 (Note [Batch norm
// on oneDNN] in cpu/onednn/onednn_batch_norm.hpp). The provider is the convolutions' (Note
// [Convolution providers] in cpu/conv_kernels.cpp): EAGLE_CONV_PROVIDER=reference keeps the
// reference here too, and the float32 slots are taken with KernelTable::replace.
#include <cstdint>

#include "cpu/batch_norm_reference.hpp"
#include "cpu/conv_kernels.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/onednn/onednn_batch_norm.hpp"
#endif

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using std::int64_t;

// x's elements per channel (rows) and channels.
struct RowsAndChannels {
  int64_t rows, channels;
};
RowsAndChannels rows_and_channels(const KernelContext& ctx) {
  const int64_t channels = ctx.output_shape(1)[0];
  return {channels == 0 ? 0 : ctx.output_shape(0).num_elements() / channels, channels};
}

// FusedBatchNormV3(x, scale, offset, mean, variance) -> y, batch_mean, batch_variance,
// reserve_space_1, reserve_space_2, reserve_space_3 (empty); reference::fused_batch_norm says
// what each holds.
template <class T>
struct FusedBatchNormKernel {
  static void run(KernelContext& ctx) {
    using U = reference::batch_norm_stat_t<T>;
    const RowsAndChannels r = rows_and_channels(ctx);
    T* y = ctx.allocate_output(0)->data<T>();
    U* batch_mean = ctx.allocate_output(1)->data<U>();
    U* batch_variance = ctx.allocate_output(2)->data<U>();
    U* reserve_mean = ctx.allocate_output(3)->data<U>();
    U* reserve_variance = ctx.allocate_output(4)->data<U>();
    ctx.allocate_output(5);
    reference::fused_batch_norm<T>(ctx.attrs<opdefs::FusedBatchNormAttrs>(), r.rows, r.channels,
                                   ctx.input(0).data<const T>(), ctx.input(1).data<const U>(),
                                   ctx.input(2).data<const U>(), ctx.input(3).data<const U>(),
                                   ctx.input(4).data<const U>(), y, batch_mean, batch_variance,
                                   reserve_mean, reserve_variance);
  }
};

// FusedBatchNormGradV3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3)
// -> x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5 (both empty).
template <class T>
struct FusedBatchNormGradKernel {
  static void run(KernelContext& ctx) {
    using U = reference::batch_norm_stat_t<T>;
    const RowsAndChannels r = rows_and_channels(ctx);
    T* dx = ctx.allocate_output(0)->data<T>();
    U* scale_backprop = ctx.allocate_output(1)->data<U>();
    U* offset_backprop = ctx.allocate_output(2)->data<U>();
    ctx.allocate_output(3);
    ctx.allocate_output(4);
    reference::fused_batch_norm_grad<T>(
        ctx.attrs<opdefs::FusedBatchNormAttrs>(), r.rows, r.channels, ctx.input(0).data<const T>(),
        ctx.input(1).data<const T>(), ctx.input(2).data<const U>(), ctx.input(3).data<const U>(),
        ctx.input(4).data<const U>(), dx, scale_backprop, offset_backprop);
  }
};

#if defined(EAGLE_WITH_ONEDNN)
onednn::BatchNormShape nhwc_shape(const Shape& x) { return {x[0], x[1], x[2], x[3]}; }

// The reference takes x of no elements (an empty batch or no channels: no primitive of zero
// size), and every shape oneDNN would run on one thread (Note [Batch norm on oneDNN]).
bool use_reference(const KernelContext& ctx, bool backward) {
  return ctx.output_shape(0).num_elements() == 0 ||
         !onednn::threaded_team(ctx.attrs<opdefs::FusedBatchNormAttrs>(),
                                nhwc_shape(ctx.output_shape(0)), backward);
}

void onednn_fused_batch_norm(KernelContext& ctx) {
  if (use_reference(ctx, false)) {
    FusedBatchNormKernel<float>::run(ctx);
    return;
  }
  float* y = ctx.allocate_output(0)->data<float>();
  float* batch_mean = ctx.allocate_output(1)->data<float>();
  float* batch_variance = ctx.allocate_output(2)->data<float>();
  float* reserve_mean = ctx.allocate_output(3)->data<float>();
  float* reserve_variance = ctx.allocate_output(4)->data<float>();
  ctx.allocate_output(5);
  onednn::fused_batch_norm(ctx.attrs<opdefs::FusedBatchNormAttrs>(),
                           nhwc_shape(ctx.output_shape(0)), ctx.input(0).data<const float>(),
                           ctx.input(1).data<const float>(), ctx.input(2).data<const float>(),
                           ctx.input(3).data<const float>(), ctx.input(4).data<const float>(), y,
                           batch_mean, batch_variance, reserve_mean, reserve_variance);
}

void onednn_fused_batch_norm_grad(KernelContext& ctx) {
  if (use_reference(ctx, true)) {
    FusedBatchNormGradKernel<float>::run(ctx);
    return;
  }
  float* dx = ctx.allocate_output(0)->data<float>();
  float* scale_backprop = ctx.allocate_output(1)->data<float>();
  float* offset_backprop = ctx.allocate_output(2)->data<float>();
  ctx.allocate_output(3);
  ctx.allocate_output(4);
  onednn::fused_batch_norm_grad(ctx.attrs<opdefs::FusedBatchNormAttrs>(),
                                nhwc_shape(ctx.output_shape(0)), ctx.input(0).data<const float>(),
                                ctx.input(1).data<const float>(), ctx.input(2).data<const float>(),
                                ctx.input(3).data<const float>(), ctx.input(4).data<const float>(),
                                dx, scale_backprop, offset_backprop);
}
#endif

}  // namespace

void register_batch_norm_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kFusedBatchNormV3, DeviceType::kCPU, FusedBatchNormKernel>(
      table);
  kernels::register_op<opdefs::OpId::kFusedBatchNormGradV3, DeviceType::kCPU,
                       FusedBatchNormGradKernel>(table);
#if defined(EAGLE_WITH_ONEDNN)
  if (choose_conv_provider() == "onednn") {
    table.replace(opdefs::OpId::kFusedBatchNormV3, DeviceType::kCPU, DType::kFloat32,
                  onednn_fused_batch_norm);
    table.replace(opdefs::OpId::kFusedBatchNormGradV3, DeviceType::kCPU, DType::kFloat32,
                  onednn_fused_batch_norm_grad);
  }
#endif
}

}  // namespace eagle::cpu
