// CUDA kernels of the NN ops that are not elementwise, with the CPU's semantics
// (src/backends/cpu/nn_kernels.cpp, src/backends/cpu/batch_norm_reference.cpp): one thread per row
// for LogSoftmax and the cross entropies, column sums split over blocks for batch norm's
// per-channel sums, grid-stride loops over elements otherwise (BiasAddGrad, a column sum, is in
// reduction_kernels.cu). 16-bit floats compute in float32, which is also batch norm's statistics
// type for them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "conv_epilogue.hpp"
#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using std::int64_t;

#define EAGLE_GRID_STRIDE(i, n)                                             \
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t{gridDim.x} * blockDim.x)

struct Rows {
  int64_t rows;
  int64_t length;
};
Rows rows_of(const Shape& shape) {
  const int64_t length = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
  return {length == 0 ? 0 : shape.num_elements() / length, length};
}

template <class S, class C = compute_of_t<S>>
__device__ void row_max_and_log_sum(const S* x, int64_t n, C& max, C& log_sum) {
  max = -std::numeric_limits<C>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    const C v = load_value(x[j]);
    max = v > max ? v : max;
  }
  C sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += exp(load_value(x[j]) - max);
  log_sum = log(sum);
}

template <class S>
__global__ void log_softmax_rows(const S* x, S* y, int64_t rows, int64_t length) {
  using C = compute_of_t<S>;
  EAGLE_GRID_STRIDE(row, rows) {
    C max, log_sum;
    row_max_and_log_sum(x + row * length, length, max, log_sum);
    for (int64_t j = 0; j < length; ++j) {
      y[row * length + j] = convert_value<S>(load_value(x[row * length + j]) - max - log_sum);
    }
  }
}

// BiasAdd; with kRelu (and y == x, in place) _FusedConv2D's epilogue: the sum rounded to S, then
// Relu's comparison (Note [Fused convolutions]).
template <class S, bool kRelu = false>
__global__ void bias_add(const S* x, const S* bias, S* y, int64_t n, int64_t channels) {
  EAGLE_GRID_STRIDE(i, n) {
    S v = convert_value<S>(kernels::wrap_add(load_value(x[i]), load_value(bias[i % channels])));
    if (kRelu) v = convert_value<S>(kernels::ReluFn{}(load_value(v)));
    y[i] = v;
  }
}

template <class S>
void launch_bias_add_in_place(const LaunchScope& scope, void* y, const void* bias, int64_t n,
                              int64_t channels, bool relu) {
  S* data = static_cast<S*>(y);
  const unsigned int grid = grid_size(n, scope.device());
  if (relu) {
    bias_add<S, true><<<grid, kBlockSize, 0, scope.stream()>>>(data, static_cast<const S*>(bias),
                                                               data, n, channels);
  } else {
    bias_add<S><<<grid, kBlockSize, 0, scope.stream()>>>(data, static_cast<const S*>(bias), data, n,
                                                         channels);
  }
  check_launch("bias_add (in place)");
}

template <class S>
__global__ void softmax_cross_entropy(const S* logits, const S* labels, S* loss, S* backprop,
                                      int64_t rows, int64_t length) {
  using C = compute_of_t<S>;
  EAGLE_GRID_STRIDE(row, rows) {
    const S* x = logits + row * length;
    const S* p = labels + row * length;
    C max, log_sum;
    row_max_and_log_sum(x, length, max, log_sum);
    C total = 0;
    for (int64_t j = 0; j < length; ++j) {
      const C shifted = load_value(x[j]) - max;
      const C label = load_value(p[j]);
      total += label * (log_sum - shifted);
      backprop[row * length + j] = convert_value<S>(exp(shifted - log_sum) - label);
    }
    loss[row] = convert_value<S>(total);
  }
}

