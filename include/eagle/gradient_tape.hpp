// eagle::GradientTape: reverse-mode automatic differentiation (docs/guide.md, "Training:
// variables and gradient tapes").
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle {

namespace autodiff {
class TapeState;
}

struct GradientTapeOptions {
  // A persistent tape may compute several sets of gradients; the default releases what it
  // recorded after the first (TensorFlow's rule).
  bool persistent = false;
  // Watch every trainable variable read while recording.
  bool watch_accessed_variables = true;
};

// What gradient() gives a source no recorded op connects to a target: nothing (std::nullopt,
// the default, as TensorFlow: "to safeguard against errors") or zeros of its shape.
enum class UnconnectedGradients { kNone, kZero };
// The short spelling: `.unconnected = Unconnected::kZero`.
using Unconnected = UnconnectedGradients;

struct GradientOptions {
  // The gradient flowing into each target (ones when empty): one per target, of its shape.
  std::vector<Tensor> output_gradients;
  UnconnectedGradients unconnected = UnconnectedGradients::kNone;
};

// A tensor or a variable to differentiate with respect to, or to watch.
class GradientSource {
 public:
  GradientSource(const Tensor& tensor);                   // NOLINT: implicit by design
  GradientSource(const Variable& variable);               // NOLINT: implicit by design
  const Tensor& tensor() const { return tensor_; }        // undefined for a variable
  const Variable& variable() const { return variable_; }  // undefined for a tensor
  bool is_variable() const { return variable_.defined(); }
  std::uint64_t id() const;
  DType dtype() const;
  const Shape& shape() const;

 private:
  Tensor tensor_;
  Variable variable_;
};

// Records, on its own thread, every op with a watched input from its construction until stop()
// or its destruction, and differentiates what it recorded:
//
//   eagle::GradientTape tape;
//   eagle::Tensor loss = eagle::reduce_mean(eagle::square(eagle::matmul(x, w) + b - y));
//   auto grads = tape.gradient(loss, {w, b});   // std::optional<Tensor> per source
//
// Tapes nest (an op is recorded on every recording tape of the thread that watches an input),
// which gives gradients of gradients. Each backward op runs on the device of the forward op it
// differentiates (**eagle**; TensorFlow runs it under the caller's scope). A tape is used on the
// thread that made it; it cannot be copied or moved.
class GradientTape {
 public:
  explicit GradientTape(GradientTapeOptions options = {});
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  // Watches a tensor or a variable, so ops on it are recorded. A non-floating one is not watched
  // (warning, at most 5 times: "The dtype of the watched tensor must be floating (e.g.
  // tf.float32), got tf.int32").
  void watch(const GradientSource& source);
  void watch(const std::vector<GradientSource>& sources);

  // Pauses recording while the guard lives (TensorFlow's tape.stop_recording()).
  class [[nodiscard]] RecordingPause {
   public:
    ~RecordingPause();
    RecordingPause(const RecordingPause&) = delete;
    RecordingPause& operator=(const RecordingPause&) = delete;

   private:
    friend class GradientTape;
    explicit RecordingPause(autodiff::TapeState& state);
    autodiff::TapeState& state_;
    bool was_recording_;
  };
  RecordingPause stop_recording();
  // Ends recording for good (leaving TensorFlow's `with` block); the tape can still differentiate.
  void stop();
  // Forgets everything recorded and watched; recording goes on.
  void reset();

  // d(sum of targets)/d(source) for each source, in order. A non-scalar target is summed. A
  // second call on a non-persistent tape is a RuntimeError (TensorFlow's text).
  std::vector<std::optional<Tensor>> gradient(const Tensor& target,
                                              const std::vector<GradientSource>& sources,
                                              const GradientOptions& options = {});
  std::vector<std::optional<Tensor>> gradient(const std::vector<Tensor>& targets,
                                              const std::vector<GradientSource>& sources,
                                              const GradientOptions& options = {});
  // Any container of variables or tensors as the sources: tape.gradient(loss,
  // model.trainable_variables()), a std::vector<Variable>, a std::array.
  template <class Sources, class = std::enable_if_t<std::is_constructible_v<
                               GradientSource, decltype(*std::begin(std::declval<Sources&>()))>>>
  std::vector<std::optional<Tensor>> gradient(const Tensor& target, const Sources& sources,
                                              const GradientOptions& options = {}) {
    return gradient(target, std::vector<GradientSource>(std::begin(sources), std::end(sources)),
                    options);
  }

  // d(target[i...])/d(source[j...]) for every element pair: shape target.shape + source.shape.
  std::vector<std::optional<Tensor>> jacobian(
      const Tensor& target, const std::vector<GradientSource>& sources,
      UnconnectedGradients unconnected = UnconnectedGradients::kNone);

  // The variables this tape watches, in the order it started watching them.
  std::vector<Variable> watched_variables() const;

 private:
  std::unique_ptr<autodiff::TapeState> state_;
};

}  // namespace eagle
