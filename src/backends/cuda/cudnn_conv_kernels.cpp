// Conv2D, its backprops and the pooling ops on CUDA devices through cuDNN's legacy API
// (cudnnConvolutionForward / BackwardData / BackwardFilter, cudnnPoolingForward / Backward).
//
// Note [cuDNN convolutions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// - Activations are NHWC tensors for cuDNN as they are for eagle. cuDNN has no HWIO filter
//   format, so a filter is transposed to OHWI (cuDNN's NHWC filter) on the device first, and a
//   filter gradient back (filters are small beside the activations).
// - A grouped convolution (Note [Grouped convolution]) is one cuDNN call with the group count on
//   the convolution descriptor (cudnnSetConvolutionGroupCount): the filter descriptor has
//   in_channels / groups input channels, and OHWI's O runs over the groups' filters in order, as
//   HWIO's does.
// - cuDNN pads symmetrically; TensorFlow's SAME may pad one more row or column after. Then the
//   input gets that extra row/column of zeros (a copy with cudaMemcpy3DAsync) and the padding
//   before is used on both sides, as TensorFlow does; the input gradient is computed for the
//   padded input and its interior copied out. Pooling takes the padding before and TensorFlow's
//   output size, as TensorFlow's DnnPoolingOp does.
// - Algorithms come from cudnnGet*Algorithm_v7 (heuristics, nothing is run), the first that
//   succeeds within the workspace limit, cached per (kind, dtype, geometry, TF32, layout) on
//   each device. The workspace is a tensor from the device's BFC allocator, freed in stream
//   order. With EAGLE_CUDNN_AUTOTUNE=1 (TensorFlow's TF_CUDNN_USE_AUTOTUNE, on by default
//   there) the first call of a shape runs and times every algorithm instead
//   (cudnnFind*AlgorithmEx on the op's own buffers, the workspace limit allocated once for it)
//   and keeps the fastest with its math type. Off by default until it is timed on a GPU:
//   docs/performance.md's H200 section has the CNN step it is meant to speed up.
// - float32 may use TF32 tensor cores (CUDNN_DEFAULT_MATH) while
//   config::enable_tensor_float_32_execution is on (TensorFlow's default) and CUDNN_FMA_MATH
//   otherwise; float16 and bfloat16 accumulate in float32, float64 in float64.
// - cuDNN has no NHWC algorithm for float64's backprops (seen on an H200 with cuDNN 9: "no
//   backward data algorithm"), so those run in NCHW, as TensorFlow's GPU kernels run whatever
//   cuDNN lacks in NHWC: activations transposed to NCHW and the filter to OIHW (cuDNN's NCHW
//   filter) on the device, the result transposed back. The forward pass has NHWC algorithms.
// - EAGLE_CUDNN_LAYOUT=nchw runs every convolution that way, the forward pass too: TensorFlow's
//   layout optimizer moves float32 convolutions to NCHW on a GPU ("cuDNN prefers NCHW"), and
//   PyTorch's users run NCHW. Off by default until timed beside NHWC on a GPU
//   (scripts/gpu_check.sh times the CNN step both ways; the H200's batch-128 step was 0.46x
//   PyTorch's in NHWC).
// - MaxPool uses CUDNN_POOLING_MAX_DETERMINISTIC and CUDNN_PROPAGATE_NAN (Note [MaxPool and
//   NaN] in src/backends/cpu/conv_reference.cpp); AvgPool CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_-
//   PADDING, TensorFlow's divisor for SAME.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

#include "conv_epilogue.hpp"
#include "cuda_kernels.hpp"
#include "cudnn_library.hpp"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "layout_kernels.hpp"
#include "memory/bfc_allocator.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/flags.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using std::int64_t;

// One cuDNN handle per logical GPU, bound to its stream, with that device's algorithm cache.
// Made on first use and kept for the life of the process, as the devices are (Note [Runtime
// lifetime]).
// A convolution algorithm chosen for one shape: cuDNN's enum value, its workspace, and the math
// type autotuning measured it with (-1: the descriptor's own).
struct Algorithm {
  int algo = 0;
  std::size_t workspace = 0;
  int math = -1;
};

