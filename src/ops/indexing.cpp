// Tensor::operator[]: Python's x[i] and x[a:b] on axis 0, built on slice and squeeze. The texts
// are TensorFlow's, whose __getitem__ runs StridedSlice.
#include <algorithm>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle {
namespace {

// Rank 0 has no axis 0 to index; throws as tf.constant(1.)[0] does.
void check_indexable(const Tensor& x) {
  if (x.rank() == 0) {
    throw InvalidArgumentError(
        "Index out of range using input dim 0; input has only 0 dims [Op:StridedSlice]");
  }
}

// begin = {start, 0, ...}, size = {count, -1, ...}: rows [start, start + count) of axis 0.
Tensor rows(const Tensor& x, std::int64_t start, std::int64_t count) {
  std::vector<std::int64_t> begin(static_cast<std::size_t>(x.rank()), 0);
  std::vector<std::int64_t> size(static_cast<std::size_t>(x.rank()), -1);
  begin[0] = start;
  size[0] = count;
  return slice(x, begin, size);
}

}  // namespace

Tensor Tensor::operator[](std::int64_t index) const {
  check_indexable(*this);
  const std::int64_t n = shape()[0];
  const std::int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    throw InvalidArgumentError(
        fmt::format("slice index {} of dimension 0 out of bounds. [Op:StridedSlice]", index));
  }
  return squeeze(rows(*this, i, 1), {0});
}

Tensor Tensor::operator[](const Slice& range) const {
  check_indexable(*this);
  const std::int64_t n = shape()[0];
  // Python's slice.indices() for step 1: negative counts from the end, then clamp to [0, n].
  const auto resolve = [n](std::optional<std::int64_t> bound, std::int64_t absent) {
    if (!bound) return absent;
    const std::int64_t b = *bound < 0 ? *bound + n : *bound;
    return std::clamp<std::int64_t>(b, 0, n);
  };
  const std::int64_t start = resolve(range.start, 0);
  const std::int64_t stop = resolve(range.stop, n);
  return rows(*this, start, std::max<std::int64_t>(stop - start, 0));
}

}  // namespace eagle