// Note [Sparse label out of range] (src/backends/cpu/nn_kernels.cpp): NaN for the row, as
// TensorFlow's GPU kernel.
template <class S, class L>
__global__ void sparse_softmax_cross_entropy(const S* logits, const L* labels, S* loss, S* backprop,
                                             int64_t rows, int64_t length) {
  using C = compute_of_t<S>;
  EAGLE_GRID_STRIDE(row, rows) {
    const S* x = logits + row * length;
    const int64_t label = static_cast<int64_t>(labels[row]);
    if (label < 0 || label >= length) {
      const C nan = std::numeric_limits<C>::quiet_NaN();
      for (int64_t j = 0; j < length; ++j) backprop[row * length + j] = convert_value<S>(nan);
      loss[row] = convert_value<S>(nan);
      continue;
    }
    C max, log_sum;
    row_max_and_log_sum(x, length, max, log_sum);
    for (int64_t j = 0; j < length; ++j) {
      const C shifted = load_value(x[j]) - max;
      backprop[row * length + j] =
          convert_value<S>(exp(shifted - log_sum) - (j == label ? C{1} : C{0}));
    }
    loss[row] = convert_value<S>(log_sum - (load_value(x[label]) - max));
  }
}

template <class S, class I>
__global__ void one_hot(const I* indices, S* out, int64_t n, int64_t depth, int64_t inner, S on,
                        S off) {
  EAGLE_GRID_STRIDE(i, n) {
    const int64_t in = i % inner;
    const int64_t d = (i / inner) % depth;
    const int64_t o = i / (inner * depth);
    out[i] = static_cast<int64_t>(indices[o * inner + in]) == d ? on : off;
  }
}