// EAGLE_CUDNN_AUTOTUNE=1 (or "true"): Note [cuDNN convolutions]. Read once.
bool autotune() {
  static const bool on = [] {
    const char* v = std::getenv("EAGLE_CUDNN_AUTOTUNE");
    return v != nullptr && (std::string_view(v) == "1" || std::string_view(v) == "true");
  }();
  return on;
}

// EAGLE_CUDNN_LAYOUT=nchw (or nhwc, the default): Note [cuDNN convolutions]. Read once; another
// value is an InvalidArgumentError from the first convolution.
bool nchw_requested() {
  static const int nchw = [] {
    const char* v = std::getenv("EAGLE_CUDNN_LAYOUT");
    if (v == nullptr || *v == '\0' || std::string_view(v) == "nhwc") return 0;
    if (std::string_view(v) == "nchw") return 1;
    return -1;
  }();
  if (nchw < 0) {
    throw InvalidArgumentError(fmt::format("EAGLE_CUDNN_LAYOUT={}: expected nhwc or nchw",
                                           std::getenv("EAGLE_CUDNN_LAYOUT")));
  }
  return nchw == 1;
}

struct CudnnHandle {
  cudnnHandle_t handle = nullptr;
  std::mutex mutex;  // a handle must not be used by two threads at once
  std::map<std::array<int64_t, 20>, Algorithm> algorithms;
};

CudnnHandle& handle_for(CudaDevice& device, std::string_view op) {
  static std::mutex mutex;
  static std::map<CudaDevice*, std::unique_ptr<CudnnHandle>> handles;
  const CudnnLibrary& api = cudnn(op);
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CudnnHandle>& h = handles[&device];
  if (!h) {
    auto made = std::make_unique<CudnnHandle>();
    EAGLE_CUDNN_CHECK(api.create(&made->handle));
    EAGLE_CUDNN_CHECK(api.set_stream(made->handle, device.stream()));
    h = std::move(made);
  }
  return *h;
}

template <class T>
cudnnDataType_t data_type() {
  if constexpr (std::is_same_v<T, double>) {
    return CUDNN_DATA_DOUBLE;
  } else if constexpr (std::is_same_v<T, float>) {
    return CUDNN_DATA_FLOAT;
  } else if constexpr (std::is_same_v<T, float16>) {
    return CUDNN_DATA_HALF;
  } else {
    static_assert(std::is_same_v<T, bfloat16>);
    return CUDNN_DATA_BFLOAT16;
  }
}

template <class T>
using Scalar = std::conditional_t<std::is_same_v<T, double>, double, float>;

// RAII descriptors.
struct TensorDesc {
  const CudnnLibrary& api;
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(const CudnnLibrary& a, cudnnDataType_t type, int64_t n, int64_t h, int64_t w,
             int64_t c, cudnnTensorFormat_t format = CUDNN_TENSOR_NHWC)
      : api(a) {
    EAGLE_CUDNN_CHECK(api.create_tensor(&d));
    EAGLE_CUDNN_CHECK(api.set_tensor_4d(d, format, type, static_cast<int>(n), static_cast<int>(c),
                                        static_cast<int>(h), static_cast<int>(w)));
  }
  ~TensorDesc() { api.destroy_tensor(d); }
};
struct FilterDesc {
  const CudnnLibrary& api;
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc(const CudnnLibrary& a, cudnnDataType_t type, const opdefs::Conv2DAttrs& g,
             cudnnTensorFormat_t format)
      : api(a) {
    EAGLE_CUDNN_CHECK(api.create_filter(&d));
    EAGLE_CUDNN_CHECK(api.set_filter_4d(
        d, type, format, static_cast<int>(g.out_channels), static_cast<int>(g.group_in_channels()),
        static_cast<int>(g.filter_height), static_cast<int>(g.filter_width)));
  }
  ~FilterDesc() { api.destroy_filter(d); }
};
struct ConvDesc {
  const CudnnLibrary& api;
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc(const CudnnLibrary& a, cudnnDataType_t type, const opdefs::Conv2DAttrs& g, bool tf32)
      : api(a) {
    EAGLE_CUDNN_CHECK(api.create_convolution(&d));
    const cudnnDataType_t compute =
        type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    EAGLE_CUDNN_CHECK(api.set_convolution_2d(
        d, static_cast<int>(g.pad_top), static_cast<int>(g.pad_left), static_cast<int>(g.stride_h),
        static_cast<int>(g.stride_w), static_cast<int>(g.dilation_h),
        static_cast<int>(g.dilation_w), CUDNN_CROSS_CORRELATION, compute));
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    if (type == CUDNN_DATA_FLOAT && !tf32) math = CUDNN_FMA_MATH;
    if (type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16) math = CUDNN_TENSOR_OP_MATH;
    EAGLE_CUDNN_CHECK(api.set_math_type(d, math));
    EAGLE_CUDNN_CHECK(api.set_group_count(d, static_cast<int>(g.groups)));
  }
  ~ConvDesc() { api.destroy_convolution(d); }
};

