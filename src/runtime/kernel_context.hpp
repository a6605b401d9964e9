// The contract between the dispatcher and a kernel: inputs, attributes, output specs, outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <variant>

#include "eagle/dtype.hpp"
#include "eagle/errors.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "opdefs/attrs.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/device.hpp"
#include "runtime/tensor_access.hpp"

namespace eagle::runtime {

class TensorImpl;

// The shape and dtype of one output, inferred and validated by the op before dispatch.
struct TensorSpec {
  Shape shape;
  DType dtype;
};

// Everything a kernel sees. Inputs already live on `device()`. A kernel produces each of its
// outputs exactly once: allocate_output(i) (fresh bytes to write), set_output(i, t) (an existing
// tensor: an alias, a forwarded input), or forward_input_or_allocate_output(in, out).
// See Note [Kernel contract] in runtime/dispatcher.cpp.
class KernelContext {
 public:
  KernelContext(opdefs::OpId op, Device& device, const Tensor* inputs, int num_inputs,
                const TensorSpec* outputs, int num_outputs, const opdefs::OpAttrs& attrs,
                Tensor* results, std::uint32_t forwardable_inputs, std::uint32_t resource_inputs)
      : op_(op),
        device_(device),
        inputs_(inputs),
        num_inputs_(num_inputs),
        specs_(outputs),
        num_outputs_(num_outputs),
        attrs_(attrs),
        results_(results),
        forwardable_inputs_(forwardable_inputs),
        resource_inputs_(resource_inputs) {}
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;

  opdefs::OpId op() const { return op_; }  // for error texts: "[Op:FloorDiv]"
  Device& device() const { return device_; }
  int num_inputs() const { return num_inputs_; }
  const TensorImpl& input(int i) const { return *impl_of(inputs_[i]); }
  const Tensor& input_tensor(int i) const { return inputs_[i]; }

  int num_outputs() const { return num_outputs_; }
  const Shape& output_shape(int i = 0) const { return specs_[i].shape; }
  DType output_dtype(int i = 0) const { return specs_[i].dtype; }

  // The op's attribute struct; InternalError when the call carries another one.
  template <class T>
  const T& attrs() const {
    if (const T* a = std::get_if<T>(&attrs_)) return *a;
    throw InternalError("A kernel asked for attributes its op's call does not carry");
  }

  // Fresh, uninitialized bytes for output i, which the kernel then fills.
  TensorImpl* allocate_output(int i = 0);
  // Output i is `t` (an alias of an input, or a tensor the kernel made): its shape and dtype
  // must be output i's spec.
  void set_output(int i, Tensor t);
  void set_output(int i, std::shared_ptr<TensorImpl> t);
  // Output i reuses input `in`'s bytes when the caller gave the input up (OpCall's
  // forwardable_inputs), nothing else holds them, nothing is recording the op, and the sizes
  // agree; otherwise fresh bytes. Either way the kernel then writes output i (TF's input
  // forwarding: `x = relu(x)` with a donated x allocates nothing).
  TensorImpl* forward_input_or_allocate_output(int in, int i = 0);
  // A resource input (OpCall's resource_inputs: a variable's buffer), to update in place. Copies
  // of its old value on other devices (Note [Mirrors]) are dropped. When a value read from the
  // variable still shares the bytes, the buffer gets fresh ones first (Note [Variable storage]),
  // holding the old contents when `keep_contents` (assign_add) and uninitialized otherwise.
  TensorImpl& mutable_input(int i, bool keep_contents = true);

 private:
  opdefs::OpId op_;
  Device& device_;
  const Tensor* inputs_;
  int num_inputs_;
  const TensorSpec* specs_;
  int num_outputs_;
  const opdefs::OpAttrs& attrs_;
  Tensor* results_;
  std::uint32_t forwardable_inputs_;
  std::uint32_t resource_inputs_;
};

using KernelFn = void (*)(KernelContext&);

}  // namespace eagle::runtime
