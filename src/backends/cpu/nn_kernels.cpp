// CPU kernels of the NN ops that are not elementwise: LogSoftmax, BiasAdd, BiasAddGrad, the two
// softmax cross entropies, OneHot, StopGradient and L2Loss (batch norm:
// cpu/batch_norm_kernels.cpp). Reference loops over rows or channels (these ops are memory-bound);
// 16-bit floats compute in float32 (Note [Half precision on the CPU]). The CUDA kernels
// (backends/cuda/nn_kernels.cu) compute the same sums in the same order per row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using std::int64_t;

// The last axis's length (1 for a scalar) and the number of rows.
struct Rows {
  int64_t rows;
  int64_t length;
};
Rows rows_of(const Shape& shape) {
  const int64_t length = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
  return {length == 0 ? 0 : shape.num_elements() / length, length};
}

// log(sum(exp(x - max))) and max of one row, in the compute type.
template <class T, class C = compute_t<T>>
void row_max_and_log_sum(const T* x, int64_t n, C& max, C& log_sum) {
  max = -std::numeric_limits<C>::infinity();
  for (int64_t j = 0; j < n; ++j) max = C(x[j]) > max ? C(x[j]) : max;
  C sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += std::exp(C(x[j]) - max);
  log_sum = std::log(sum);
}

template <class T>
struct LogSoftmaxKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const T* x = ctx.input(0).data<const T>();
    T* y = ctx.allocate_output()->data<T>();
    const Rows r = rows_of(ctx.output_shape());
    for (int64_t row = 0; row < r.rows; ++row) {
      C max, log_sum;
      row_max_and_log_sum(x + row * r.length, r.length, max, log_sum);
      for (int64_t j = 0; j < r.length; ++j) {
        y[row * r.length + j] = convert<T>(C(x[row * r.length + j]) - max - log_sum);
      }
    }
  }
};

template <class T>
struct BiasAddKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const T* x = ctx.input(0).data<const T>();
    const T* bias = ctx.input(1).data<const T>();
    T* y = ctx.allocate_output()->data<T>();
    const Rows r = rows_of(ctx.output_shape());
    // Rows split over the intra-op threads (each element computed once, as on one thread).
    parallel_for(r.rows, 2 * r.length * static_cast<int64_t>(sizeof(T)),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t row = begin; row < end; ++row) {
                     const T* in = x + row * r.length;
                     T* out = y + row * r.length;
                     for (int64_t j = 0; j < r.length; ++j) {
                       out[j] = convert<T>(wrap_add(C(in[j]), C(bias[j])));
                     }
                   }
                 });
  }
};

// BiasAddGrad's rows are summed in blocks of this many, each block's sums in row order, the
// blocks' sums then added in block order: the same bits on any number of threads (Note
// [Intra-op parallelism]), the blocks spread over the threads.
constexpr int64_t kBiasGradRowBlock = 512;

template <class T>
struct BiasAddGradKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const runtime::TensorImpl& g = ctx.input(0);
    const Rows r = rows_of(g.shape());
    const int64_t channels = ctx.output_shape()[0];
    const T* in = g.data<const T>();
    const int64_t blocks = (r.rows + kBiasGradRowBlock - 1) / kBiasGradRowBlock;
    std::vector<C> partials(static_cast<std::size_t>(blocks * channels), C{0});
    parallel_for(blocks, kBiasGradRowBlock * channels * static_cast<int64_t>(sizeof(T)),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t b = begin; b < end; ++b) {
                     C* sum = partials.data() + b * channels;
                     const int64_t last = std::min(r.rows, (b + 1) * kBiasGradRowBlock);
                     for (int64_t row = b * kBiasGradRowBlock; row < last; ++row) {
                       const T* line = in + row * channels;
                       for (int64_t j = 0; j < channels; ++j) sum[j] = wrap_add(sum[j], C(line[j]));
                     }
                   }
                 });
    std::vector<C> sums(static_cast<std::size_t>(channels), C{0});
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t j = 0; j < channels; ++j)
        sums[j] = wrap_add(sums[j], partials[b * channels + j]);
    }
    T* out = ctx.allocate_output()->data<T>();
    for (int64_t j = 0; j < channels; ++j) out[j] = convert<T>(sums[j]);
  }
};

// SoftmaxCrossEntropyWithLogits(logits [N, C], labels [N, C]) -> loss [N], backprop [N, C]:
// loss = sum(labels * (log_sum - (logits - max))), backprop = softmax(logits) - labels.
template <class T>
struct SoftmaxCrossEntropyKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const T* logits = ctx.input(0).data<const T>();
    const T* labels = ctx.input(1).data<const T>();
    T* loss = ctx.allocate_output(0)->data<T>();
    T* backprop = ctx.allocate_output(1)->data<T>();
    const Rows r = rows_of(ctx.output_shape(1));
    for (int64_t row = 0; row < r.rows; ++row) {
      const T* x = logits + row * r.length;
      const T* p = labels + row * r.length;
      C max, log_sum;
      row_max_and_log_sum(x, r.length, max, log_sum);
      C total = 0;
      for (int64_t j = 0; j < r.length; ++j) {
        const C shifted = C(x[j]) - max;
        total += C(p[j]) * (log_sum - shifted);
        backprop[row * r.length + j] = convert<T>(std::exp(shifted - log_sum) - C(p[j]));
      }
      loss[row] = convert<T>(total);
    }
  }
};