// The part of a convolution cuDNN sees: the input grown by the extra SAME row/column
// (Note [cuDNN convolutions]) and symmetric padding.
struct Symmetric {
  opdefs::Conv2DAttrs g;
  int64_t extra_h, extra_w;
  bool padded() const { return extra_h > 0 || extra_w > 0; }
};

Symmetric symmetric(const opdefs::Conv2DAttrs& a) {
  Symmetric s{a, a.pad_bottom - a.pad_top, a.pad_right - a.pad_left};
  s.g.in_height += s.extra_h;
  s.g.in_width += s.extra_w;
  s.g.pad_bottom = s.g.pad_top;
  s.g.pad_right = s.g.pad_left;
  return s;
}

// Copies [n, h, w, c] into the top-left of a zeroed [n, h + eh, w + ew, c] buffer, or back.
void copy_into_padded(const LaunchScope& scope, const void* in, void* padded, int64_t n, int64_t h,
                      int64_t w, int64_t c, int64_t eh, int64_t ew, std::size_t element,
                      bool to_padded) {
  const std::size_t row = static_cast<std::size_t>(w * c) * element;
  const std::size_t padded_row = static_cast<std::size_t>((w + ew) * c) * element;
  if (to_padded) {
    EAGLE_CUDA_CHECK(cudaMemsetAsync(padded, 0, padded_row * static_cast<std::size_t>(n * (h + eh)),
                                     scope.stream()));
  }
  cudaMemcpy3DParms p{};
  cudaPitchedPtr small =
      cudaPitchedPtr{const_cast<void*>(in), row, row, static_cast<std::size_t>(h)};
  cudaPitchedPtr big =
      cudaPitchedPtr{padded, padded_row, padded_row, static_cast<std::size_t>(h + eh)};
  p.srcPtr = to_padded ? small : big;
  p.dstPtr = to_padded ? big : small;
  p.extent = cudaExtent{row, static_cast<std::size_t>(h), static_cast<std::size_t>(n)};
  p.kind = cudaMemcpyDeviceToDevice;
  EAGLE_CUDA_CHECK(cudaMemcpy3DAsync(&p, scope.stream()));
}

std::shared_ptr<runtime::TensorImpl> scratch(const LaunchScope& scope, std::size_t bytes) {
  return runtime::allocate_tensor(
      scope.device(), Shape{static_cast<int64_t>(std::max<std::size_t>(bytes, 1))}, DType::kBool);
}

std::array<int64_t, 20> conv_key(int kind, cudnnDataType_t type, bool tf32,
                                 const opdefs::Conv2DAttrs& g, cudnnTensorFormat_t format) {
  return {kind,           type,           tf32,          g.batch,
          g.in_height,    g.in_width,     g.in_channels, g.filter_height,
          g.filter_width, g.out_channels, g.out_height,  g.out_width,
          g.stride_h,     g.stride_w,     g.dilation_h,  g.dilation_w,
          g.pad_top,      g.pad_left,     g.groups,      format};
}

