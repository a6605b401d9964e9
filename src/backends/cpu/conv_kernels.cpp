// Kernel-table entries for Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool,
// MaxPoolGrad, AvgPool and AvgPoolGrad on the CPU.
//
// Note [Convolution providers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Two providers compute these ops on the CPU: the reference (cpu/conv_reference.*: im2col +
// OpenBLAS, plain pooling loops), for every dtype, and oneDNN (cpu/onednn/), for float32, when
// eagle is built with it (CMake option EAGLE_ONEDNN, on when libdnnl is found). The choice is
// made once, when the kernels are registered, and is explicit: the reference registers every slot
// with KernelTable::add, then, when oneDNN is chosen, its kernels take the float32 slots with
// KernelTable::replace (a second add would be an InternalError, so nothing is overwritten
// silently). Convolutions of 1 to 4 input channels, where oneDNN 2.6 is slowest, take eagle's own
// direct kernels in that provider (Note [Narrow convolutions] in cpu/conv_narrow.cpp), and so does
// max pooling (Note [Direct max pooling] in cpu/max_pool_direct.cpp).
// EAGLE_CONV_PROVIDER=reference keeps the reference everywhere, which is how the tests run every op
// on both; active_conv_provider() says which one serves. float16 and bfloat16 compute in float32
// through the reference and round once (Note [Half precision on the CPU]). A simulated GPU gets
// whichever kernel the CPU registered (Note [GPU kernel set]). float32 batch norm follows the same
// choice (cpu/batch_norm_kernels.cpp, Note [Batch norm on oneDNN]). Integer MaxPool (int32, int64)
// has only the reference.
#include "cpu/conv_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <vector>

#include "cpu/conv_epilogue.hpp"
#include "cpu/conv_narrow.hpp"
#include "cpu/conv_reference.hpp"
#include "cpu/max_pool_direct.hpp"
#include "cpu/numeric.hpp"
#include "eagle/errors.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/onednn/onednn_conv.hpp"
#endif

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// The element type the reference computes T in: float for the 16-bit floats, else T itself
// (integer MaxPool compares int32/int64 exactly).
template <class T>
using Wide =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

// Input i as a Wide<T> array: the tensor's own bytes, or a widened copy held in `store`.
template <class T>
const Wide<T>* widened(const KernelContext& ctx, int i, std::vector<Wide<T>>& store) {
  const runtime::TensorImpl& t = ctx.input(i);
  if constexpr (std::is_same_v<T, Wide<T>>) {
    return t.data<const T>();
  } else {
    const T* data = t.data<const T>();
    store.resize(static_cast<std::size_t>(t.shape().num_elements()));
    for (std::size_t k = 0; k < store.size(); ++k) store[k] = static_cast<float>(data[k]);
    return store.data();
  }
}

// Runs `compute(inputs..., out)` in Wide<T>, rounding the output to T once at the end; returns the
// output.
template <class T, class Compute>
runtime::TensorImpl* run_wide(KernelContext& ctx, int num_inputs, Compute compute) {
  runtime::TensorImpl* out = ctx.allocate_output();
  std::vector<Wide<T>> store[3];
  const Wide<T>* in[3] = {};
  for (int i = 0; i < num_inputs; ++i) in[i] = widened<T>(ctx, i, store[i]);
  if constexpr (std::is_same_v<T, Wide<T>>) {
    compute(in, out->data<T>());
  } else {
    std::vector<float> result(static_cast<std::size_t>(ctx.output_shape().num_elements()));
    compute(in, result.data());
    T* o = out->data<T>();
    for (std::size_t k = 0; k < result.size(); ++k) o[k] = T(result[k]);
  }
  return out;
}

