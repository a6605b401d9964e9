// What a Tensor handle points at: shape, dtype and shared immutable storage on one device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "runtime/device.hpp"

namespace eagle::runtime {

// Bytes owned on one device; returned to the device when the last tensor using them dies. A
// string tensor's bytes hold constructed std::string objects (Note [String tensors]).
class Storage {
 public:
  Storage(Device& device, std::size_t bytes, const Shape& shape, DType dtype)
      : device_(&device),
        // A remote device's tensor is a handle even when empty (Note [Remote devices]).
        data_(bytes || device.remote() ? device.allocate(bytes, shape, dtype) : nullptr),
        bytes_(bytes),
        strings_(dtype == DType::kString && data_ && !device.remote() ? shape.num_elements() : 0) {
    if (strings_ != 0) construct_strings();  // numbers pay one compare, no call
  }
  ~Storage() {
    if (strings_ != 0) destroy_strings();
    if (data_) device_->deallocate(data_, bytes_);
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  Device& device() const { return *device_; }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void construct_strings();
  void destroy_strings() noexcept;

  Device* device_;
  void* data_;
  std::size_t bytes_;
  std::int64_t strings_;  // the std::string objects constructed in data_
};

// A process-wide unique id for each new TensorImpl (never reused, never 0).
std::uint64_t next_tensor_id();

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, const Shape& shape, DType dtype)
      : storage_(std::move(storage)), shape_(shape), dtype_(dtype), id_(next_tensor_id()) {}

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  // Stable for the tensor's life and unique in the process (TensorFlow's tensor_id): what a tape
  // keys its records by.
  std::uint64_t id() const { return id_; }
  Device& device() const { return storage_->device(); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  std::size_t bytes() const {
    return static_cast<std::size_t>(shape_.num_elements()) * dtype_size(dtype_);
  }

  // Kernels write their freshly allocated output through this; a published tensor is immutable.
  template <class T = void>
  T* data() const {
    return static_cast<T*>(storage_->data());
  }

  // Note [Mirrors]: a copy of this tensor on another device, made when an op on that device
  // read it, is kept here so reusing a CPU constant on a GPU copies it once (docs/guide.md,
  // "How an op is placed", step 5). Safe because tensors are immutable. Rarely contended: only
  // the first copy takes long.
  std::shared_ptr<TensorImpl> find_mirror(const Device& device) const {
    std::lock_guard<std::mutex> lock(mirrors_mutex_);
    for (const auto& [d, t] : mirrors_) {
      if (d == &device) return t;
    }
    return nullptr;
  }
  void add_mirror(const Device& device, std::shared_ptr<TensorImpl> copy) const {
    std::lock_guard<std::mutex> lock(mirrors_mutex_);
    mirrors_.emplace_back(&device, std::move(copy));
  }
  // Note [Variable storage]: a variable's buffer whose bytes a read still shares gets fresh bytes
  // before an update writes them, so every value read stays what it was. Only a variable op
  // calls this, under the variable's lock; no other thread touches the buffer's TensorImpl.
  void replace_storage(std::shared_ptr<Storage> storage) { storage_ = std::move(storage); }
  // After an in-place update (a resource written by its kernel) the copies are stale.
  void drop_mirrors() const {
    std::lock_guard<std::mutex> lock(mirrors_mutex_);
    mirrors_.clear();
  }

 private:
  std::shared_ptr<Storage> storage_;
  Shape shape_;
  DType dtype_;
  std::uint64_t id_;
  mutable std::mutex mirrors_mutex_;
  mutable std::vector<std::pair<const Device*, std::shared_ptr<TensorImpl>>> mirrors_;
};

// A new tensor with fresh (uninitialized) storage on `device`.
std::shared_ptr<TensorImpl> allocate_tensor(Device& device, const Shape& shape, DType dtype);
// A new tensor sharing `source`'s storage with another shape of the same element count.
std::shared_ptr<TensorImpl> alias_tensor(const TensorImpl& source, const Shape& shape);
// The same bytes read as another shape and dtype of the same byte count (input forwarding).
std::shared_ptr<TensorImpl> alias_tensor(const TensorImpl& source, const Shape& shape, DType dtype);
// A copy of `source` on `device` (host staging when neither side is host accessible).
std::shared_ptr<TensorImpl> copy_tensor(const TensorImpl& source, Device& device);

}  // namespace eagle::runtime
