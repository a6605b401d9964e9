// tf.custom_gradient for eager code: a function whose gradient the caller defines.
#pragma once

#include <functional>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle {

// What the function given to custom_gradient returns: its outputs, and the function that maps
// the gradients of those outputs (one per output, zeros where no target depends on it) to the
// gradients of its inputs (one per input; an undefined Tensor means none). grad_fn may capture
// what the forward computed, as TensorFlow's closures do.
struct CustomGradientResult {
  std::vector<Tensor> outputs;
  std::function<std::vector<Tensor>(const std::vector<Tensor>& output_grads)> grad_fn;
};

// Runs f(inputs) and returns its outputs. While a gradient tape of this thread records, f's own
// ops are not recorded (every tape of the thread is paused while f runs); instead the tape sees
// the outputs depend on the inputs through one op (IdentityN) whose gradient is grad_fn's
// (Note [Custom gradients] in src/autodiff/custom_gradient.cpp). Gradients reach only `inputs`: a
// variable f reads gets none through f (pass its value as an input). With no tape recording, f
// simply runs and grad_fn is dropped.
//
// Errors, when the gradient is computed: InvalidArgumentError "custom_gradient function expected
// to return 2 gradients, but returned 1 instead." (TensorFlow's text), and one naming the input
// whose gradient has the wrong shape or dtype. f's outputs and the inputs must be on one device.
std::vector<Tensor> custom_gradient(
    const std::function<CustomGradientResult(const std::vector<Tensor>& inputs)>& f,
    const std::vector<Tensor>& inputs);

}  // namespace eagle