template <class S>
__global__ void l2_loss(const S* x, S* out, int64_t n) {
  using C = compute_of_t<S>;
  __shared__ C partial[kBlockSize];
  C sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const C v = load_value(x[i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int width = kBlockSize / 2; width > 0; width /= 2) {
    if (static_cast<int>(threadIdx.x) < width) partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = convert_value<S>(partial[0] / C{2});
}

// ---- Per-channel sums of batch norm ----------------------------------------------------------

// Column sums over the rows of an NHWC tensor's [rows, channels] view, of a value f(r, c) in U:
// block (x, y) gives kBlockSize channels the y-th slice of the rows (neighbouring threads read
// neighbouring addresses); each slice's sums go to partial[y * channels + c], and a second kernel
// adds the slices in order. One thread per channel walking every row was one warp for 32
// channels: tens of thousands of dependent steps at a CNN's batch sizes.
template <class U, class F>
__global__ void column_partials(F f, int64_t rows, int64_t channels, U* partial) {
  const int64_t per_split = (rows + gridDim.y - 1) / gridDim.y;
  const int64_t begin = int64_t{blockIdx.y} * per_split;
  const int64_t end = min(rows, begin + per_split);
  EAGLE_GRID_STRIDE(c, channels) {
    U acc = 0;
#pragma unroll 4  // several loads in flight per thread
    for (int64_t r = begin; r < end; ++r) acc += f(r, c);
    partial[int64_t{blockIdx.y} * channels + c] = acc;
  }
}

template <class U>
__global__ void add_partials(const U* partial, int64_t splits, int64_t channels, U* out) {
  EAGLE_GRID_STRIDE(c, channels) {
    U acc = 0;
    for (int64_t s = 0; s < splits; ++s) acc += partial[s * channels + c];
    out[c] = acc;
  }
}

// out[c] = the sum of f(r, c) over r < rows.
template <class U, class F>
void column_sums(const LaunchScope& scope, F f, int64_t rows, int64_t channels, U* out) {
  CudaDevice& device = scope.device();
  const unsigned int grid = grid_size(channels, device);
  // About 4 blocks per SM, each slice at least 32 rows.
  const int64_t target = int64_t{device.multiprocessor_count()} * 4;
  const int64_t splits = std::max<int64_t>(
      1, std::min<int64_t>({(target + grid - 1) / grid, (rows + 31) / 32, 65535}));
  auto partial = runtime::allocate_tensor(
      device, Shape{static_cast<int64_t>(splits * channels * sizeof(U))}, DType::kBool);
  column_partials<U><<<dim3(grid, static_cast<unsigned>(splits)), kBlockSize, 0, scope.stream()>>>(
      f, rows, channels, partial->data<U>());
  check_launch("column_partials");
  add_partials<U>
      <<<grid, kBlockSize, 0, scope.stream()>>>(partial->data<U>(), splits, channels, out);
  check_launch("add_partials");
}

// The values column_sums adds (functors: nvcc passes no host lambdas to kernels without
// --extended-lambda).
template <class S, class U>
struct Value {  // x
  const S* x;
  int64_t channels;
  __device__ U operator()(int64_t r, int64_t c) const { return load_value(x[r * channels + c]); }
};
template <class S, class U>
struct CenteredSquare {  // (x - mean)^2
  const S* x;
  const U* mean;
  int64_t channels;
  __device__ U operator()(int64_t r, int64_t c) const {
    const U d = load_value(x[r * channels + c]) - mean[c];
    return d * d;
  }
};
template <class S, class U>
struct GradTimesNormalized {  // dy * (x - mean) / sqrt(var + epsilon)
  const S* dy;
  const S* x;
  const U* mean;
  const U* var;
  U epsilon;
  int64_t channels;
  __device__ U operator()(int64_t r, int64_t c) const {
    const U inv = U{1} / sqrt(var[c] + epsilon);
    const int64_t i = r * channels + c;
    return load_value(dy[i]) * (load_value(x[i]) - mean[c]) * inv;
  }
};

template <class U>
__global__ void divide(U* v, int64_t channels, U divisor) {
  EAGLE_GRID_STRIDE(c, channels) { v[c] = v[c] / divisor; }
}

// The statistics batch norm normalizes with, and its running averages: in training, mean and
// squares hold the batch's mean and its sum of squared deviations (else they are unused).
template <class U>
__global__ void batch_norm_statistics(const U* mean_in, const U* squares, const U* old_mean,
                                      const U* old_var, U* batch_mean, U* batch_var, U* saved_mean,
                                      U* saved_var, int64_t n, int64_t channels, bool training,
                                      U factor) {
  EAGLE_GRID_STRIDE(c, channels) {
    U mean, var;
    if (training) {
      mean = mean_in[c];
      var = squares[c] / U(n);
    } else {
      mean = old_mean[c];
      var = old_var[c];
    }
    saved_mean[c] = mean;
    saved_var[c] = var;
    const U correction = n > 1 ? U(n) / U(n - 1) : U{1};
    if (!training) {
      batch_mean[c] = mean;
      batch_var[c] = var;
    } else if (factor == U{1}) {
      batch_mean[c] = mean;
      batch_var[c] = var * correction;
    } else {
      batch_mean[c] = (U{1} - factor) * old_mean[c] + factor * mean;
      batch_var[c] = (U{1} - factor) * old_var[c] + factor * var * correction;
    }
  }
}

template <class S, class U>
__global__ void batch_norm_apply(const S* x, const U* scale, const U* offset, const U* mean,
                                 const U* var, S* y, int64_t total, int64_t channels, U epsilon) {
  EAGLE_GRID_STRIDE(i, total) {
    const int64_t c = i % channels;
    const U inv = U{1} / sqrt(var[c] + epsilon);
    const U s = scale[c] * inv;
    y[i] = convert_value<S>(load_value(x[i]) * s + (offset[c] - mean[c] * s));
  }
}

template <class S, class U>
__global__ void batch_norm_grad_x(const S* dy, const S* x, const U* scale, const U* mean,
                                  const U* var, const U* dscale, const U* doffset, S* dx,
                                  int64_t total, int64_t n, int64_t channels, U epsilon,
                                  bool training) {
  EAGLE_GRID_STRIDE(i, total) {
    const int64_t c = i % channels;
    const U inv = U{1} / sqrt(var[c] + epsilon);
    const U k = scale[c] * inv;
    const U g = load_value(dy[i]);
    if (training) {
      const U x_hat = (load_value(x[i]) - mean[c]) * inv;
      dx[i] = convert_value<S>(k * (g - doffset[c] / U(n) - x_hat * dscale[c] / U(n)));
    } else {
      dx[i] = convert_value<S>(k * g);
    }
  }
}

// ---- Kernel functions ---------------------------------------------------------------------------

template <class T>
struct LogSoftmaxKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const Rows r = rows_of(ctx.output_shape());
    if (r.rows == 0) return;
    log_softmax_rows<S><<<grid_size(r.rows, scope.device()), kBlockSize, 0, scope.stream()>>>(
        ctx.input(0).data<const S>(), out->data<S>(), r.rows, r.length);
    check_launch("log_softmax_rows");
  }
};

template <class T>
struct BiasAddKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    bias_add<S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        ctx.input(0).data<const S>(), ctx.input(1).data<const S>(), out->data<S>(), n,
        ctx.input(1).shape()[0]);
    check_launch("bias_add");
  }
};

