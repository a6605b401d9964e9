// eagle::Tensor: a cheap-to-copy handle to immutable, reference-counted storage on one device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"

namespace eagle {

namespace runtime {
class TensorImpl;
struct TensorAccess;
}  // namespace runtime

// A range of indices for Tensor::operator[] and Tensor::index, as Python's x[start:stop:step]:
// a negative bound counts from the end, bounds past either end are clamped, an absent one means
// that end (the last element onwards for a negative step), and an absent step is 1.
// Slice{1, 3}, Slice{-2} (the last two), Slice{std::nullopt, 2} (the first two),
// Slice{std::nullopt, std::nullopt, -1} (reversed). A step of 0 is InvalidArgumentError.
struct Slice {
  Slice() = default;
  explicit Slice(std::optional<std::int64_t> from) : start(from) {}
  Slice(std::optional<std::int64_t> from, std::optional<std::int64_t> to) : start(from), stop(to) {}
  Slice(std::optional<std::int64_t> from, std::optional<std::int64_t> to,
        std::optional<std::int64_t> by)
      : start(from), stop(to), step(by) {}

  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::optional<std::int64_t> step;
};

// Python's `...` and `tf.newaxis` (None) inside Tensor::index: Ellipsis stands for as many full
// slices as the other entries leave, NewAxis inserts a dimension of size 1.
struct EllipsisIndex {};
struct NewAxisIndex {};
inline constexpr EllipsisIndex Ellipsis{};
inline constexpr NewAxisIndex NewAxis{};

// One entry of a multi-axis index: an integer (that axis removed), a Slice, Ellipsis or NewAxis,
// as torch::indexing::TensorIndex.
class TensorIndex {
 public:
  enum class Kind { kInteger, kSlice, kEllipsis, kNewAxis };
  TensorIndex(std::int64_t i) : kind_(Kind::kInteger), integer_(i) {}  // NOLINT: implicit
  TensorIndex(int i) : kind_(Kind::kInteger), integer_(i) {}           // NOLINT: implicit
  TensorIndex(Slice s) : kind_(Kind::kSlice), slice_(s) {}             // NOLINT: implicit
  TensorIndex(EllipsisIndex) : kind_(Kind::kEllipsis) {}               // NOLINT: implicit
  TensorIndex(NewAxisIndex) : kind_(Kind::kNewAxis) {}                 // NOLINT: implicit

  Kind kind() const { return kind_; }
  std::int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }

 private:
  Kind kind_;
  std::int64_t integer_ = 0;
  Slice slice_;
};

// `using namespace eagle::indexing;` brings the index spellings in, as torch::indexing does.
namespace indexing {
inline constexpr std::nullopt_t None = std::nullopt;  // an absent Slice bound
using eagle::Ellipsis;
using eagle::NewAxis;
using eagle::Slice;
using eagle::TensorIndex;
}  // namespace indexing

class Tensor {
 public:
  // An undefined handle (for containers); every accessor on it, like every op given it, throws
  // InvalidArgumentError "Use of an undefined eagle::Tensor".
  Tensor() = default;

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const;
  const Shape& shape() const;
  int rank() const { return shape().rank(); }
  std::int64_t num_elements() const { return shape().num_elements(); }
  // Full device name, e.g. "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& device() const;

  // Copies the values to the host. T must be the tensor's element type
  // (InvalidArgumentError otherwise): no silent conversions.
  template <class T>
  std::vector<T> to_vector() const {
    check_element_type(dtype_of_v<T>);
    std::vector<T> out(static_cast<std::size_t>(num_elements()));
    copy_to_host(out.data(), out.size() * sizeof(T));
    return out;
  }

  // The single value of a tensor with one element (InvalidArgumentError otherwise).
  template <class T>
  T item() const {
    check_element_type(dtype_of_v<T>);
    check_single_element();
    T value{};
    copy_to_host(&value, sizeof(T));
    return value;
  }

  // x[i]: the sub-tensor at index i of axis 0, that axis removed (a negative i counts from the
  // end); x[i][j] goes deeper. An index out of range is InvalidArgumentError
  // "slice index 5 of dimension 0 out of bounds. [Op:StridedSlice]", as in TensorFlow.
  Tensor operator[](std::int64_t index) const;
  // x[Slice{a, b, step}]: rows a, a + step, ... of axis 0 (Python's x[a:b:step]), rank kept.
  Tensor operator[](const Slice& range) const;
  // Python's x[1, :, tf.newaxis, ...]: x.index({1, Slice{}, NewAxis, Ellipsis}). One
  // StridedSlice, built as tf.Tensor.__getitem__ builds it (eagle::strided_slice).
  Tensor index(const std::vector<TensorIndex>& indices) const;

  // A number unique to this tensor in the process, the same for every handle to it (TensorFlow's
  // tensor id): `a.id() == b.id()` asks whether two handles are one tensor.
  std::uint64_t id() const;

 private:
  // The runtime reaches the implementation through runtime::TensorAccess
  // (src/runtime/tensor_access.hpp): TensorImpl is not part of the API.
  friend struct runtime::TensorAccess;
  explicit Tensor(std::shared_ptr<runtime::TensorImpl> impl) : impl_(std::move(impl)) {}

  void check_element_type(DType requested) const;
  void check_single_element() const;
  void copy_to_host(void* dst, std::size_t bytes) const;

  std::shared_ptr<runtime::TensorImpl> impl_;
};

// std::vector<bool> has no data(): a specialisation that goes through a byte buffer.
template <>
std::vector<bool> Tensor::to_vector<bool>() const;
template <>
bool Tensor::item<bool>() const;
// String tensors (kString): each element a std::string.
template <>
std::vector<std::string> Tensor::to_vector<std::string>() const;
template <>
std::string Tensor::item<std::string>() const;

}  // namespace eagle
