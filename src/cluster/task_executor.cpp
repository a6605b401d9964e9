#include "cluster/task_executor.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cluster/attrs_codec.hpp"
#include "eagle/errors.hpp"
#include "runtime/context.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/scope_stack.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cluster {
namespace {

// "/device:CPU:0": this task's own device of that kind and number.
runtime::Device& local_device(const std::string& name) {
  const std::optional<DeviceName> parsed = DeviceName::try_parse(name);
  if (parsed && parsed->type && parsed->id) {
    for (runtime::Device* device : runtime::Context::get().devices()) {
      if (runtime::device_type_name(device->type()) == *parsed->type &&
          device->id() == *parsed->id) {
        return *device;
      }
    }
  }
  throw InvalidArgumentError(
      fmt::format("A remote call named device '{}', which this task does "
                  "not have",
                  name));
}

Shape checked_shape(const std::vector<std::int64_t>& dims) {
  if (dims.size() > static_cast<std::size_t>(Shape::kMaxRank)) {
    throw InvalidArgumentError(fmt::format("A remote call named a shape of rank {}", dims.size()));
  }
  for (std::int64_t dim : dims) {
    if (dim < 0) throw InvalidArgumentError("A remote call named a negative dimension");
  }
  return Shape(dims);
}

}  // namespace

WireTensor to_wire(const Tensor& tensor) {
  WireTensor value;
  value.dtype = tensor.dtype();
  value.shape = tensor.shape().to_vector();
  if (tensor.dtype() == DType::kString) {
    value.strings = tensor.to_vector<std::string>();
  } else {
    const runtime::TensorImpl& impl = *runtime::impl_of(tensor);
    value.bytes.resize(impl.bytes());
    if (value.bytes.empty()) return value;
    if (impl.device().host_accessible()) {
      std::memcpy(value.bytes.data(), impl.data(), value.bytes.size());
    } else {
      impl.device().copy_to_host(value.bytes.data(), impl.data(), value.bytes.size());
    }
  }
  return value;
}

Tensor from_wire(const WireTensor& value, runtime::Device& device) {
  const Shape shape = checked_shape(value.shape);
  runtime::Device& host = runtime::Context::get().host_device();
  auto impl = runtime::allocate_tensor(host, shape, value.dtype);
  const auto count = static_cast<std::size_t>(shape.num_elements());
  if (value.dtype == DType::kString) {
    if (value.strings.size() != count) {
      throw InvalidArgumentError("A remote call sent a string tensor of the wrong size");
    }
    auto* out = impl->data<std::string>();
    for (std::size_t i = 0; i < count; ++i) out[i] = value.strings[i];
  } else {
    if (value.bytes.size() != impl->bytes()) {
      throw InvalidArgumentError("A remote call sent a tensor of the wrong size");
    }
    if (!value.bytes.empty()) std::memcpy(impl->data(), value.bytes.data(), value.bytes.size());
  }
  if (&device != &host) impl = runtime::copy_tensor(*impl, device);
  return runtime::wrap(std::move(impl));
}

void TaskExecutor::check_header(const CallHeader& header) {
  if (header.incarnation != incarnation_) {
    throw FailedPreconditionError(fmt::format(
        "Task {} was restarted since this client connected (incarnation {:016x}, now {:016x}): "
        "the tensors the client kept there are gone. Connect to the cluster again "
        "(experimental_connect_to_cluster).",
        task_name_, header.incarnation, incarnation_));
  }
  if (header.releases.empty()) return;
  std::vector<Tensor> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::uint64_t handle : header.releases) {
    // A handle the client made but whose op failed was never stored: nothing to drop.
    auto it = tensors_.find({header.client, handle});
    if (it == tensors_.end()) continue;
    dropped.push_back(std::move(it->second));
    tensors_.erase(it);
  }
}

Tensor TaskExecutor::find(const CallHeader& header, std::uint64_t handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tensors_.find({header.client, handle});
  if (it == tensors_.end()) {
    throw InvalidArgumentError(fmt::format(
        "Task {} holds no tensor {} of this client (released, or never made)", task_name_, handle));
  }
  return it->second;
}

void TaskExecutor::store(const CallHeader& header, std::uint64_t handle, Tensor tensor) {
  std::lock_guard<std::mutex> lock(mutex_);
  tensors_[{header.client, handle}] = std::move(tensor);
}

void TaskExecutor::enqueue(const CallHeader& header, const EnqueueCall& call) {
  if (call.op >= static_cast<std::uint32_t>(opdefs::kNumOps)) {
    throw InvalidArgumentError(
        fmt::format("A remote call named op {}, which this eagle does not "
                    "have",
                    call.op));
  }
  if (call.outputs.size() != call.output_handles.size() || call.inputs.size() > 32) {
    throw InvalidArgumentError("A remote call's outputs do not match its handles");
  }
  runtime::Device& device = local_device(call.device);
  std::vector<Tensor> inputs;
  inputs.reserve(call.inputs.size());
  for (std::uint64_t handle : call.inputs) inputs.push_back(find(header, handle));
  std::vector<runtime::TensorSpec> outputs;
  outputs.reserve(call.outputs.size());
  for (const WireSpec& spec : call.outputs)
    outputs.push_back({checked_shape(spec.shape), spec.dtype});
  const opdefs::OpAttrs attrs = decode_attrs(call.attrs);
  std::vector<Tensor> results(outputs.size());
  {
    runtime::ScopedDevice scope(device);
    runtime::execute(
        runtime::OpCall{static_cast<opdefs::OpId>(call.op), call.kernel_dtype, inputs.data(),
                        static_cast<int>(inputs.size()), outputs.data(),
                        static_cast<int>(outputs.size()), attrs, false, call.resource_inputs},
        results.data());
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    store(header, call.output_handles[i], std::move(results[i]));
  }
}

void TaskExecutor::send_tensor(const CallHeader& header, const std::string& device,
                               std::uint64_t handle, WireTensor value) {
  store(header, handle, from_wire(value, local_device(device)));
}

WireTensor TaskExecutor::fetch_tensor(const CallHeader& header, std::uint64_t handle) {
  return to_wire(find(header, handle));
}

void TaskExecutor::copy_tensor(const CallHeader& header, const std::string& device,
                               std::uint64_t source, std::uint64_t destination) {
  const Tensor tensor = find(header, source);
  store(header, destination,
        runtime::wrap(runtime::copy_tensor(*runtime::impl_of(tensor), local_device(device))));
}

std::size_t TaskExecutor::num_tensors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tensors_.size();
}

}  // namespace eagle::cluster