template <class T>
struct SoftmaxCrossEntropyKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto loss = ctx.allocate_output(0);
    auto backprop = ctx.allocate_output(1);
    const Rows r = rows_of(ctx.output_shape(1));
    if (r.rows == 0) return;
    softmax_cross_entropy<S><<<grid_size(r.rows, scope.device()), kBlockSize, 0, scope.stream()>>>(
        ctx.input(0).data<const S>(), ctx.input(1).data<const S>(), loss->data<S>(),
        backprop->data<S>(), r.rows, r.length);
    check_launch("softmax_cross_entropy");
  }
};

template <class T>
struct SparseSoftmaxCrossEntropyKernel {
  template <class L>
  static void run_with(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto loss = ctx.allocate_output(0);
    auto backprop = ctx.allocate_output(1);
    const Rows r = rows_of(ctx.output_shape(1));
    if (r.rows == 0) return;
    sparse_softmax_cross_entropy<S, L>
        <<<grid_size(r.rows, scope.device()), kBlockSize, 0, scope.stream()>>>(
            ctx.input(0).data<const S>(), ctx.input(1).data<const L>(), loss->data<S>(),
            backprop->data<S>(), r.rows, r.length);
    check_launch("sparse_softmax_cross_entropy");
  }
  static void run(KernelContext& ctx) {
    if (ctx.input(1).dtype() == DType::kInt32) {
      run_with<std::int32_t>(ctx);
    } else {
      run_with<std::int64_t>(ctx);
    }
  }
};

template <class T>
struct OneHotKernel {
  template <class I>
  static void run_with(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    const auto& a = ctx.attrs<opdefs::OneHotAttrs>();
    auto out = ctx.allocate_output();
    const Shape& shape = ctx.output_shape();
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    int64_t inner = 1;
    for (int i = a.axis + 1; i < shape.rank(); ++i) inner *= shape[i];
    const T on = kernels::convert<T>(a.on_value);
    const T off = kernels::convert<T>(a.off_value);
    S on_s, off_s;
    static_assert(sizeof(S) == sizeof(T));
    std::memcpy(static_cast<void*>(&on_s), &on, sizeof on);
    std::memcpy(static_cast<void*>(&off_s), &off, sizeof off);
    one_hot<S, I><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        ctx.input(0).data<const I>(), out->data<S>(), n, a.depth, inner, on_s, off_s);
    check_launch("one_hot");
  }
  static void run(KernelContext& ctx) {
    if (ctx.input(0).dtype() == DType::kInt32) {
      run_with<std::int32_t>(ctx);
    } else {
      run_with<std::int64_t>(ctx);
    }
  }
};

template <class T>
struct L2LossKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    l2_loss<S><<<1, kBlockSize, 0, scope.stream()>>>(ctx.input(0).data<const S>(), out->data<S>(),
                                                     ctx.input(0).shape().num_elements());
    check_launch("l2_loss");
  }
};

template <class T>
struct FusedBatchNormKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    using U = compute_of_t<S>;
    const LaunchScope scope(ctx);
    const auto& a = ctx.attrs<opdefs::FusedBatchNormAttrs>();
    auto y = ctx.allocate_output(0);
    auto batch_mean = ctx.allocate_output(1);
    auto batch_var = ctx.allocate_output(2);
    auto saved_mean = ctx.allocate_output(3);
    auto saved_var = ctx.allocate_output(4);
    ctx.allocate_output(5);
    const int64_t channels = ctx.output_shape(1)[0];
    if (channels == 0) return;
    const int64_t total = ctx.output_shape(0).num_elements();
    const int64_t n = total / channels;
    const S* x = ctx.input(0).data<const S>();
    // Training: the batch's mean (sum / n), then its squared deviations from it (two passes, as
    // on the CPU), in a scratch tensor freed in stream order.
    std::shared_ptr<runtime::TensorImpl> sums;
    const U* mean = nullptr;
    const U* squares = nullptr;
    if (a.is_training) {
      sums = runtime::allocate_tensor(
          scope.device(), Shape{static_cast<int64_t>(2 * channels * sizeof(U))}, DType::kBool);
      U* m = sums->data<U>();
      U* q = m + channels;
      column_sums<U>(scope, Value<S, U>{x, channels}, n, channels, m);
      divide<U><<<grid_size(channels, scope.device()), kBlockSize, 0, scope.stream()>>>(m, channels,
                                                                                        U(n));
      check_launch("divide");
      column_sums<U>(scope, CenteredSquare<S, U>{x, m, channels}, n, channels, q);
      mean = m;
      squares = q;
    }
    batch_norm_statistics<U>
        <<<grid_size(channels, scope.device()), kBlockSize, 0, scope.stream()>>>(
            mean, squares, ctx.input(3).data<const U>(), ctx.input(4).data<const U>(),
            batch_mean->data<U>(), batch_var->data<U>(), saved_mean->data<U>(),
            saved_var->data<U>(), n, channels, a.is_training, U(a.exponential_avg_factor));
    check_launch("batch_norm_statistics");
    if (total == 0) return;
    batch_norm_apply<S, U><<<grid_size(total, scope.device()), kBlockSize, 0, scope.stream()>>>(
        x, ctx.input(1).data<const U>(), ctx.input(2).data<const U>(), saved_mean->data<U>(),
        saved_var->data<U>(), y->data<S>(), total, channels, U(a.epsilon));
    check_launch("batch_norm_apply");
  }
};

