#include "cluster/remote_task_device.hpp"

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "cluster/attrs_codec.hpp"
#include "eagle/errors.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cluster {
namespace {

// A handle travels in a Storage's pointer (Note [Remote devices]); 0 is never a handle.
std::uint64_t handle_of(const void* ptr) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr));
}
void* pointer_of(std::uint64_t handle) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(handle));
}

std::uint64_t draw_client_id() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

// `count` values of `dtype` at `src` (strings: std::string objects) as a wire value.
WireTensor wire_value(const WireSpec& spec, const void* src, std::size_t bytes) {
  WireTensor value{spec.dtype, spec.shape, {}, {}};
  if (spec.dtype == DType::kString) {
    std::int64_t count = 1;
    for (std::int64_t dim : spec.shape) count *= dim;
    const auto* strings = static_cast<const std::string*>(src);
    value.strings.assign(strings, strings + count);
  } else if (bytes > 0) {
    value.bytes.assign(static_cast<const char*>(src), bytes);
  }
  return value;
}

}  // namespace

TaskConnection::TaskConnection(std::string task_name, std::uint64_t incarnation,
                               std::unique_ptr<TaskClient> client)
    : task_name_(std::move(task_name)),
      incarnation_(incarnation),
      client_id_(draw_client_id()),
      client_(std::move(client)) {}

std::uint64_t TaskConnection::new_handle(const Shape& shape, DType dtype) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t handle = next_handle_++;
  specs_.emplace(handle, WireSpec{dtype, shape.to_vector()});
  return handle;
}

void TaskConnection::release(std::uint64_t handle) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  specs_.erase(handle);
  released_.push_back(handle);
}

WireSpec TaskConnection::spec(std::uint64_t handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return specs_.at(handle);
}

CallHeader TaskConnection::take_header() {
  std::lock_guard<std::mutex> lock(mutex_);
  CallHeader header{client_id_, incarnation_, {}};
  header.releases.swap(released_);
  return header;
}

void TaskConnection::requeue(const std::vector<std::uint64_t>& releases) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  released_.insert(released_.end(), releases.begin(), releases.end());
}

RemoteTaskDevice::RemoteTaskDevice(runtime::DeviceType type, int id, const DeviceName& name,
                                   std::shared_ptr<TaskConnection> task)
    : RemoteDevice(type, id, name),
      local_name_(fmt::format("/device:{}:{}", runtime::device_type_name(type), id)),
      task_(std::move(task)) {}

void* RemoteTaskDevice::allocate(std::size_t, const Shape& shape, DType dtype) {
  return pointer_of(task_->new_handle(shape, dtype));
}

void RemoteTaskDevice::deallocate(void* ptr, std::size_t) noexcept {
  task_->release(handle_of(ptr));
}

void RemoteTaskDevice::send(std::uint64_t handle, const WireTensor& value) {
  task_->with_header([&](TaskClient& client, const CallHeader& header) {
    client.send_tensor(header, local_name_, handle, value);
  });
}

void RemoteTaskDevice::copy_from_host(void* dst, const void* src, std::size_t bytes) {
  const std::uint64_t handle = handle_of(dst);
  send(handle, wire_value(task_->spec(handle), src, bytes));
}

void RemoteTaskDevice::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  const WireTensor value = task_->with_header([&](TaskClient& client, const CallHeader& header) {
    return client.fetch_tensor(header, handle_of(src));
  });
  if (value.dtype == DType::kString) {
    auto* out = static_cast<std::string*>(dst);
    for (std::size_t i = 0; i < value.strings.size(); ++i) out[i] = value.strings[i];
  } else {
    if (value.bytes.size() != bytes) {
      throw InternalError(fmt::format("{} sent {} bytes for a tensor of {}", task_->task_name(),
                                      value.bytes.size(), bytes));
    }
    if (bytes > 0) std::memcpy(dst, value.bytes.data(), bytes);
  }
}

bool RemoteTaskDevice::copy_to_device(Device& destination, void* dst, const void* src,
                                      std::size_t) {
  if (!destination.remote()) return false;  // the caller stages through this process's memory
  auto& other = static_cast<RemoteTaskDevice&>(destination);
  if (other.task_ == task_) {  // within the task: it copies, nothing crosses the network
    task_->with_header([&](TaskClient& client, const CallHeader& header) {
      client.copy_tensor(header, other.local_name_, handle_of(src), handle_of(dst));
    });
    return true;
  }
  // Task to task, relayed by this process (TensorFlow's remote-to-remote copy pulls the same way).
  WireTensor value = task_->with_header([&](TaskClient& client, const CallHeader& header) {
    return client.fetch_tensor(header, handle_of(src));
  });
  other.send(handle_of(dst), value);
  return true;
}

void RemoteTaskDevice::execute(const runtime::OpCall& call, const Tensor* inputs, Tensor* results) {
  if (call.op == opdefs::OpId::kConst) {  // a constant is a value to send, not an op to run
    const runtime::TensorSpec& spec = call.outputs[0];
    auto impl = runtime::allocate_tensor(*this, spec.shape, spec.dtype);
    const auto& attrs = std::get<opdefs::ConstAttrs>(call.attrs);
    send(handle_of(impl->data()),
         wire_value({spec.dtype, spec.shape.to_vector()}, attrs.host_data, impl->bytes()));
    results[0] = runtime::wrap(std::move(impl));
    return;
  }
  EnqueueCall remote;
  remote.device = local_name_;
  remote.op = static_cast<std::uint32_t>(call.op);
  remote.kernel_dtype = call.kernel_dtype;
  remote.resource_inputs = call.resource_inputs;
  remote.attrs = encode_attrs(call.attrs);
  for (int i = 0; i < call.num_inputs; ++i) {
    remote.inputs.push_back(handle_of(runtime::impl_of(inputs[i])->data()));
  }
  std::vector<Tensor> outputs;
  for (int i = 0; i < call.num_outputs; ++i) {
    const runtime::TensorSpec& spec = call.outputs[i];
    auto impl = runtime::allocate_tensor(*this, spec.shape, spec.dtype);
    remote.outputs.push_back({spec.dtype, spec.shape.to_vector()});
    remote.output_handles.push_back(handle_of(impl->data()));
    outputs.push_back(runtime::wrap(std::move(impl)));
  }
  task_->with_header(
      [&](TaskClient& client, const CallHeader& header) { client.enqueue(header, remote); });
  for (int i = 0; i < call.num_outputs; ++i) results[i] = std::move(outputs[i]);
}

}  // namespace eagle::cluster
