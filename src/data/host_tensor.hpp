// CPU tensors that eagle::data fills in place: a fresh host buffer, written, then published.
#pragma once

#include <cstddef>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "runtime/context.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::data {

// Note [Host tensors in eagle::data]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Datasets build their elements and batches on the host, as tf.data does on the CPU: allocating
// the host device's buffer and writing it before the tensor exists skips an op dispatch (a
// Const) per slice, and the many small copies of a shuffled batch cost memcpy alone. Nothing
// else sees the buffer until the Tensor handle is returned, so it is immutable from then on.
template <class Fill>
Tensor make_host_tensor(const Shape& shape, DType dtype, Fill&& fill) {
  runtime::Device& host = runtime::Context::get().host_device();
  std::shared_ptr<runtime::TensorImpl> impl = runtime::allocate_tensor(host, shape, dtype);
  fill(static_cast<unsigned char*>(impl->data()));
  return runtime::wrap(std::move(impl));
}

// The bytes of `t`, readable on the host: its own buffer for a host tensor, else `staging`
// filled with a copy.
const unsigned char* host_bytes(const Tensor& t, std::vector<unsigned char>& staging);

}  // namespace eagle::data
