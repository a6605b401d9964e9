#include "data/host_tensor.hpp"

namespace eagle::data {

const unsigned char* host_bytes(const Tensor& t, std::vector<unsigned char>& staging) {
  // A string tensor holds objects, not values to copy as bytes (Note [String tensors]).
  if (t.dtype() == DType::kString) throw_string_not_supported("A byte copy of a tensor");
  const runtime::TensorImpl& impl = *runtime::impl_of(t);
  runtime::Device& device = impl.device();
  if (device.host_accessible()) return static_cast<const unsigned char*>(impl.data());
  staging.resize(impl.bytes());
  if (!staging.empty()) device.copy_to_host(staging.data(), impl.data(), staging.size());
  return staging.data();
}

}  // namespace eagle::data