// The workspace an algorithm may take: 1/8 of the device's memory limit, at most 1 GiB.
std::size_t workspace_limit(const LaunchScope& scope) {
  std::size_t limit = std::size_t{1} << 30;
  if (memory::BfcAllocator* allocator = scope.device().bfc_allocator()) {
    limit = std::min<std::size_t>(limit, allocator->stats().bytes_limit / 8);
  }
  return limit;
}

// The first choice that succeeds within the workspace limit (Perf is one of cuDNN's
// cudnnConvolution*AlgoPerf_t, in cuDNN's order: the heuristics' preference, or measured time);
// `measured` keeps the math type the time was measured with.
template <class Perf>
Algorithm pick(const Perf* perfs, int count, std::size_t limit, const char* what, bool measured) {
  for (int i = 0; i < count; ++i) {
    if (perfs[i].status == CUDNN_STATUS_SUCCESS && perfs[i].memory <= limit) {
      return {static_cast<int>(perfs[i].algo), perfs[i].memory,
              measured ? static_cast<int>(perfs[i].mathType) : -1};
    }
  }
  throw InternalError(fmt::format("cuDNN has no {} algorithm for this convolution", what));
}

enum ConvKind { kForward, kBackwardData, kBackwardFilter };

// The layout cuDNN gets for `kind` and T (Note [cuDNN convolutions]): NCHW tensors with OIHW
// filters for float64's backprops and under EAGLE_CUDNN_LAYOUT=nchw, NHWC with OHWI otherwise.
template <class T>
cudnnTensorFormat_t conv_format(ConvKind kind) {
  const bool nchw = (std::is_same_v<T, double> && kind != kForward) || nchw_requested();
  return nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
}

