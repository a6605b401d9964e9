#include "runtime/kernel_context.hpp"

#include <fmt/format.h>

#include "kernels/variable_kernels.hpp"
#include "runtime/handle_pool.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::runtime {

TensorImpl* KernelContext::allocate_output(int i) {
  auto impl = allocate_tensor(device_, specs_[i].shape, specs_[i].dtype);
  TensorImpl* raw = impl.get();
  results_[i] = wrap(std::move(impl));
  return raw;
}

void KernelContext::set_output(int i, Tensor t) {
  if (impl_of(t)->shape() != specs_[i].shape || impl_of(t)->dtype() != specs_[i].dtype) {
    throw InternalError(
        fmt::format("A kernel set output #{} to a {} {} tensor where its op "
                    "inferred {} {}",
                    i, dtype_name(impl_of(t)->dtype()), impl_of(t)->shape().to_string(),
                    dtype_name(specs_[i].dtype), specs_[i].shape.to_string()));
  }
  results_[i] = std::move(t);
}

void KernelContext::set_output(int i, std::shared_ptr<TensorImpl> t) {
  set_output(i, wrap(std::move(t)));
}

TensorImpl* KernelContext::forward_input_or_allocate_output(int in, int i) {
  if (forwardable_inputs_ >> in & 1u) {
    const std::shared_ptr<TensorImpl>& impl = impl_of(inputs_[in]);
    // use_count 1 on both: the caller's donated handle is the only owner of these bytes (no
    // alias, no other tensor, no tape). Mirrors are copies of the old value; they die with it.
    if (impl.use_count() == 1 && impl->storage().use_count() == 1 && &impl->device() == &device_ &&
        impl->bytes() == static_cast<std::size_t>(specs_[i].shape.num_elements()) *
                             dtype_size(specs_[i].dtype)) {
      auto forwarded = alias_tensor(*impl, specs_[i].shape, specs_[i].dtype);
      TensorImpl* raw = forwarded.get();
      results_[i] = wrap(std::move(forwarded));
      return raw;
    }
  }
  return allocate_output(i);
}

TensorImpl& KernelContext::mutable_input(int i, bool keep_contents) {
  if (!(resource_inputs_ >> i & 1u)) {
    throw InternalError(
        fmt::format("A kernel asked to write input #{}, which is not a resource", i));
  }
  TensorImpl& impl = *impl_of(inputs_[i]);
  impl.drop_mirrors();
  if (impl.storage().use_count() > 1) {
    auto fresh = std::allocate_shared<Storage>(HandleAllocator<Storage>(), impl.device(),
                                               impl.storage()->bytes(), impl.shape(), impl.dtype());
    if (keep_contents) {
      kernels::copy_on_device(impl.device(), fresh->data(), impl.data(), fresh->bytes());
    }
    impl.replace_storage(std::move(fresh));
  }
  return impl;
}

}  // namespace eagle::runtime
