// CPU kernels of the sorting and selection ops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "kernels/top_k_rank.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

using kernels::ranks_before;  // shared with the CUDA kernel

template <class T>
struct TopKKernel {
  static void run(KernelContext& ctx) {
    using C = compute_t<T>;
    const auto& attrs = ctx.attrs<opdefs::TopKAttrs>();
    const runtime::TensorImpl& x = ctx.input(0);
    T* values = ctx.allocate_output(0)->data<T>();
    auto* indices = ctx.allocate_output(1)->data<std::int32_t>();
    const std::int64_t columns = x.shape()[x.shape().rank() - 1];
    const std::int64_t rows = columns == 0 ? 0 : x.shape().num_elements() / columns;
    const int k = attrs.k;
    const T* in = x.data<const T>();
    std::vector<std::int32_t> order(static_cast<std::size_t>(columns));
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * columns;
      std::iota(order.begin(), order.end(), 0);
      const auto before = [row](std::int32_t a, std::int32_t b) {
        return ranks_before(C(row[a]), a, C(row[b]), b);
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      if (!attrs.sorted) std::sort(order.begin(), order.begin() + k);
      for (int j = 0; j < k; ++j) {
        values[r * k + j] = row[order[static_cast<std::size_t>(j)]];
        indices[r * k + j] = order[static_cast<std::size_t>(j)];
      }
    }
  }
};

}  // namespace

void register_sort_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kTopKV2, DeviceType::kCPU, TopKKernel>(table);
}

}  // namespace eagle::cpu