// Runs one cuDNN convolution call for `kind` with the cached algorithm and a fresh workspace;
// x, y and out are in conv_format<T>(kind)'s layout, w in OHWI (NHWC) or OIHW (NCHW).
template <class T>
void run_convolution(const KernelContext& ctx, const LaunchScope& scope, ConvKind kind,
                     const opdefs::Conv2DAttrs& g, const void* x, const void* w, const void* y,
                     void* out) {
  const char* op = opdefs::op_name(ctx.op()).data();
  const CudnnLibrary& api = cudnn(op);
  CudnnHandle& h = handle_for(scope.device(), op);
  const cudnnDataType_t type = data_type<T>();
  const bool tf32 = runtime::g_tensor_float_32_execution.load(std::memory_order_relaxed);
  const cudnnTensorFormat_t format = conv_format<T>(kind);
  TensorDesc xd(api, type, g.batch, g.in_height, g.in_width, g.in_channels, format);
  TensorDesc yd(api, type, g.batch, g.out_height, g.out_width, g.out_channels, format);
  FilterDesc wd(api, type, g, format);
  ConvDesc cd(api, type, g, tf32);
  std::lock_guard<std::mutex> lock(h.mutex);
  const auto key = conv_key(kind, type, tf32, g, format);
  auto it = h.algorithms.find(key);
  if (it == h.algorithms.end()) {
    const std::size_t limit = workspace_limit(scope);
    // Autotuning's workspace: the limit, once per shape; where even that does not fit, the
    // heuristics choose.
    std::shared_ptr<runtime::TensorImpl> tuning;
    if (autotune()) {
      try {
        tuning = scratch(scope, limit);
      } catch (const ResourceExhaustedError&) {
      }
    }
    int count = 0;
    Algorithm chosen;
    if (kind == kForward) {
      cudnnConvolutionFwdAlgoPerf_t perfs[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      if (tuning) {
        EAGLE_CUDNN_CHECK(api.find_forward(h.handle, xd.d, x, wd.d, w, cd.d, yd.d, out,
                                           CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perfs,
                                           tuning->data(), limit));
      } else {
        EAGLE_CUDNN_CHECK(api.forward_algorithms(h.handle, xd.d, wd.d, cd.d, yd.d,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perfs));
      }
      chosen = pick(perfs, count, limit, "forward", tuning != nullptr);
    } else if (kind == kBackwardData) {
      cudnnConvolutionBwdDataAlgoPerf_t perfs[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      if (tuning) {
        EAGLE_CUDNN_CHECK(api.find_backward_data(h.handle, wd.d, w, yd.d, y, cd.d, xd.d, out,
                                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count,
                                                 perfs, tuning->data(), limit));
      } else {
        EAGLE_CUDNN_CHECK(api.backward_data_algorithms(h.handle, wd.d, yd.d, cd.d, xd.d,
                                                       CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                       &count, perfs));
      }
      chosen = pick(perfs, count, limit, "backward data", tuning != nullptr);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perfs[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      if (tuning) {
        EAGLE_CUDNN_CHECK(api.find_backward_filter(h.handle, xd.d, x, yd.d, y, cd.d, wd.d, out,
                                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count,
                                                   perfs, tuning->data(), limit));
      } else {
        EAGLE_CUDNN_CHECK(api.backward_filter_algorithms(h.handle, xd.d, yd.d, cd.d, wd.d,
                                                         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                         &count, perfs));
      }
      chosen = pick(perfs, count, limit, "backward filter", tuning != nullptr);
    }
    it = h.algorithms.emplace(key, chosen).first;
  }
  const auto [algo, bytes, math] = it->second;
  if (math >= 0) EAGLE_CUDNN_CHECK(api.set_math_type(cd.d, static_cast<cudnnMathType_t>(math)));
  const auto workspace = scratch(scope, bytes);
  const Scalar<T> one = 1, zero = 0;
  if (kind == kForward) {
    EAGLE_CUDNN_CHECK(api.forward(h.handle, &one, xd.d, x, wd.d, w, cd.d,
                                  static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace->data(),
                                  bytes, &zero, yd.d, out));
  } else if (kind == kBackwardData) {
    EAGLE_CUDNN_CHECK(api.backward_data(h.handle, &one, wd.d, w, yd.d, y, cd.d,
                                        static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                                        workspace->data(), bytes, &zero, xd.d, out));
  } else {
    EAGLE_CUDNN_CHECK(api.backward_filter(h.handle, &one, xd.d, x, yd.d, y, cd.d,
                                          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                          workspace->data(), bytes, &zero, wd.d, out));
  }
}

// The HWIO filter transposed by `perm` into a scratch tensor: {3, 0, 1, 2} gives OHWI (cuDNN's
// NHWC filter layout), {3, 2, 0, 1} OIHW (its NCHW one).
std::shared_ptr<runtime::TensorImpl> transposed_filter(const LaunchScope& scope, const void* hwio,
                                                       const opdefs::Conv2DAttrs& a,
                                                       std::size_t element,
                                                       const std::vector<int>& perm) {
  auto out = scratch(scope, static_cast<std::size_t>(a.filter_height * a.filter_width *
                                                     a.group_in_channels() * a.out_channels) *
                                element);
  launch_transpose(scope, hwio,
                   Shape{a.filter_height, a.filter_width, a.group_in_channels(), a.out_channels},
                   perm, element, out->data());
  return out;
}

// The filter in the layout run_convolution takes for `kind`.
template <class T>
std::shared_ptr<runtime::TensorImpl> cudnn_filter(const LaunchScope& scope, const void* hwio,
                                                  const opdefs::Conv2DAttrs& a, ConvKind kind) {
  return transposed_filter(scope, hwio, a, sizeof(T),
                           conv_format<T>(kind) == CUDNN_TENSOR_NCHW
                               ? std::vector<int>{3, 2, 0, 1}
                               : std::vector<int>{3, 0, 1, 2});
}

// [n, h, w, c] -> a new [n, c, h, w] scratch tensor.
std::shared_ptr<runtime::TensorImpl> nhwc_to_nchw(const LaunchScope& scope, const void* nhwc,
                                                  int64_t n, int64_t h, int64_t w, int64_t c,
                                                  std::size_t element) {
  auto out = scratch(scope, static_cast<std::size_t>(n * h * w * c) * element);
  launch_transpose(scope, nhwc, Shape{n, h, w, c}, {0, 3, 1, 2}, element, out->data());
  return out;
}

bool empty(const KernelContext& ctx) {
  if (ctx.output_shape().num_elements() == 0) return true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape().num_elements() == 0) return true;
  }
  return false;
}

void zero_output(const LaunchScope& scope, runtime::TensorImpl* out, const KernelContext& ctx,
                 std::size_t element) {
  const auto bytes = static_cast<std::size_t>(ctx.output_shape().num_elements()) * element;
  if (bytes > 0) EAGLE_CUDA_CHECK(cudaMemsetAsync(out->data(), 0, bytes, scope.stream()));
}

// Conv2D of inputs 0 and 1 into `out` (nonempty).
template <class T>
void conv2d_forward(const KernelContext& ctx, const LaunchScope& scope,
                    const opdefs::Conv2DAttrs& a, runtime::TensorImpl* out) {
  const Symmetric s = symmetric(a);
  const void* x = ctx.input(0).data();
  std::shared_ptr<runtime::TensorImpl> padded;
  if (s.padded()) {
    padded = scratch(
        scope, static_cast<std::size_t>(a.batch * s.g.in_height * s.g.in_width * a.in_channels) *
                   sizeof(T));
    copy_into_padded(scope, x, padded->data(), a.batch, a.in_height, a.in_width, a.in_channels,
                     s.extra_h, s.extra_w, sizeof(T), true);
    x = padded->data();
  }
  const auto filter = cudnn_filter<T>(scope, ctx.input(1).data(), a, kForward);
  if (conv_format<T>(kForward) == CUDNN_TENSOR_NCHW) {
    const auto x_nchw =
        nhwc_to_nchw(scope, x, a.batch, s.g.in_height, s.g.in_width, a.in_channels, sizeof(T));
    const auto y_nchw =
        scratch(scope, static_cast<std::size_t>(ctx.output_shape().num_elements()) * sizeof(T));
    run_convolution<T>(ctx, scope, kForward, s.g, x_nchw->data(), filter->data(), nullptr,
                       y_nchw->data());
    launch_transpose(scope, y_nchw->data(),
                     Shape{a.batch, a.out_channels, a.out_height, a.out_width}, {0, 2, 3, 1},
                     sizeof(T), out->data());
    return;
  }
  run_convolution<T>(ctx, scope, kForward, s.g, x, filter->data(), nullptr, out->data());
}

template <class T>
struct Conv2DKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    if (empty(ctx)) return zero_output(scope, out, ctx, sizeof(T));
    conv2d_forward<T>(ctx, scope, ctx.attrs<opdefs::Conv2DAttrs>(), out);
  }
};

