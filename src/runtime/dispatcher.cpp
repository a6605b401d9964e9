#include "runtime/dispatcher.hpp"

#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/check_numerics.hpp"
#include "runtime/context.hpp"
#include "runtime/flags.hpp"
#include "runtime/log_sink.hpp"
#include "runtime/placer.hpp"
#include "runtime/remote_device.hpp"
#include "runtime/scope_stack.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::runtime {
namespace {

// A plain pointer (constant-initialized, so no TLS wrapper call): Note [Op listeners]. The
// initial-exec model makes the read one instruction instead of a __tls_get_addr call; it costs
// 8 bytes of the static TLS block glibc reserves for libraries loaded with the program or later.
__attribute__((tls_model("initial-exec"))) thread_local OpListener* t_listener = nullptr;

// An input on another device, brought to `device` under the current policy (docs/guide.md, "How
// an op is placed").
// `explicit` refuses before any mirror is looked at, as TensorFlow checks the policy before its
// copy: a mirror left by identity or by an earlier silent copy must not let the op through.
Tensor bring_to(const Tensor& input, int index, Device& device, opdefs::OpId op) {
  const TensorImpl& impl = *impl_of(input);
  const DevicePolicy policy = g_device_policy.load(std::memory_order_relaxed);
  if (policy == DevicePolicy::kExplicit && op != opdefs::OpId::kIdentity) {
    throw InvalidArgumentError(fmt::format(
        "Tensors on conflicting devices: cannot compute {} as input #{} was expected to be on {} "
        "but is actually on {} (operation running on {})",
        opdefs::op_name(op), index, device.name(), impl.device().name(), device.name()));
  }
  if (auto mirror = impl.find_mirror(device)) return wrap(std::move(mirror));  // no new copy
  if (policy == DevicePolicy::kWarn && op != opdefs::OpId::kIdentity) {
    emit_log(debugging::LogLevel::kWarning,
             fmt::format("Copying input #{} of {} from {} to {}", index, opdefs::op_name(op),
                         impl.device().name(), device.name()));
  }
  auto copy = copy_tensor(impl, device);
  impl.add_mirror(device, copy);
  return wrap(std::move(copy));
}

// An op on a resource runs where the resource lives, before any scope or cache is consulted
// (TensorFlow's MaybePinToResourceDevice).
Device& resource_device(const OpCall& call) {
  Device* pinned = nullptr;
  for (int i = 0; i < call.num_inputs; ++i) {
    if (!(call.resource_inputs >> i & 1u)) continue;
    Device& d = impl_of(call.inputs[i])->device();
    if (pinned == nullptr) {
      pinned = &d;
    } else if (pinned != &d) {
      throw InvalidArgumentError(fmt::format(
          "Cannot colocate the resources of {}: input #{} is on {} but an earlier "
          "resource input is on {} [Op:{}]",
          opdefs::op_name(call.op), i, d.name(), pinned->name(), opdefs::op_name(call.op)));
    }
  }
  if (!pinned->remote() &&
      Context::get().kernels().find(call.op, pinned->type(), call.kernel_dtype) == nullptr) {
    throw NotFoundError(fmt::format(
        "Could not find a {} kernel for dtype {} on {}, where its resource input lives. All "
        "kernels registered for op {}: {}",
        opdefs::op_name(call.op), dtype_name(call.kernel_dtype), pinned->name(),
        opdefs::op_name(call.op), Context::get().kernels().describe(call.op)));
  }
  return *pinned;
}

// TensorFlow's text when an op's type attribute does not allow the dtype (exp on int32, add on
// bool): an InvalidArgumentError, as the op definition rejects it before any kernel is looked up.
[[noreturn]] void throw_dtype_not_allowed(const opdefs::OpDef& def, DType dtype) {
  std::vector<std::string_view> allowed;
  // In the order of the op's TensorFlow definition (Note [Op table]: the traits column).
  for (const DType d : opdefs::allowed_type_order(def.type_order)) {
    if ((def.cpu_dtypes | def.gpu_dtypes) & opdefs::dtype_bit(d)) {
      allowed.push_back(dtype_runtime_name(d));
    }
  }
  throw InvalidArgumentError(
      fmt::format("Value for attr 'T' of {} is not in the list of allowed values: {} [Op:{}]",
                  dtype_runtime_name(dtype), fmt::join(allowed, ", "), def.name));
}

}  // namespace

