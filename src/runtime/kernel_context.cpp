#include "runtime/kernel_context.hpp"

#include <fmt/format.h>

#include <atomic>
#include <memory>

#include "runtime/handle_pool.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

#if defined(__SANITIZE_THREAD__)
#define EAGLE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EAGLE_TSAN 1
#endif
#endif

namespace eagle::runtime {
namespace {

// Note [Sole holder]
// ~~~~~~~~~~~~~~~~~~
// Writing bytes in place because nothing else holds them (a donated input forwarded as the
// output, a variable updated without copy-on-write) must come after every access of the other
// holders, which may have been threads that read the bytes and then dropped their reference. A
// drop is a release operation on the count, so the check must be an acquire, as TensorFlow's
// RefCountIsOne and c10's intrusive_ptr load it; std::shared_ptr::use_count() is a relaxed load.
// The acquire fence after it gives that order (it costs no instruction on x86-64).
// ThreadSanitizer does not support fences, and reported a variable updated in place by one
// parameter-server worker while another's read of it was, to it, unordered; so under TSan the
// count is read through a copy instead, whose increment is an acquire read-modify-write it sees.
template <class T>
bool sole_holder(const std::shared_ptr<T>& p) {
#if defined(EAGLE_TSAN)
  const std::shared_ptr<T> probe = p;  // libstdc++'s increment is acq_rel
  return probe.use_count() == 2;
#else
  const bool sole = p.use_count() == 1;
  std::atomic_thread_fence(std::memory_order_acquire);
  return sole;
#endif
}

}  // namespace

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
    // Note [Sole holder]
    if (sole_holder(impl) && sole_holder(impl->storage()) && &impl->device() == &device_ &&
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
  if (!sole_holder(impl.storage())) {  // Note [Sole holder]
    auto fresh = std::allocate_shared<Storage>(HandleAllocator<Storage>(), impl.device(),
                                               impl.storage()->bytes(), impl.shape(), impl.dtype());
    if (keep_contents) {
      impl.device().copy_within(fresh->data(), impl.data(), fresh->bytes());
    }
    impl.replace_storage(std::move(fresh));
  }
  return impl;
}

}  // namespace eagle::runtime