template <class T>
struct FusedBatchNormGradKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    using U = compute_of_t<S>;
    const LaunchScope scope(ctx);
    const auto& a = ctx.attrs<opdefs::FusedBatchNormAttrs>();
    auto dx = ctx.allocate_output(0);
    auto dscale = ctx.allocate_output(1);
    auto doffset = ctx.allocate_output(2);
    ctx.allocate_output(3);
    ctx.allocate_output(4);
    const int64_t channels = ctx.output_shape(1)[0];
    if (channels == 0) return;
    const int64_t total = ctx.output_shape(0).num_elements();
    const int64_t n = total / channels;
    const S* dy = ctx.input(0).data<const S>();
    const S* x = ctx.input(1).data<const S>();
    const U* mean = ctx.input(3).data<const U>();
    const U* var = ctx.input(4).data<const U>();
    column_sums<U>(scope, GradTimesNormalized<S, U>{dy, x, mean, var, U(a.epsilon), channels}, n,
                   channels, dscale->data<U>());
    column_sums<U>(scope, Value<S, U>{dy, channels}, n, channels, doffset->data<U>());
    if (total == 0) return;
    batch_norm_grad_x<S, U><<<grid_size(total, scope.device()), kBlockSize, 0, scope.stream()>>>(
        dy, x, ctx.input(2).data<const U>(), mean, var, dscale->data<U>(), doffset->data<U>(),
        dx->data<S>(), total, n, channels, U(a.epsilon), a.is_training);
    check_launch("batch_norm_grad_x");
  }
};

#undef EAGLE_GRID_STRIDE

}  // namespace

void register_nn_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kLogSoftmax, DeviceType::kGPU, LogSoftmaxKernel>(table);
  kernels::register_op<opdefs::OpId::kBiasAdd, DeviceType::kGPU, BiasAddKernel>(table);
  kernels::register_op<opdefs::OpId::kSoftmaxCrossEntropyWithLogits, DeviceType::kGPU,
                       SoftmaxCrossEntropyKernel>(table);
  kernels::register_op<opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits, DeviceType::kGPU,
                       SparseSoftmaxCrossEntropyKernel>(table);
  kernels::register_op<opdefs::OpId::kOneHot, DeviceType::kGPU, OneHotKernel>(table);
  kernels::register_op<opdefs::OpId::kL2Loss, DeviceType::kGPU, L2LossKernel>(table);
  kernels::register_op<opdefs::OpId::kFusedBatchNormV3, DeviceType::kGPU, FusedBatchNormKernel>(
      table);
  kernels::register_op<opdefs::OpId::kFusedBatchNormGradV3, DeviceType::kGPU,
                       FusedBatchNormGradKernel>(table);
}

void launch_conv_epilogue(const LaunchScope& scope, DType dtype, void* y, const void* bias,
                          int64_t n, int64_t channels, bool relu) {
  if (n == 0) return;
  switch (dtype) {
    case DType::kFloat32:
      return launch_bias_add_in_place<float>(scope, y, bias, n, channels, relu);
    case DType::kFloat64:
      return launch_bias_add_in_place<double>(scope, y, bias, n, channels, relu);
    case DType::kFloat16:
      return launch_bias_add_in_place<storage_t<float16>>(scope, y, bias, n, channels, relu);
    case DType::kBFloat16:
      return launch_bias_add_in_place<storage_t<bfloat16>>(scope, y, bias, n, channels, relu);
    default:
      throw InternalError("launch_conv_epilogue: not a floating dtype");
  }
}

}  // namespace eagle::cuda
