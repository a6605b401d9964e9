// The CPU kernel of UnsortedSegmentSum. Ids are checked before anything is written, as
// TensorFlow's CPU kernel checks them. Threads split the columns of a row (Note [Intra-op
// parallelism]): each owns whole output columns and walks every row for them, so no two threads
// add into one element and the sums are in row order whatever the thread count.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// TensorFlow's SliceDebugString of flat index `flat` in `shape`: "" for a scalar, "[5]", "[1,2]".
std::string coordinates(const Shape& shape, std::int64_t flat) {
  if (shape.rank() == 0) return "";
  std::vector<std::int64_t> c(static_cast<std::size_t>(shape.rank()));
  for (int i = shape.rank() - 1; i >= 0; --i) {
    c[static_cast<std::size_t>(i)] = flat % shape[i];
    flat /= shape[i];
  }
  return fmt::format("[{}]", fmt::join(c, ","));
}

template <class T, class I>
void segment_sum(const T* data, const I* ids, std::int64_t rows, std::int64_t inner,
                 std::int64_t segments, T* out) {
  using C = compute_t<T>;  // float for the 16-bit floats: they are summed in float32
  parallel_for(inner, rows * static_cast<std::int64_t>(sizeof(T)) * 2,
               [&](std::int64_t begin, std::int64_t end) {
                 const std::int64_t width = end - begin;
                 std::vector<C> sums(static_cast<std::size_t>(segments * width), C(0));
                 for (std::int64_t r = 0; r < rows; ++r) {
                   const auto id = static_cast<std::int64_t>(ids[r]);
                   if (id < 0) continue;  // dropped, as in TensorFlow
                   C* to = sums.data() + id * width;
                   const T* from = data + r * inner + begin;
                   for (std::int64_t i = 0; i < width; ++i)
                     to[i] = wrap_add(to[i], static_cast<C>(from[i]));
                 }
                 for (std::int64_t s = 0; s < segments; ++s) {
                   for (std::int64_t i = 0; i < width; ++i) {
                     out[s * inner + begin + i] =
                         convert<T>(sums[static_cast<std::size_t>(s * width + i)]);
                   }
                 }
               });
}

template <class T>
struct UnsortedSegmentSumKernel {
  static void run(KernelContext& ctx) {
    const std::int64_t segments = ctx.attrs<opdefs::SegmentAttrs>().num_segments;
    const runtime::TensorImpl& data = ctx.input(0);
    const runtime::TensorImpl& ids = ctx.input(1);
    const std::int64_t rows = ids.shape().num_elements();
    const std::int64_t inner = segments == 0 ? 0 : ctx.output_shape().num_elements() / segments;
    const auto run_with = [&](auto tag) {
      using I = decltype(tag);
      const I* id = ids.data<const I>();
      for (std::int64_t r = 0; r < rows; ++r) {
        if (static_cast<std::int64_t>(id[r]) >= segments) {
          throw InvalidArgumentError(
              fmt::format("segment_ids{} = {} is out of range [0, {}) [Op:UnsortedSegmentSum]",
                          coordinates(ids.shape(), r), id[r], segments));
        }
      }
      T* out = ctx.allocate_output()->data<T>();
      if (inner == 0) return;
      segment_sum(data.data<const T>(), id, rows, inner, segments, out);
    };
    if (ids.dtype() == DType::kInt32) {
      run_with(std::int32_t{});
    } else {
      run_with(std::int64_t{});
    }
  }
};

}  // namespace

void register_segment_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kUnsortedSegmentSum, DeviceType::kCPU,
                       UnsortedSegmentSumKernel>(table);
}

}  // namespace eagle::cpu
