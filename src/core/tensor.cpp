#include "eagle/tensor.hpp"

#include <cstring>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle {
namespace {

// An undefined handle is a bad value the caller passed, whether to an op or as `this` of an
// accessor: InvalidArgumentError in both places (docs/guide.md, "Errors").
const runtime::TensorImpl& checked(const std::shared_ptr<runtime::TensorImpl>& impl) {
  if (!impl) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  return *impl;
}

}  // namespace

DType Tensor::dtype() const { return checked(impl_).dtype(); }
std::uint64_t Tensor::id() const { return checked(impl_).id(); }
const Shape& Tensor::shape() const { return checked(impl_).shape(); }
const std::string& Tensor::device() const { return checked(impl_).device().name(); }

void Tensor::check_element_type(DType requested) const {
  const DType actual = dtype();
  if (requested != actual) {
    throw InvalidArgumentError(
        fmt::format("Cannot read a {} tensor as {}", dtype_name(actual), dtype_name(requested)));
  }
}

void Tensor::check_single_element() const {
  if (num_elements() != 1) {
    throw InvalidArgumentError(fmt::format(
        "item() needs a tensor with exactly one element, got shape {}", shape().to_string()));
  }
}

void Tensor::copy_to_host(void* dst, std::size_t bytes) const {
  const runtime::TensorImpl& impl = checked(impl_);
  if (bytes == 0) return;
  runtime::Device& device = impl.device();
  if (device.host_accessible()) {
    std::memcpy(dst, impl.data(), bytes);
  } else {
    device.copy_to_host(dst, impl.data(), bytes);
  }
}

template <>
std::vector<bool> Tensor::to_vector<bool>() const {
  check_element_type(DType::kBool);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(num_elements()));
  copy_to_host(bytes.data(), bytes.size());
  return std::vector<bool>(bytes.begin(), bytes.end());
}

template <>
bool Tensor::item<bool>() const {
  check_element_type(DType::kBool);
  check_single_element();
  unsigned char value = 0;
  copy_to_host(&value, 1);
  return value != 0;
}

// Strings are objects, not bytes (Note [String tensors]): copied one by one, on the CPU.
template <>
std::vector<std::string> Tensor::to_vector<std::string>() const {
  check_element_type(DType::kString);
  const runtime::TensorImpl& impl = checked(impl_);
  if (!impl.device().host_accessible()) {  // another task's (Note [Remote devices])
    std::vector<std::string> strings(static_cast<std::size_t>(num_elements()));
    impl.device().copy_to_host(strings.data(), impl.data(), impl.bytes());
    return strings;
  }
  const auto* strings = impl.data<const std::string>();
  return std::vector<std::string>(strings, strings + num_elements());
}

template <>
std::string Tensor::item<std::string>() const {
  check_element_type(DType::kString);
  check_single_element();
  if (!checked(impl_).device().host_accessible()) return to_vector<std::string>().front();
  return *checked(impl_).data<const std::string>();
}

}  // namespace eagle
