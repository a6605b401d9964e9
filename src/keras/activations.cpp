// Keras's activations, composed from eagle's ops; softmax and sigmoid remember their logits.
#include "eagle/keras/activations.hpp"

#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::keras::activations {
namespace detail {
namespace {

struct Remembered {
  std::uint64_t output_id;
  LogitsOf kind;
  Tensor logits;
};
// A few recent outputs per thread: enough for a forward pass and its loss, bounded so the
// logits of old batches are not kept alive.
constexpr std::size_t kRemembered = 4;
thread_local std::deque<Remembered> remembered;

}  // namespace

void remember_logits(const Tensor& output, const Tensor& logits, LogitsOf kind) {
  if (remembered.size() == kRemembered) remembered.pop_front();
  remembered.push_back({output.id(), kind, logits});
}

std::optional<Tensor> logits_of(const Tensor& output, LogitsOf kind) {
  for (const Remembered& r : remembered) {
    if (r.output_id == output.id() && r.kind == kind) return r.logits;
  }
  return std::nullopt;
}

}  // namespace detail

Tensor linear(const Tensor& x) { return x; }
Tensor relu(const Tensor& x) { return eagle::relu(x); }
Tensor relu6(const Tensor& x) { return eagle::minimum(eagle::relu(x), scalar_like(x, 6.0)); }

Tensor sigmoid(const Tensor& x) {
  Tensor y = eagle::sigmoid(x);
  detail::remember_logits(y, x, detail::LogitsOf::kSigmoid);
  return y;
}

Tensor tanh(const Tensor& x) { return eagle::tanh(x); }

Tensor softmax(const Tensor& x) {
  Tensor y = eagle::softmax(x);
  detail::remember_logits(y, x, detail::LogitsOf::kSoftmax);
  return y;
}

Tensor exponential(const Tensor& x) { return eagle::exp(x); }

// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), without overflow.
Tensor softplus(const Tensor& x) {
  return eagle::relu(x) + eagle::log1p(eagle::exp(-eagle::abs(x)));
}

Tensor softsign(const Tensor& x) { return x / (eagle::abs(x) + 1.0); }
Tensor swish(const Tensor& x) { return x * eagle::sigmoid(x); }

Tensor elu(const Tensor& x) {
  // exp of the negative part only, so large positive inputs do not overflow.
  return eagle::where(x > 0.0, x, eagle::exp(eagle::minimum(x, scalar_like(x, 0.0))) - 1.0);
}

Tensor selu(const Tensor& x) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  const Tensor negative = (eagle::exp(eagle::minimum(x, scalar_like(x, 0.0))) - 1.0) * kAlpha;
  return eagle::where(x > 0.0, x, negative) * kScale;
}

Tensor gelu(const Tensor& x) { return x * 0.5 * (eagle::erf(x * (1.0 / std::sqrt(2.0))) + 1.0); }

Tensor hard_sigmoid(const Tensor& x) {
  return eagle::clip_by_value(x * 0.2 + 0.5, scalar_like(x, 0.0), scalar_like(x, 1.0));
}

ActivationFn get(const std::string& name) {
  static const std::map<std::string, ActivationFn> table = {
      {"linear", linear},
      {"relu", relu},
      {"relu6", relu6},
      {"sigmoid", sigmoid},
      {"tanh", tanh},
      {"softmax", softmax},
      {"exponential", exponential},
      {"softplus", softplus},
      {"softsign", softsign},
      {"swish", swish},
      {"silu", swish},
      {"elu", elu},
      {"selu", selu},
      {"gelu", gelu},
      {"hard_sigmoid", hard_sigmoid},
  };
  if (name.empty()) return linear;
  const auto it = table.find(name);
  if (it == table.end()) {
    throw InvalidArgumentError(fmt::format(
        "Unknown activation function: '{}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
        "https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details.",
        name));
  }
  return it->second;
}

Activation::Activation(const std::string& name)
    : fn_(name.empty() || name == "linear" ? ActivationFn() : get(name)),
      name_(name.empty() ? "linear" : name) {}

}  // namespace eagle::keras::activations
