// eagle::identity_n and eagle::custom_gradient (tf.identity_n, tf.custom_gradient).
//
// Note [Custom gradients]
// ~~~~~~~~~~~~~~~~~~~~~~~
// As TensorFlow's graph-mode custom_gradient: f runs with every tape of the thread paused, so
// none of its ops is recorded; then one IdentityN over (inputs..., outputs...) is dispatched, and
// its copies of f's outputs are what the caller gets. A tape watching an input records that
// IdentityN, so for the tape f's outputs depend on its inputs through one op, whose gradient
// (IdentityNAttrs::grad_fn, autodiff/array_grad.cpp) is the caller's function from the outputs'
// gradients to the inputs'. The IdentityN's copies of the inputs are dropped unused. Tensors are
// immutable, so IdentityN aliases every buffer and costs one dispatch.
//
// ReplicaContext::all_reduce is built on it (its gradient is the all-reduce of the gradients,
// src/distribute/mirrored_strategy.cpp), and through it SyncBatchNormalization.
#include "eagle/custom_gradient.hpp"

#include <memory>
#include <utility>

#include "autodiff/tape.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops/creation.hpp"
#include "ops/op_support.hpp"
#include "runtime/dispatcher.hpp"

namespace eagle {
namespace {

std::vector<Tensor> run_identity_n(const std::vector<Tensor>& xs, const opdefs::OpAttrs& attrs) {
  std::vector<runtime::TensorSpec> specs;
  specs.reserve(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ops::check_defined(xs[i], opdefs::OpId::kIdentityN, static_cast<int>(i));
    specs.push_back({xs[i].shape(), xs[i].dtype()});
  }
  return runtime::execute_n({opdefs::OpId::kIdentityN, xs[0].dtype(), xs.data(),
                             static_cast<int>(xs.size()), specs.data(),
                             static_cast<int>(specs.size()), attrs});
}

}  // namespace

std::vector<Tensor> identity_n(const std::vector<Tensor>& xs) {
  if (xs.empty()) return {};
  return run_identity_n(xs, opdefs::OpAttrs{opdefs::IdentityNAttrs{}});
}

std::vector<Tensor> custom_gradient(
    const std::function<CustomGradientResult(const std::vector<Tensor>& inputs)>& f,
    const std::vector<Tensor>& inputs) {
  if (!autodiff::thread_is_recording()) return f(inputs).outputs;
  CustomGradientResult result;
  {
    autodiff::ThreadRecordingPause pause;
    result = f(inputs);
  }
  if (!result.grad_fn) {
    throw InvalidArgumentError("custom_gradient function returned no grad_fn");
  }
  if (result.outputs.empty()) return {};
  std::vector<Tensor> all = inputs;
  all.insert(all.end(), result.outputs.begin(), result.outputs.end());
  opdefs::IdentityNAttrs attrs;
  attrs.grad_fn = std::make_shared<const opdefs::CustomGradientFn>(std::move(result.grad_fn));
  attrs.num_outputs = static_cast<int>(result.outputs.size());
  std::vector<Tensor> out = run_identity_n(all, opdefs::OpAttrs{std::move(attrs)});
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(inputs.size()));
  return out;
}

}  // namespace eagle
