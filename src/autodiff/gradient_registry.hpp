// The gradient of every differentiable op, in an array parallel to the op table.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "eagle/tensor.hpp"
#include "opdefs/attrs.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_context.hpp"

namespace eagle::autodiff {

using runtime::TensorSpec;

// One forward tensor as a tape keeps it: its id and spec always, its value only when the op's
// gradient reads it (GradientDef::saved_inputs / saved_outputs).
struct TapeTensor {
  std::uint64_t id = 0;
  TensorSpec spec;
  Tensor value;  // undefined unless saved
};

// What a gradient function sees of the op it differentiates.
class GradContext {
 public:
  GradContext(opdefs::OpId op, const opdefs::OpAttrs& attrs, const std::vector<TapeTensor>& inputs,
              const std::vector<TapeTensor>& outputs, const std::vector<Tensor>& output_grads,
              const std::vector<bool>& needs_input_grad)
      : op_(op),
        attrs_(attrs),
        inputs_(inputs),
        outputs_(outputs),
        output_grads_(output_grads),
        needs_input_grad_(needs_input_grad) {}

  opdefs::OpId op() const { return op_; }
  template <class T>
  const T& attrs() const {
    return std::get<T>(attrs_);
  }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // A forward input or output value; InternalError when the op's GradientDef did not save it.
  const Tensor& input(int i) const;
  const Tensor& output(int i = 0) const;
  const Shape& input_shape(int i) const { return inputs_[i].spec.shape; }
  DType input_dtype(int i) const { return inputs_[i].spec.dtype; }
  const Shape& output_shape(int i = 0) const { return outputs_[i].spec.shape; }
  // The gradient flowing into output i: zeros of its spec when no target depends on it.
  Tensor grad(int i = 0) const;
  bool has_grad(int i) const { return output_grads_[i].defined(); }
  // Whether input i leads to a source: a gradient function may skip the others (matmul's data).
  bool needs_input_grad(int i) const { return needs_input_grad_[i]; }

 private:
  opdefs::OpId op_;
  const opdefs::OpAttrs& attrs_;
  const std::vector<TapeTensor>& inputs_;
  const std::vector<TapeTensor>& outputs_;
  const std::vector<Tensor>& output_grads_;
  const std::vector<bool>& needs_input_grad_;
};

// Fills `input_grads` (one per input, pre-sized, undefined) with the gradient of each input
// that needs one; undefined means no gradient (an integer input, an index).
using GradFn = void (*)(const GradContext& ctx, std::vector<Tensor>& input_grads);

inline constexpr std::uint32_t kSaveNone = 0;
inline constexpr std::uint32_t kSaveAll = ~std::uint32_t{0};  // every input (variadic ops)
constexpr std::uint32_t save(int i) { return std::uint32_t{1} << i; }
constexpr std::uint32_t save(int i, int j) { return save(i) | save(j); }

// Note [Saved tensors]
// ~~~~~~~~~~~~~~~~~~~~
// A tape holds a forward tensor only when its op's gradient reads it: Add keeps nothing (the
// shapes are always kept), Mul its two inputs, Exp and Relu their output. That is what lets a
// tape release activations as soon as no gradient needs them, as PyTorch's SavedVariable and
// TensorFlow's unused-inputs lists do (docs/guide.md, "Training: variables and gradient tapes").
struct GradientDef {
  GradFn fn = nullptr;
  std::uint32_t saved_inputs = kSaveNone;
  std::uint32_t saved_outputs = kSaveNone;
};

class GradientRegistry {
 public:
  // InternalError for an op registered twice or one the op table marks kNoGrad.
  void add(opdefs::OpId op, GradFn fn, std::uint32_t saved_inputs = kSaveNone,
           std::uint32_t saved_outputs = kSaveNone);
  const GradientDef& operator[](opdefs::OpId op) const { return defs_[static_cast<int>(op)]; }

 private:
  std::array<GradientDef, opdefs::kNumOps> defs_{};
};

// Note [Gradient registry]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Filled once, explicitly, from gradient_registry.cpp, by one function per op family, each in
// the file beside that family's gradients (math_grad.cpp, array_grad.cpp, ...).
// gradient_registry_test walks the op table: a kGrad op without a gradient, or a
// kNoGrad op with one, fails it, so a new op cannot silently lack its gradient.
const GradientRegistry& gradient_registry();

void register_math_gradients(GradientRegistry& registry);
void register_reduction_gradients(GradientRegistry& registry);
void register_linalg_gradients(GradientRegistry& registry);
void register_array_gradients(GradientRegistry& registry);
void register_index_gradients(GradientRegistry& registry);
void register_nn_gradients(GradientRegistry& registry);
void register_conv_gradients(GradientRegistry& registry);

}  // namespace eagle::autodiff