// _FusedConv2D: Conv2D's kernel, then BiasAdd and Relu in one pass over its output (Note [Fused
// convolutions]).
template <class T>
struct FusedConv2DKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const auto& f = ctx.attrs<opdefs::FusedConv2DAttrs>();
    if (empty(ctx)) {  // an empty input or filter: the convolution's sums are zeros
      zero_output(scope, out, ctx, sizeof(T));
    } else {
      conv2d_forward<T>(ctx, scope, f.conv, out);
    }
    launch_conv_epilogue(scope, ctx.output_dtype(), out->data(), ctx.input(2).data(), n,
                         f.conv.out_channels, f.relu);
  }
};

template <class T>
struct Conv2DBackpropInputKernel {  // inputs: filter, out_backprop
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    if (empty(ctx)) return zero_output(scope, out, ctx, sizeof(T));
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    const Symmetric s = symmetric(a);
    const auto filter = cudnn_filter<T>(scope, ctx.input(0).data(), a, kBackwardData);
    std::shared_ptr<runtime::TensorImpl> padded;
    void* dx = out->data();
    const std::size_t padded_bytes =
        static_cast<std::size_t>(a.batch * s.g.in_height * s.g.in_width * a.in_channels) *
        sizeof(T);
    if (s.padded()) {
      padded = scratch(scope, padded_bytes);
      dx = padded->data();
    }
    if (conv_format<T>(kBackwardData) == CUDNN_TENSOR_NCHW) {
      const auto dy = nhwc_to_nchw(scope, ctx.input(1).data(), a.batch, a.out_height, a.out_width,
                                   a.out_channels, sizeof(T));
      const auto dx_nchw = scratch(scope, padded_bytes);
      run_convolution<T>(ctx, scope, kBackwardData, s.g, nullptr, filter->data(), dy->data(),
                         dx_nchw->data());
      launch_transpose(scope, dx_nchw->data(),
                       Shape{a.batch, a.in_channels, s.g.in_height, s.g.in_width}, {0, 2, 3, 1},
                       sizeof(T), dx);
    } else {
      run_convolution<T>(ctx, scope, kBackwardData, s.g, nullptr, filter->data(),
                         ctx.input(1).data(), dx);
    }
    if (s.padded()) {
      copy_into_padded(scope, out->data(), padded->data(), a.batch, a.in_height, a.in_width,
                       a.in_channels, s.extra_h, s.extra_w, sizeof(T), false);
    }
  }
};