// Note [Sparse label out of range]: TensorFlow's CPU kernel refuses a label outside [0, classes)
// with the InvalidArgumentError below (every label listed); its GPU kernel gives NaN for that
// row's loss and backprop instead. eagle's CPU kernel (and a simulated GPU, which runs it) raises
// the error; the CUDA kernel writes NaN, as TensorFlow's GPU kernel does.
template <class T>
struct SparseSoftmaxCrossEntropyKernel {
  template <class L>
  static void run_with(KernelContext& ctx) {
    using C = compute_t<T>;
    const T* logits = ctx.input(0).data<const T>();
    const L* labels = ctx.input(1).data<const L>();
    const Rows r = rows_of(ctx.output_shape(1));
    for (int64_t row = 0; row < r.rows; ++row) {
      if (labels[row] < 0 || labels[row] >= r.length) {
        std::string values;
        for (int64_t i = 0; i < r.rows; ++i) {
          values += (i == 0 ? "" : " ") + std::to_string(static_cast<int64_t>(labels[i]));
        }
        throw InvalidArgumentError(fmt::format(
            "Received a label value of {} which is outside the valid range of [0, {}).  Label "
            "values: {} [Op:SparseSoftmaxCrossEntropyWithLogits]",
            static_cast<int64_t>(labels[row]), r.length, values));
      }
    }
    T* loss = ctx.allocate_output(0)->data<T>();
    T* backprop = ctx.allocate_output(1)->data<T>();
    for (int64_t row = 0; row < r.rows; ++row) {
      const T* x = logits + row * r.length;
      C max, log_sum;
      row_max_and_log_sum(x, r.length, max, log_sum);
      const int64_t label = static_cast<int64_t>(labels[row]);
      for (int64_t j = 0; j < r.length; ++j) {
        const C shifted = C(x[j]) - max;
        backprop[row * r.length + j] =
            convert<T>(std::exp(shifted - log_sum) - (j == label ? C{1} : C{0}));
      }
      loss[row] = convert<T>(log_sum - (C(x[label]) - max));
    }
  }
  static void run(KernelContext& ctx) {
    if (ctx.input(1).dtype() == DType::kInt32) {
      run_with<std::int32_t>(ctx);
    } else {
      run_with<std::int64_t>(ctx);
    }
  }
};

// OneHot, keyed by the output dtype: indices [outer, inner] give [outer, depth, inner] with the
// depth axis at attrs.axis. An index outside [0, depth) gives a row of off_value.
template <class T>
struct OneHotKernel {
  template <class I>
  static void run_with(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::OneHotAttrs>();
    const Shape& out_shape = ctx.output_shape();
    int64_t outer = 1;
    for (int i = 0; i < a.axis; ++i) outer *= out_shape[i];
    int64_t inner = 1;
    for (int i = a.axis + 1; i < out_shape.rank(); ++i) inner *= out_shape[i];
    const I* indices = ctx.input(0).data<const I>();
    T* out = ctx.allocate_output()->data<T>();
    const T on = convert<T>(a.on_value);
    const T off = convert<T>(a.off_value);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t d = 0; d < a.depth; ++d) {
        for (int64_t i = 0; i < inner; ++i) {
          out[(o * a.depth + d) * inner + i] =
              static_cast<int64_t>(indices[o * inner + i]) == d ? on : off;
        }
      }
    }
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
    using C = compute_t<T>;
    const runtime::TensorImpl& x = ctx.input(0);
    const T* in = x.data<const T>();
    C sum = 0;
    for (int64_t i = 0; i < x.shape().num_elements(); ++i) sum += C(in[i]) * C(in[i]);
    ctx.allocate_output()->data<T>()[0] = convert<T>(sum / C{2});
  }
};

}  // namespace

void register_nn_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kLogSoftmax, DeviceType::kCPU, LogSoftmaxKernel>(table);
  kernels::register_op<opdefs::OpId::kBiasAdd, DeviceType::kCPU, BiasAddKernel>(table);
  kernels::register_op<opdefs::OpId::kBiasAddGrad, DeviceType::kCPU, BiasAddGradKernel>(table);
  kernels::register_op<opdefs::OpId::kSoftmaxCrossEntropyWithLogits, DeviceType::kCPU,
                       SoftmaxCrossEntropyKernel>(table);
  kernels::register_op<opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits, DeviceType::kCPU,
                       SparseSoftmaxCrossEntropyKernel>(table);
  kernels::register_op<opdefs::OpId::kOneHot, DeviceType::kCPU, OneHotKernel>(table);
  kernels::register_op<opdefs::OpId::kL2Loss, DeviceType::kCPU, L2LossKernel>(table);
}

}  // namespace eagle::cpu
