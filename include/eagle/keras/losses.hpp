// Keras's losses, reduced as Keras 3 reduces them (docs/guide.md, "Losses and their reduction").
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "eagle/io/json.hpp"
#include "eagle/tensor.hpp"

namespace eagle::keras::losses {

// Keras 3's reductions: "sum_over_batch_size" (the default: the sum divided by the number of
// values, then by the number of replicas when a strategy with several is current, as Keras's
// scale_loss_for_distribution), "mean" (the same), "mean_with_sample_weight" (divided by the sum
// of the sample weights when there are some), "sum", "none" (the values themselves).
inline constexpr const char* kSumOverBatchSize = "sum_over_batch_size";

class Loss {
 public:
  // Another reduction is InvalidArgumentError with Keras's text.
  explicit Loss(std::string reduction = kSumOverBatchSize);
  virtual ~Loss() = default;
  // The loss of a batch: call() per sample, each weighted by sample_weight when given (a weight
  // per sample, or of the values' shape), then the reduction.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred) const;
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) const;
  // One value per sample (the last axis reduced).
  virtual Tensor call(const Tensor& y_true, const Tensor& y_pred) const = 0;
  // Keras's name: "sparse_categorical_crossentropy", "mean_squared_error", ...
  virtual std::string name() const = 0;
  // Keras's class name ("SparseCategoricalCrossentropy"; "" for a loss of yours, which cannot be
  // serialized) and get_config(): {"name", "reduction", then the class's own arguments}, as
  // keras.losses.serialize writes them.
  virtual std::string class_name() const { return ""; }
  virtual eagle::io::Json get_config() const;
  const std::string& reduction() const { return reduction_; }

 private:
  std::string reduction_;
};

// Keras 3's reduce_weighted_values: the weighted per-sample values reduced as `reduction` says.
Tensor reduce_weighted_values(const Tensor& values, const Tensor* sample_weight,
                              const std::string& reduction);

// Integer labels (N) or (N, 1) against (N, classes) scores. from_logits=false takes
// probabilities: those from a softmax are turned back into its logits (Keras's fused path),
// others clipped to [1e-7, 1 - 1e-7]. A label outside [0, classes) is InvalidArgumentError
// with TensorFlow's text.
class SparseCategoricalCrossentropy : public Loss {
 public:
  explicit SparseCategoricalCrossentropy(bool from_logits = false,
                                         std::string reduction = kSumOverBatchSize)
      : Loss(std::move(reduction)), from_logits_(from_logits) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string name() const override { return "sparse_categorical_crossentropy"; }
  std::string class_name() const override { return "SparseCategoricalCrossentropy"; }
  eagle::io::Json get_config() const override;

 private:
  bool from_logits_;
};

// One-hot (or soft) labels against scores of the same shape; the same rules.
class CategoricalCrossentropy : public Loss {
 public:
  explicit CategoricalCrossentropy(bool from_logits = false,
                                   std::string reduction = kSumOverBatchSize)
      : Loss(std::move(reduction)), from_logits_(from_logits) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string name() const override { return "categorical_crossentropy"; }
  std::string class_name() const override { return "CategoricalCrossentropy"; }
  eagle::io::Json get_config() const override;

 private:
  bool from_logits_;
};

// 0/1 labels against probabilities (a sigmoid's are turned back into logits) or logits; the
// mean over the last axis. Keras 2's formula: -(y log(p + 1e-7) + (1 - y) log(1 - p + 1e-7))
// with p clipped to [1e-7, 1 - 1e-7].
class BinaryCrossentropy : public Loss {
 public:
  explicit BinaryCrossentropy(bool from_logits = false, std::string reduction = kSumOverBatchSize)
      : Loss(std::move(reduction)), from_logits_(from_logits) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string name() const override { return "binary_crossentropy"; }
  std::string class_name() const override { return "BinaryCrossentropy"; }
  eagle::io::Json get_config() const override;

 private:
  bool from_logits_;
};

// mean((y_pred - y_true)^2) over the last axis.
class MeanSquaredError : public Loss {
 public:
  explicit MeanSquaredError(std::string reduction = kSumOverBatchSize)
      : Loss(std::move(reduction)) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string name() const override { return "mean_squared_error"; }
  std::string class_name() const override { return "MeanSquaredError"; }
};

// mean(|y_pred - y_true|) over the last axis.
class MeanAbsoluteError : public Loss {
 public:
  explicit MeanAbsoluteError(std::string reduction = kSumOverBatchSize)
      : Loss(std::move(reduction)) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string name() const override { return "mean_absolute_error"; }
  std::string class_name() const override { return "MeanAbsoluteError"; }
};

// By Keras's name: "sparse_categorical_crossentropy", "categorical_crossentropy",
// "binary_crossentropy", "mse" / "mean_squared_error", "mae" / "mean_absolute_error", or the
// class names. Another: InvalidArgumentError "Unknown loss function: 'foo'. Please ensure ...".
std::shared_ptr<Loss> get(const std::string& name);
// keras.losses.serialize: {"module": "keras.losses", "class_name", "config": get_config(),
// "registered_name": null}.
eagle::io::Json serialize(const Loss& loss);
// keras.losses.deserialize: a loss from a name (as get) or such an object. Settings eagle's
// losses lack (label_smoothing, an axis other than -1, ignore_class) are UnimplementedError, an
// unknown key or class InvalidArgumentError / UnimplementedError.
std::shared_ptr<Loss> deserialize(const eagle::io::Json& serialized);

namespace detail {
// Per-sample crossentropies from logits, through the fused ops
// eagle::nn::sparse_softmax_cross_entropy_with_logits (labels cast to int64 unless integral) and
// softmax_cross_entropy_with_logits.
Tensor sparse_softmax_xent(const Tensor& labels, const Tensor& logits);
Tensor softmax_xent(const Tensor& labels, const Tensor& logits);
}  // namespace detail

}  // namespace eagle::keras::losses