template <class T>
struct Conv2DKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    run_wide<T>(ctx, 2, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::conv2d(a, in[0], in[1], out);
    });
  }
};
// _FusedConv2D: Conv2D's result in T, then BiasAdd and Relu as those ops compute them in T (each
// rounded to T), so the bits are the three ops' (Note [Fused convolutions]).
template <class T>
struct FusedConv2DKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const auto& f = ctx.attrs<opdefs::FusedConv2DAttrs>();
    runtime::TensorImpl* out = run_wide<T>(ctx, 2, [&](const Wide<T>* const* in, Wide<T>* y) {
      reference::conv2d(f.conv, in[0], in[1], y);
    });
    const T* bias = ctx.input(2).data<const T>();
    const int64_t channels = f.conv.out_channels;
    const int64_t pixels = channels == 0 ? 0 : ctx.output_shape().num_elements() / channels;
    for (int64_t p = 0; p < pixels; ++p) {
      T* y = out->data<T>() + p * channels;
      for (int64_t c = 0; c < channels; ++c) {
        T v = convert<T>(C(y[c]) + C(bias[c]));
        if (f.relu) v = convert<T>(kernels::ReluFn{}(C(v)));
        y[c] = v;
      }
    }
  }
};
template <class T>
struct Conv2DBackpropInputKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    run_wide<T>(ctx, 2, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::conv2d_backprop_input(a, in[0], in[1], out);
    });
  }
};
template <class T>
struct Conv2DBackpropFilterKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    run_wide<T>(ctx, 2, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::conv2d_backprop_filter(a, in[0], in[1], out);
    });
  }
};
template <class T>
struct MaxPoolKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Pool2DAttrs>();
    run_wide<T>(ctx, 1, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::max_pool(a, in[0], out);
    });
  }
};
template <class T>
struct MaxPoolGradKernel {  // inputs: orig_input, orig_output (unused: recomputed), grad
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Pool2DAttrs>();
    run_wide<T>(ctx, 3, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::max_pool_grad(a, in[0], in[2], out);
    });
  }
};
template <class T>
struct AvgPoolKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Pool2DAttrs>();
    run_wide<T>(ctx, 1, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::avg_pool(a, in[0], out);
    });
  }
};
template <class T>
struct AvgPoolGradKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::Pool2DAttrs>();
    run_wide<T>(ctx, 1, [&](const Wide<T>* const* in, Wide<T>* out) {
      reference::avg_pool_grad(a, in[0], out);
    });
  }
};

#if defined(EAGLE_WITH_ONEDNN)
// oneDNN's float32 kernels. Empty tensors go to the reference, which handles them without
// asking oneDNN for a primitive of zero size.
bool empty(const KernelContext& ctx) {
  if (ctx.output_shape().num_elements() == 0) return true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape().num_elements() == 0) return true;
  }
  return false;
}

template <template <class> class Reference, class Run>
void onednn_or_reference(KernelContext& ctx, Run run) {
  if (empty(ctx)) {
    Reference<float>::run(ctx);
    return;
  }
  runtime::TensorImpl* out = ctx.allocate_output();
  run(out->data<float>());
}

const float* in(const KernelContext& ctx, int i) { return ctx.input(i).data<const float>(); }

// Narrow convolutions go to eagle's direct kernels (Note [Narrow convolutions]).
void provider_conv2d(const opdefs::Conv2DAttrs& a, const float* input, const float* filter,
                     const ConvEpilogue& epilogue, float* out) {
  if (is_narrow_conv(a)) return narrow_conv_kernels().conv2d(a, input, filter, epilogue, out);
  onednn::conv2d(a, input, filter, out, epilogue);
}
void onednn_conv2d(KernelContext& ctx) {
  onednn_or_reference<Conv2DKernel>(ctx, [&](float* out) {
    provider_conv2d(ctx.attrs<opdefs::Conv2DAttrs>(), in(ctx, 0), in(ctx, 1), {}, out);
  });
}
void onednn_fused_conv2d(KernelContext& ctx) {
  onednn_or_reference<FusedConv2DKernel>(ctx, [&](float* out) {
    const auto& f = ctx.attrs<opdefs::FusedConv2DAttrs>();
    provider_conv2d(f.conv, in(ctx, 0), in(ctx, 1), ConvEpilogue{in(ctx, 2), f.relu}, out);
  });
}
void onednn_conv2d_backprop_input(KernelContext& ctx) {
  onednn_or_reference<Conv2DBackpropInputKernel>(ctx, [&](float* out) {
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    const auto run =
        is_narrow_conv(a) ? narrow_conv_kernels().backprop_input : onednn::conv2d_backprop_input;
    run(a, in(ctx, 0), in(ctx, 1), out);
  });
}
void onednn_conv2d_backprop_filter(KernelContext& ctx) {
  onednn_or_reference<Conv2DBackpropFilterKernel>(ctx, [&](float* out) {
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    const auto run =
        is_narrow_conv(a) ? narrow_conv_kernels().backprop_filter : onednn::conv2d_backprop_filter;
    run(a, in(ctx, 0), in(ctx, 1), out);
  });
}
// Max pooling is eagle's own (Note [Direct max pooling]).
void onednn_max_pool(KernelContext& ctx) {
  onednn_or_reference<MaxPoolKernel>(ctx, [&](float* out) {
    direct_max_pool_kernels().max_pool(ctx.attrs<opdefs::Pool2DAttrs>(), in(ctx, 0), out);
  });
}
void onednn_max_pool_grad(KernelContext& ctx) {
  onednn_or_reference<MaxPoolGradKernel>(ctx, [&](float* out) {
    direct_max_pool_kernels().max_pool_grad(ctx.attrs<opdefs::Pool2DAttrs>(), in(ctx, 0),
                                            in(ctx, 2), out);
  });
}
void onednn_avg_pool(KernelContext& ctx) {
  onednn_or_reference<AvgPoolKernel>(ctx, [&](float* out) {
    onednn::avg_pool(ctx.attrs<opdefs::Pool2DAttrs>(), in(ctx, 0), out);
  });
}
void onednn_avg_pool_grad(KernelContext& ctx) {
  onednn_or_reference<AvgPoolGradKernel>(ctx, [&](float* out) {
    onednn::avg_pool_grad(ctx.attrs<opdefs::Pool2DAttrs>(), in(ctx, 0), out);
  });
}
#endif

