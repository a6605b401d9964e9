// The one path every op takes: scope check, placement, input copies, kernel, log line, listener.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "opdefs/attrs.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/kernel_context.hpp"

namespace eagle::runtime {

// The attributes of an op that has none.
inline const opdefs::OpAttrs& no_attrs() {
  static const opdefs::OpAttrs kNone{opdefs::NoAttrs{}};
  return kNone;
}

struct OpCall {
  opdefs::OpId op;
  DType kernel_dtype;  // the kernel-table key (usually the first input's dtype)
  const Tensor* inputs;
  int num_inputs;
  const TensorSpec* outputs;  // inferred and validated by the op before dispatch
  int num_outputs;
  const opdefs::OpAttrs& attrs = no_attrs();
  bool is_constant = false;  // Const: host default, always soft, no log (Note [Constant placement])
  // Bit i: input i is a resource (a variable's buffer). The op runs on the resource's device
  // whatever the scope says (TensorFlow's MaybePinToResourceDevice), and its kernel may update
  // the input in place (KernelContext::mutable_input).
  std::uint32_t resource_inputs = 0;
  // Bit i: the caller gives input i up (it moved its handle into `inputs`), so an output may
  // take over its bytes (KernelContext::forward_input_or_allocate_output).
  std::uint32_t forwardable_inputs = 0;
};

// Runs the op; `results` receives call.num_outputs tensors.
void execute(const OpCall& call, Tensor* results);
// The common case of one output.
Tensor execute1(const OpCall& call);
std::vector<Tensor> execute_n(const OpCall& call);

// One output of `shape` and `dtype`, keyed by `kernel_dtype`.
Tensor execute1(opdefs::OpId op, DType kernel_dtype, const Tensor* inputs, int num_inputs,
                const Shape& shape, DType dtype, const opdefs::OpAttrs& attrs = no_attrs());

// What a listener sees of each executed op (constants excluded): the caller's own input
// handles (not copies the dispatcher made on the op's device), the outputs and the device.
struct ExecutedOp {
  opdefs::OpId op;
  const opdefs::OpAttrs& attrs;
  const Tensor* inputs;
  int num_inputs;
  const Tensor* outputs;
  int num_outputs;
  Device& device;
};

// Note [Op listeners]
// ~~~~~~~~~~~~~~~~~~~
// A gradient tape (or a profiler) sees every op the calling thread executes through one
// thread-local pointer, read after the kernel: with nothing listening an op pays one
// thread-local load. Listeners nest: installing one saves the previous, which the new one may
// forward to; ScopedOpListener restores it. A listener's exception propagates out of the op.
class OpListener {
 public:
  virtual ~OpListener() = default;
  virtual void on_op(const ExecutedOp& op) = 0;
};

OpListener* this_thread_op_listener();
// Installs `listener` on this thread and returns the one it replaces, for a listener whose life
// is not a C++ scope (the thread's set of gradient tapes); ScopedOpListener is the usual way.
OpListener* exchange_this_thread_op_listener(OpListener* listener);

class [[nodiscard]] ScopedOpListener {
 public:
  explicit ScopedOpListener(OpListener& listener);
  ~ScopedOpListener();
  ScopedOpListener(const ScopedOpListener&) = delete;
  ScopedOpListener& operator=(const ScopedOpListener&) = delete;
  OpListener* previous() const { return previous_; }

 private:
  OpListener* previous_;
};

}  // namespace eagle::runtime