template <class T>
struct Conv2DBackpropFilterKernel {  // inputs: input, out_backprop
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    if (empty(ctx)) return zero_output(scope, out, ctx, sizeof(T));
    const auto& a = ctx.attrs<opdefs::Conv2DAttrs>();
    const Symmetric s = symmetric(a);
    const void* x = ctx.input(0).data();
    std::shared_ptr<runtime::TensorImpl> padded;
    if (s.padded()) {
      padded = scratch(
          scope, static_cast<std::size_t>(a.batch * s.g.in_height * s.g.in_width * a.in_channels) *
                     sizeof(T));
      copy_into_padded(scope, x, padded->data(), a.batch, a.in_height, a.in_width, a.in_channels,
                       s.extra_h, s.extra_w, sizeof(T), true);
      x = padded->data();
    }
    const auto filter_grad =
        scratch(scope, static_cast<std::size_t>(ctx.output_shape().num_elements()) * sizeof(T));
    if (conv_format<T>(kBackwardFilter) == CUDNN_TENSOR_NCHW) {
      const auto x_nchw =
          nhwc_to_nchw(scope, x, a.batch, s.g.in_height, s.g.in_width, a.in_channels, sizeof(T));
      const auto dy = nhwc_to_nchw(scope, ctx.input(1).data(), a.batch, a.out_height, a.out_width,
                                   a.out_channels, sizeof(T));
      run_convolution<T>(ctx, scope, kBackwardFilter, s.g, x_nchw->data(), nullptr, dy->data(),
                         filter_grad->data());
      // OIHW -> HWIO
      launch_transpose(
          scope, filter_grad->data(),
          Shape{a.out_channels, a.group_in_channels(), a.filter_height, a.filter_width},
          {2, 3, 1, 0}, sizeof(T), out->data());
    } else {
      run_convolution<T>(ctx, scope, kBackwardFilter, s.g, x, nullptr, ctx.input(1).data(),
                         filter_grad->data());
      // OHWI -> HWIO
      launch_transpose(
          scope, filter_grad->data(),
          Shape{a.out_channels, a.filter_height, a.filter_width, a.group_in_channels()},
          {1, 2, 3, 0}, sizeof(T), out->data());
    }
  }
};

struct PoolDesc {
  const CudnnLibrary& api;
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc(const CudnnLibrary& a, cudnnPoolingMode_t mode, const opdefs::Pool2DAttrs& g) : api(a) {
    EAGLE_CUDNN_CHECK(api.create_pooling(&d));
    EAGLE_CUDNN_CHECK(api.set_pooling_2d(d, mode, CUDNN_PROPAGATE_NAN, static_cast<int>(g.window_h),
                                         static_cast<int>(g.window_w), static_cast<int>(g.pad_top),
                                         static_cast<int>(g.pad_left), static_cast<int>(g.stride_h),
                                         static_cast<int>(g.stride_w)));
  }
  ~PoolDesc() { api.destroy_pooling(d); }
};