std::mutex active_mutex;
std::string& active() {
  static std::string name;
  return name;
}

}  // namespace

std::vector<std::string> built_conv_providers() {
#if defined(EAGLE_WITH_ONEDNN)
  return {"reference", "onednn"};
#else
  return {"reference"};
#endif
}

std::string choose_conv_provider() {
  const std::vector<std::string> built = built_conv_providers();
  const char* env = std::getenv("EAGLE_CONV_PROVIDER");
  if (env == nullptr || *env == '\0' || std::string(env) == "auto") return built.back();
  const std::string want = env;
  if (std::find(built.begin(), built.end(), want) == built.end()) {
    throw InvalidArgumentError(
        fmt::format("EAGLE_CONV_PROVIDER={}: this build of eagle has the convolution providers {} "
                    "(or auto)",
                    want, fmt::join(built, ", ")));
  }
  return want;
}

std::string active_conv_provider() {
  std::lock_guard<std::mutex> lock(active_mutex);
  return active();
}

void register_conv_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kConv2D, DeviceType::kCPU, Conv2DKernel>(table);
  kernels::register_op<opdefs::OpId::k_FusedConv2D, DeviceType::kCPU, FusedConv2DKernel>(table);
  kernels::register_op<opdefs::OpId::kConv2DBackpropInput, DeviceType::kCPU,
                       Conv2DBackpropInputKernel>(table);
  kernels::register_op<opdefs::OpId::kConv2DBackpropFilter, DeviceType::kCPU,
                       Conv2DBackpropFilterKernel>(table);
  kernels::register_op<opdefs::OpId::kMaxPool, DeviceType::kCPU, MaxPoolKernel>(table);
  kernels::register_op<opdefs::OpId::kMaxPoolGrad, DeviceType::kCPU, MaxPoolGradKernel>(table);
  kernels::register_op<opdefs::OpId::kAvgPool, DeviceType::kCPU, AvgPoolKernel>(table);
  kernels::register_op<opdefs::OpId::kAvgPoolGrad, DeviceType::kCPU, AvgPoolGradKernel>(table);
  const std::string provider = choose_conv_provider();
#if defined(EAGLE_WITH_ONEDNN)
  if (provider == "onednn") {  // Note [Convolution providers]: the explicit second provider
    const auto f32 = DType::kFloat32;
    table.replace(opdefs::OpId::kConv2D, DeviceType::kCPU, f32, onednn_conv2d);
    table.replace(opdefs::OpId::k_FusedConv2D, DeviceType::kCPU, f32, onednn_fused_conv2d);
    table.replace(opdefs::OpId::kConv2DBackpropInput, DeviceType::kCPU, f32,
                  onednn_conv2d_backprop_input);
    table.replace(opdefs::OpId::kConv2DBackpropFilter, DeviceType::kCPU, f32,
                  onednn_conv2d_backprop_filter);
    table.replace(opdefs::OpId::kMaxPool, DeviceType::kCPU, f32, onednn_max_pool);
    table.replace(opdefs::OpId::kMaxPoolGrad, DeviceType::kCPU, f32, onednn_max_pool_grad);
    table.replace(opdefs::OpId::kAvgPool, DeviceType::kCPU, f32, onednn_avg_pool);
    table.replace(opdefs::OpId::kAvgPoolGrad, DeviceType::kCPU, f32, onednn_avg_pool_grad);
  }
#endif
  std::lock_guard<std::mutex> lock(active_mutex);
  active() = provider;
}

}  // namespace eagle::cpu
