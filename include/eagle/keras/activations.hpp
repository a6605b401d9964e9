// Keras's activations by name ("relu", "softmax", ...) or as functions.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "eagle/tensor.hpp"

namespace eagle::keras::activations {

using ActivationFn = std::function<Tensor(const Tensor&)>;

Tensor linear(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor relu6(const Tensor& x);
Tensor sigmoid(const Tensor& x);  // remembers its logits for binary_crossentropy (Keras)
Tensor tanh(const Tensor& x);
Tensor softmax(const Tensor& x);  // over the last axis; remembers its logits (Keras)
Tensor exponential(const Tensor& x);
Tensor softplus(const Tensor& x);
Tensor softsign(const Tensor& x);
Tensor swish(const Tensor& x);  // x * sigmoid(x), also "silu"
Tensor elu(const Tensor& x);    // alpha 1
Tensor selu(const Tensor& x);
Tensor gelu(const Tensor& x);          // exact (erf) form, Keras's default approximate=false
Tensor hard_sigmoid(const Tensor& x);  // Keras 2: clip(0.2 x + 0.5, 0, 1)

// An activation by Keras's name; "linear" (and "") is the identity. Another name is
// InvalidArgumentError with Keras's text: "Unknown activation function: 'foo'. Please ensure
// ...".
ActivationFn get(const std::string& name);

// A layer's activation argument: a Keras name, a function, or nothing (linear).
class Activation {
 public:
  Activation() = default;
  Activation(const char* name) : Activation(std::string(name)) {}  // NOLINT: implicit by design
  Activation(const std::string& name);                             // NOLINT: implicit by design
  Activation(ActivationFn fn, std::string name = "custom")         // NOLINT: implicit by design
      : fn_(std::move(fn)), name_(std::move(name)) {}
  Tensor operator()(const Tensor& x) const { return fn_ ? fn_(x) : x; }
  const std::string& name() const { return name_; }
  // Whether this is the identity ("linear"), or the function f itself (by name or as f): what
  // lets a layer fuse its activation into an op (Note [Fused convolutions]).
  bool is(Tensor (*f)(const Tensor&)) const {
    const auto* target = fn_.target<Tensor (*)(const Tensor&)>();
    return target != nullptr && *target == f;
  }
  bool is_linear() const { return !fn_ || is(linear); }

 private:
  ActivationFn fn_;
  std::string name_ = "linear";
};

namespace detail {
// Keras caches the input of softmax and sigmoid on their output (`_keras_logits`) so a
// crossentropy of probabilities is computed from the logits instead (docs/guide.md, "Keras layers
// and models", Losses). These look the logits up by the output's id (a few recent outputs per
// thread are kept).
enum class LogitsOf { kSoftmax, kSigmoid };
void remember_logits(const Tensor& output, const Tensor& logits, LogitsOf kind);
std::optional<Tensor> logits_of(const Tensor& output, LogitsOf kind);
}  // namespace detail

}  // namespace eagle::keras::activations