// Note [Kernel contract]
// ~~~~~~~~~~~~~~~~~~~~~~
// The op's front-end validates its inputs and infers every output's shape and dtype; the kernel
// only computes. A kernel gets its inputs on its own device (copies made here are not what the
// caller passed, so listeners are given call.inputs), its attributes as the typed alternative
// its op's row names (Note [Op attributes]), and fills each output exactly once. Multi-output
// ops (a loss and its backprop, batch norm's statistics) return them together; updates of a
// variable go through resource inputs; input forwarding reuses a donated buffer. The checks
// below cost a compare each and turn a kernel that forgot an output into an error, not a null
// tensor in the user's hands.
void execute(const OpCall& call, Tensor* results) {
  check_scope_nesting();
  const opdefs::OpDef& def = opdefs::op_def(call.op);
  if (call.attrs.index() != def.attrs_index ||
      (def.num_outputs != opdefs::kVariadic && call.num_outputs != def.num_outputs) ||
      (def.num_inputs != opdefs::kVariadic && call.num_inputs != def.num_inputs)) {
    throw InternalError(
        fmt::format("{} was called with a signature its op table row does not "
                    "have (inputs, outputs or attributes)",
                    def.name));
  }
  if (static_cast<int>(call.kernel_dtype) < kNumDTypes &&
      !((def.cpu_dtypes | def.gpu_dtypes) & opdefs::dtype_bit(call.kernel_dtype))) {
    throw_dtype_not_allowed(def, call.kernel_dtype);
  }
  Device& device = call.resource_inputs ? resource_device(call)
                                        : place(call.op, call.kernel_dtype, call.is_constant);

  // Inputs normally already live on the op's device: then no copy, no allocation.
  const Tensor* inputs = call.inputs;
  std::vector<Tensor> moved;
  for (int i = 0; i < call.num_inputs; ++i) {
    if (&impl_of(call.inputs[i])->device() == &device) continue;
    if (moved.empty()) moved.assign(call.inputs, call.inputs + call.num_inputs);
    moved[i] = bring_to(call.inputs[i], i, device, call.op);
    inputs = moved.data();
  }

  if (!call.is_constant && g_log_device_placement.load(std::memory_order_relaxed) &&
      t_unlogged_depth == 0) {
    // TensorFlow's two forms: "in device" for a local op, "on task" for a remote one.
    emit_log(debugging::LogLevel::kInfo,
             fmt::format("Executing op {} {} {}", def.name,
                         device.remote() ? "on task" : "in device", device.name()));
  }
  OpListener* const listener = t_listener;
  if (device.remote()) {  // Note [Remote devices]
    static_cast<RemoteDevice&>(device).execute(call, inputs, results);
  } else {
    const KernelFn kernel =
        Context::get().kernels().find(call.op, device.type(), call.kernel_dtype);
    // Forwarding would overwrite an input a listener is about to record.
    const std::uint32_t forwardable = listener ? 0u : call.forwardable_inputs;
    KernelContext context(call.op, device, inputs, call.num_inputs, call.outputs, call.num_outputs,
                          call.attrs, results, forwardable, call.resource_inputs);
    kernel(context);
  }
  for (int i = 0; i < call.num_outputs; ++i) {
    if (!results[i].defined()) {
      throw InternalError(
          fmt::format("The {} kernel on {} produced no output #{}", def.name, device.name(), i));
    }
  }
  if (!call.is_constant && g_check_numerics.load(std::memory_order_relaxed)) {
    check_output_numerics(call.op, call.inputs, call.num_inputs, results, call.num_outputs);
  }
  if (listener && !call.is_constant) {
    listener->on_op(ExecutedOp{call.op, call.attrs, call.inputs, call.num_inputs, results,
                               call.num_outputs, device});
  }
}

Tensor execute1(const OpCall& call) {
  Tensor result;
  execute(call, &result);
  return result;
}

std::vector<Tensor> execute_n(const OpCall& call) {
  std::vector<Tensor> results(static_cast<std::size_t>(call.num_outputs));
  execute(call, results.data());
  return results;
}

Tensor execute1(opdefs::OpId op, DType kernel_dtype, const Tensor* inputs, int num_inputs,
                const Shape& shape, DType dtype, const opdefs::OpAttrs& attrs) {
  const TensorSpec output{shape, dtype};
  Tensor result;
  execute(OpCall{op, kernel_dtype, inputs, num_inputs, &output, 1, attrs}, &result);
  return result;
}

OpListener* this_thread_op_listener() { return t_listener; }

OpListener* exchange_this_thread_op_listener(OpListener* listener) {
  OpListener* previous = t_listener;
  t_listener = listener;
  return previous;
}

ScopedOpListener::ScopedOpListener(OpListener& listener) : previous_(t_listener) {
  t_listener = &listener;
}

ScopedOpListener::~ScopedOpListener() { t_listener = previous_; }

}  // namespace eagle::runtime
