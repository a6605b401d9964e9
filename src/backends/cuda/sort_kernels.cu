// The CUDA kernel of TopKV2, by ranks: one block per row; each element's rank is the number of
// elements of its row that come before it in the CPU kernel's order (cpu/sort_kernels.cpp:
// greater first, NaN above every number, ties by index), so element i goes to output position
// rank(i) when that is below k. Every position gets exactly one element, the result equals the
// CPU's bit for bit, and no scratch memory is needed. The cost is O(columns^2) comparisons per
// row, spread over the block: simple and exact rather than fast for very long rows.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "kernels/top_k_rank.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// sorted: position rank(i). Not sorted: the k best in index order, so position is the number of
// earlier elements that are among the k best, i.e. that rank before or equal to the k-th best
// (whose index the block finds first).
template <class S>
__global__ void top_k_by_rank(const S* __restrict__ in, S* __restrict__ values,
                              std::int32_t* __restrict__ indices, std::int64_t rows,
                              std::int64_t columns, std::int64_t k, bool sorted) {
  __shared__ std::int64_t kth;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const S* row = in + r * columns;
    const auto value = [row](std::int64_t j) { return load_value(row[j]); };
    S* out_values = values + r * k;
    std::int32_t* out_indices = indices + r * k;
    if (sorted) {
      for (std::int64_t i = threadIdx.x; i < columns; i += blockDim.x) {
        const std::int64_t rank = kernels::rank_in_row(value, columns, i);
        if (rank < k) {
          out_values[rank] = row[i];
          out_indices[rank] = static_cast<std::int32_t>(i);
        }
      }
      continue;  // `sorted` is the same for every thread: no barrier is skipped by some only
    }
    for (std::int64_t i = threadIdx.x; i < columns; i += blockDim.x) {
      if (kernels::rank_in_row(value, columns, i) == k - 1) kth = i;
    }
    __syncthreads();
    const std::int64_t t = kth;
    for (std::int64_t i = threadIdx.x; i < columns; i += blockDim.x) {
      if (!kernels::among_best(value, i, t)) continue;
      const std::int64_t position = kernels::position_in_index_order(value, i, t);
      out_values[position] = row[i];
      out_indices[position] = static_cast<std::int32_t>(i);
    }
    __syncthreads();  // kth is rewritten for the next row
  }
}

template <class T>
struct TopKKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    const auto& attrs = ctx.attrs<opdefs::TopKAttrs>();
    const runtime::TensorImpl& x = ctx.input(0);
    S* values = ctx.allocate_output(0)->data<S>();
    auto* indices = ctx.allocate_output(1)->data<std::int32_t>();
    const std::int64_t columns = x.shape()[x.shape().rank() - 1];
    const std::int64_t rows = columns == 0 ? 0 : x.shape().num_elements() / columns;
    if (rows == 0 || attrs.k == 0) return;
    const unsigned int grid = static_cast<unsigned int>(std::min<std::int64_t>(rows, 65535));
    top_k_by_rank<S><<<grid, kBlockSize, 0, scope.stream()>>>(x.data<const S>(), values, indices,
                                                              rows, columns, attrs.k, attrs.sorted);
    check_launch("top_k_by_rank");
  }
};

}  // namespace

void register_sort_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kTopKV2, DeviceType::kGPU, TopKKernel>(table);
}

}  // namespace eagle::cuda
