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

// A range of indices along axis 0 for Tensor::operator[], as Python's x[start:stop] (step 1):
// a negative bound counts from the end, bounds past either end are clamped, an absent one means
// that end. Slice{1, 3}, Slice{-2} (the last two), Slice{std::nullopt, 2} (the first two).
struct Slice {
  Slice() = default;
  explicit Slice(std::optional<std::int64_t> from) : start(from) {}
  Slice(std::optional<std::int64_t> from, std::optional<std::int64_t> to) : start(from), stop(to) {}

  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
};

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
  // x[Slice{a, b}]: rows a..b-1 of axis 0, the rank kept. Runs eagle::slice.
  Tensor operator[](const Slice& range) const;

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

}  // namespace eagle
