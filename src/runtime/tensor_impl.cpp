#include "runtime/tensor_impl.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/handle_pool.hpp"

namespace eagle::runtime {

std::uint64_t next_tensor_id() {
  // Each thread takes ids in blocks, so making a tensor touches no shared cache line but once
  // every kBlock tensors.
  constexpr std::uint64_t kBlock = 4096;
  static std::atomic<std::uint64_t> next_block{1};
  struct Ids {
    std::uint64_t next = 0;
    std::uint64_t end = 0;
  };
  // initial-exec: one instruction to reach, as the listener in dispatcher.cpp.
  __attribute__((tls_model("initial-exec"))) static thread_local Ids ids;
  if (ids.next == ids.end) {
    ids.next = next_block.fetch_add(1, std::memory_order_relaxed) * kBlock;
    ids.end = ids.next + kBlock;
  }
  return ids.next++;
}

// Note [String tensors]
// ~~~~~~~~~~~~~~~~~~~~~
// A string tensor (DType::kString, TensorFlow's tf.string) holds one std::string per element in
// its storage: Storage constructs them (empty) when it is allocated and destroys them when the
// last tensor using it dies, so kernels assign elements and never see raw bytes. Only the CPU
// holds strings (as TensorFlow keeps them in host memory): the op table gives string kernels to
// the CPU alone (placement then puts a string op under a GPU scope on the CPU, softly, with the
// usual log line), allocate_tensor refuses another device, and copies are element by element.
// Numeric routines never see one: visit_dtype throws for kString.
void Storage::construct_strings() {
  auto* strings = static_cast<std::string*>(data_);
  for (std::int64_t i = 0; i < strings_; ++i) new (strings + i) std::string();
}

void Storage::destroy_strings() noexcept {
  auto* strings = static_cast<std::string*>(data_);
  for (std::int64_t i = 0; i < strings_; ++i) strings[i].~basic_string();
}

std::shared_ptr<TensorImpl> allocate_tensor(Device& device, const Shape& shape, DType dtype) {
  if (dtype == DType::kString && device.type() != DeviceType::kCPU) {
    throw InvalidArgumentError(
        fmt::format("String tensors live in host memory: {} cannot hold one of shape {}",
                    device.name(), shape.to_string()));
  }
  // A byte count past PTRDIFF_MAX (the most any allocation can hold) is asked for as exactly that,
  // so the device's allocator refuses it with its out-of-memory error instead of a wrapped-around
  // small size (2^62 float32 elements are 2^64 bytes, which wraps to 0) being handed to a kernel.
  constexpr std::size_t kMaxBytes = static_cast<std::size_t>(PTRDIFF_MAX);
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(shape.num_elements()), dtype_size(dtype),
                             &bytes) ||
      bytes > kMaxBytes) {
    bytes = kMaxBytes;
  }
  return std::allocate_shared<TensorImpl>(
      HandleAllocator<TensorImpl>(),
      std::allocate_shared<Storage>(HandleAllocator<Storage>(), device, bytes, shape, dtype), shape,
      dtype);
}

std::shared_ptr<TensorImpl> alias_tensor(const TensorImpl& source, const Shape& shape) {
  return std::allocate_shared<TensorImpl>(HandleAllocator<TensorImpl>(), source.storage(), shape,
                                          source.dtype());
}

std::shared_ptr<TensorImpl> alias_tensor(const TensorImpl& source, const Shape& shape,
                                         DType dtype) {
  return std::allocate_shared<TensorImpl>(HandleAllocator<TensorImpl>(), source.storage(), shape,
                                          dtype);
}

std::shared_ptr<TensorImpl> copy_tensor(const TensorImpl& source, Device& device) {
  auto copy = allocate_tensor(device, source.shape(), source.dtype());
  const std::size_t bytes = source.bytes();
  Device& from = source.device();
  // An empty tensor has no bytes to move, except to a task, which must learn of it.
  if (bytes == 0 && !device.remote()) return copy;
  if (source.dtype() == DType::kString && from.host_accessible() && device.host_accessible()) {
    const auto* in = source.data<const std::string>();
    auto* out = copy->data<std::string>();
    for (std::int64_t i = 0; i < source.shape().num_elements(); ++i) out[i] = in[i];
  } else if (from.host_accessible() && device.host_accessible()) {
    std::memcpy(copy->data(), source.data(), bytes);
  } else if (from.host_accessible()) {
    device.copy_from_host(copy->data(), source.data(), bytes);
  } else if (device.host_accessible()) {
    from.copy_to_host(copy->data(), source.data(), bytes);
  } else if (!from.copy_to_device(device, copy->data(), source.data(), bytes)) {
    std::vector<unsigned char> staging(bytes);
    from.copy_to_host(staging.data(), source.data(), bytes);
    device.copy_from_host(copy->data(), staging.data(), bytes);
  }
  return copy;
}

}  // namespace eagle::runtime
