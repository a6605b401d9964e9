// unsorted_segment_sum (UnsortedSegmentSum): rows of data added into the segment their id names,
// TensorFlow's validation order and texts; kernels in cpu/segment_kernels.cpp and
// backends/cuda/segment_kernels.cu. It is also the scatter-add of the gather gradients
// (autodiff/index_grad.cpp).
#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids,
                            std::int64_t num_segments) {
  ops::check_defined(data, opdefs::OpId::kUnsortedSegmentSum, 0);
  ops::check_defined(segment_ids, opdefs::OpId::kUnsortedSegmentSum, 1);
  if (segment_ids.dtype() != DType::kInt32 && segment_ids.dtype() != DType::kInt64) {
    ops::throw_invalid(opdefs::OpId::kUnsortedSegmentSum,
                       fmt::format("Value for attr 'Tindices' of {} is not in the list of "
                                   "allowed values: int32, int64",
                                   dtype_runtime_name(segment_ids.dtype())));
  }
  if (num_segments < 0) {
    ops::throw_invalid(opdefs::OpId::kUnsortedSegmentSum,
                       fmt::format("Input num_segments == {} must not be negative.", num_segments));
  }
  const Shape& d = data.shape();
  const Shape& ids = segment_ids.shape();
  bool prefix = ids.rank() <= d.rank();
  for (int i = 0; prefix && i < ids.rank(); ++i) prefix = d[i] == ids[i];
  if (!prefix) {
    ops::throw_invalid(opdefs::OpId::kUnsortedSegmentSum,
                       fmt::format("data.shape = {} does not start with segment_ids.shape = {}",
                                   d.to_string(), ids.to_string()));
  }
  Shape out{num_segments};
  for (int i = ids.rank(); i < d.rank(); ++i) out.push_back(d[i]);
  const Tensor inputs[2] = {data, segment_ids};
  return runtime::execute1(opdefs::OpId::kUnsortedSegmentSum, data.dtype(), inputs, 2, out,
                           data.dtype(), opdefs::OpAttrs{opdefs::SegmentAttrs{num_segments}});
}

}  // namespace eagle
