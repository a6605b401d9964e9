// Tensor::operator[] and Tensor::index: Python's x[i], x[a:b:c] and x[i, :, tf.newaxis, ...],
// lowered to one StridedSlice exactly as tf.Tensor.__getitem__ (_slice_helper) lowers them.
#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle {

Tensor Tensor::operator[](std::int64_t index) const { return this->index({index}); }

Tensor Tensor::operator[](const Slice& range) const { return this->index({range}); }

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  static_cast<void>(shape());  // an undefined handle throws here, as its other accessors do
  std::vector<std::int64_t> begin, end, strides;
  int begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const int bit = 1 << i;
    const TensorIndex& entry = indices[i];
    switch (entry.kind()) {
      case TensorIndex::Kind::kInteger:
        begin.push_back(entry.integer());
        end.push_back(entry.integer() + 1);
        strides.push_back(1);
        shrink_axis_mask |= bit;
        break;
      case TensorIndex::Kind::kSlice: {
        const Slice& s = entry.slice();
        begin.push_back(s.start.value_or(0));
        end.push_back(s.stop.value_or(0));
        strides.push_back(s.step.value_or(1));
        if (!s.start) begin_mask |= bit;
        if (!s.stop) end_mask |= bit;
        break;
      }
      case TensorIndex::Kind::kEllipsis:
        begin.push_back(0);
        end.push_back(0);
        strides.push_back(1);
        ellipsis_mask |= bit;
        break;
      case TensorIndex::Kind::kNewAxis:
        begin.push_back(0);
        end.push_back(0);
        strides.push_back(1);
        new_axis_mask |= bit;
        break;
    }
  }
  return strided_slice(*this, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                       new_axis_mask, shrink_axis_mask);
}

}  // namespace eagle
