// The runtime's way into a Tensor handle: its TensorImpl, and a handle for a new TensorImpl.
// Tensor keeps both private so that TensorImpl is no part of the public API.
#pragma once

#include <memory>
#include <utility>

#include "eagle/tensor.hpp"

namespace eagle::runtime {

class TensorImpl;

struct TensorAccess {
  static const std::shared_ptr<TensorImpl>& impl(const Tensor& t) { return t.impl_; }
  static Tensor wrap(std::shared_ptr<TensorImpl> impl) { return Tensor(std::move(impl)); }
};

inline const std::shared_ptr<TensorImpl>& impl_of(const Tensor& t) { return TensorAccess::impl(t); }
inline Tensor wrap(std::shared_ptr<TensorImpl> impl) { return TensorAccess::wrap(std::move(impl)); }

}  // namespace eagle::runtime