template <class T>
void run_pooling(KernelContext& ctx, cudnnPoolingMode_t mode, bool backward) {
  const LaunchScope scope(ctx);
  auto out = ctx.allocate_output();
  if (empty(ctx)) return zero_output(scope, out, ctx, sizeof(T));
  const auto& g = ctx.attrs<opdefs::Pool2DAttrs>();
  const char* op = opdefs::op_name(ctx.op()).data();
  const CudnnLibrary& api = cudnn(op);
  CudnnHandle& h = handle_for(scope.device(), op);
  const cudnnDataType_t type = data_type<T>();
  TensorDesc xd(api, type, g.batch, g.in_height, g.in_width, g.channels);
  TensorDesc yd(api, type, g.batch, g.out_height, g.out_width, g.channels);
  PoolDesc pd(api, mode, g);
  const Scalar<T> one = 1, zero = 0;
  std::lock_guard<std::mutex> lock(h.mutex);
  if (!backward) {
    EAGLE_CUDNN_CHECK(api.pooling_forward(h.handle, pd.d, &one, xd.d, ctx.input(0).data(), &zero,
                                          yd.d, out->data()));
  } else if (mode == CUDNN_POOLING_MAX_DETERMINISTIC) {  // orig_input, orig_output, grad
    EAGLE_CUDNN_CHECK(api.pooling_backward(h.handle, pd.d, &one, yd.d, ctx.input(1).data(), yd.d,
                                           ctx.input(2).data(), xd.d, ctx.input(0).data(), &zero,
                                           xd.d, out->data()));
  } else {  // AvgPoolGrad reads neither y nor x; cuDNN still takes descriptors and pointers
    EAGLE_CUDNN_CHECK(api.pooling_backward(h.handle, pd.d, &one, yd.d, ctx.input(0).data(), yd.d,
                                           ctx.input(0).data(), xd.d, out->data(), &zero, xd.d,
                                           out->data()));
  }
}

template <class T>
struct MaxPoolKernel {
  static void run(KernelContext& ctx) {
    run_pooling<T>(ctx, CUDNN_POOLING_MAX_DETERMINISTIC, false);
  }
};
template <class T>
struct MaxPoolGradKernel {
  static void run(KernelContext& ctx) {
    run_pooling<T>(ctx, CUDNN_POOLING_MAX_DETERMINISTIC, true);
  }
};
template <class T>
struct AvgPoolKernel {
  static void run(KernelContext& ctx) {
    run_pooling<T>(ctx, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, false);
  }
};
template <class T>
struct AvgPoolGradKernel {
  static void run(KernelContext& ctx) {
    run_pooling<T>(ctx, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, true);
  }
};

}  // namespace

void register_conv_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kConv2D, DeviceType::kGPU, Conv2DKernel>(table);
  kernels::register_op<opdefs::OpId::k_FusedConv2D, DeviceType::kGPU, FusedConv2DKernel>(table);
  kernels::register_op<opdefs::OpId::kConv2DBackpropInput, DeviceType::kGPU,
                       Conv2DBackpropInputKernel>(table);
  kernels::register_op<opdefs::OpId::kConv2DBackpropFilter, DeviceType::kGPU,
                       Conv2DBackpropFilterKernel>(table);
  kernels::register_op<opdefs::OpId::kMaxPool, DeviceType::kGPU, MaxPoolKernel>(table);
  kernels::register_op<opdefs::OpId::kMaxPoolGrad, DeviceType::kGPU, MaxPoolGradKernel>(table);
  kernels::register_op<opdefs::OpId::kAvgPool, DeviceType::kGPU, AvgPoolKernel>(table);
  kernels::register_op<opdefs::OpId::kAvgPoolGrad, DeviceType::kGPU, AvgPoolGradKernel>(table);
}

}  // namespace eagle::cuda
