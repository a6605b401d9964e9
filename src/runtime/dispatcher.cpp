#include "runtime/dispatcher.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/context.hpp"
#include "runtime/flags.hpp"
#include "runtime/log_sink.hpp"
#include "runtime/placer.hpp"
#include "runtime/scope_stack.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::runtime {
namespace {

// An input on another device, brought to `device` under the current policy (SEMANTICS §3.5).
Tensor bring_to(const Tensor& input, int index, Device& device, OpId op) {
  const TensorImpl& impl = *input.impl();
  if (auto mirror = impl.find_mirror(device)) return Tensor(std::move(mirror));
  const DevicePolicy policy = g_device_policy.load(std::memory_order_relaxed);
  if (policy == DevicePolicy::kExplicit && op != OpId::kIdentity) {
    throw InvalidArgumentError(fmt::format(
        "Tensors on conflicting devices: cannot compute {} as input #{} was expected to be on {} "
        "but is actually on {} (operation running on {})",
        op_name(op), index, device.name(), impl.device().name(), device.name()));
  }
  if (policy == DevicePolicy::kWarn && op != OpId::kIdentity) {
    emit_log(debugging::LogLevel::kWarning,
             fmt::format("Copying input #{} of {} from {} to {}", index, op_name(op),
                         impl.device().name(), device.name()));
  }
  auto copy = copy_tensor(impl, device);
  impl.add_mirror(device, copy);
  return Tensor(std::move(copy));
}

}  // namespace

Tensor execute(const OpCall& call) {
  check_scope_nesting();
  Device& device = place(call.op, call.kernel_dtype, call.is_constant);

  // Inputs normally already live on the op's device: then no copy, no allocation.
  const Tensor* inputs = call.inputs;
  std::vector<Tensor> moved;
  for (int i = 0; i < call.num_inputs; ++i) {
    if (&call.inputs[i].impl()->device() == &device) continue;
    if (moved.empty()) moved.assign(call.inputs, call.inputs + call.num_inputs);
    moved[i] = bring_to(call.inputs[i], i, device, call.op);
    inputs = moved.data();
  }

  if (!call.is_constant && g_log_device_placement.load(std::memory_order_relaxed)) {
    emit_log(debugging::LogLevel::kInfo,
             fmt::format("Executing op {} in device {}", op_name(call.op), device.name()));
  }
  const KernelFn kernel = Context::get().kernels().find(call.op, device.type(), call.kernel_dtype);
  const KernelContext context{
      device, inputs, call.num_inputs, call.output_shape, call.output_dtype, call.attrs};
  return kernel(context);
}

}  // namespace eagle::runtime
