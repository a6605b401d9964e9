// eagle::keras::Layer: Keras 2's base layer (names, build on first call, weights, input checks).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eagle/initializers.hpp"
#include "eagle/io/json.hpp"
#include "eagle/keras/regularizers.hpp"
#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle::keras {

// A shape whose dimensions may be unknown (Keras's None, usually the batch): (None, 784).
using TensorShape = std::vector<std::optional<std::int64_t>>;
// Python's repr of the shape tuple: "(None, 26, 26, 32)", "(None,)".
std::string to_string(const TensorShape& shape);
// The shape of a tensor, every dimension known.
TensorShape shape_of(const Tensor& x);

// An initializer argument: a Keras name ("glorot_uniform", "zeros", ...) or a function.
class InitializerArg {
 public:
  InitializerArg(const char* name) : name_(name) {}             // NOLINT: implicit by design
  InitializerArg(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit by design
  InitializerArg(initializers::Initializer fn) : fn_(std::move(fn)) {}  // NOLINT: implicit
  // The initializer (the name resolved by initializers::get, which refuses unknown names).
  initializers::Initializer get() const;

 private:
  std::string name_;
  initializers::Initializer fn_;
};

class LayerConfig;  // eagle/keras/layer_config.hpp

// Layers are used through std::shared_ptr (Sequential holds them so): a copy of a built layer
// shares its variables. A layer may hold other layers (a Model is a Layer whose layers are its
// own): its weight lists then follow Keras 3's, its own weights first, then each inner layer's.
class Layer {
 public:
  virtual ~Layer() = default;

  // Keras's __call__: builds the layer from the input's shape on the first call, checks the
  // input against the layer's input spec (InvalidArgumentError with Keras's text), then call().
  Tensor operator()(const Tensor& inputs, bool training = false);

  // Creates the weights for inputs of this shape (the batch dimension may be unknown), under the
  // current device scope: the variables stay on the device chosen then.
  virtual void build(const TensorShape& input_shape);
  // The computation, on an input the spec accepted.
  virtual Tensor call(const Tensor& inputs, bool training) = 0;
  // The output shape for an input shape (default: the same).
  virtual TensorShape compute_output_shape(const TensorShape& input_shape) const;
  // Keras's class name: "Dense", "Flatten", ...
  virtual std::string class_name() const = 0;
  // The class Keras 3 knows the layer as, in its files (.keras configs, .weights.h5 group names):
  // class_name() but for Keras 2 classes Keras 3 folded into another.
  virtual std::string keras3_class_name() const { return class_name(); }
  // Keras's get_config: the layer's arguments by their Keras 3 names, as .keras files hold them
  // (name, trainable and dtype here; each class adds its own and registers its from_config next
  // to it: eagle/keras/layer_config.hpp).
  virtual eagle::io::Json get_config() const;

  const std::string& name() const { return name_; }
  bool built() const { return built_; }
  bool trainable() const { return trainable_; }
  void set_trainable(bool trainable) { trainable_ = trainable; }
  // The input shape given at construction (Keras's input_shape argument), if any.
  const std::optional<TensorShape>& input_shape() const { return input_shape_; }
  void set_input_shape(TensorShape shape) { input_shape_ = std::move(shape); }
  // The output shape recorded when the layer was built inside a model (for summary()).
  const std::optional<TensorShape>& output_shape() const { return output_shape_; }
  void set_output_shape(TensorShape shape) { output_shape_ = std::move(shape); }

  // Keras 3's weight lists, inner layers' included: every weight (the layer's own, trainable
  // ones first, then each inner layer's, in order); the trainable ones (none when this layer is
  // frozen); the others (all of them when it is frozen).
  std::vector<Variable> weights() const;
  std::vector<Variable> trainable_variables() const;
  std::vector<Variable> non_trainable_variables() const;
  // Scalars in the weights. Before build: InvalidArgumentError, Keras's text.
  std::int64_t count_params() const;
  // The weights' values, and setting them (same count, same shapes; Keras's texts otherwise).
  std::vector<Tensor> get_weights() const;
  void set_weights(const std::vector<Tensor>& weights);
  // Keras 3's layer.losses: each trainable weight's regularization penalty, computed now from its
  // value (so under a GradientTape it is differentiable), in trainable_variables() order; none
  // when the layer is frozen. fit adds them to the loss.
  std::vector<Tensor> losses() const;
  // A checkpoint's values for weights(): set now when the layer is built, else when it is
  // (TensorFlow's deferred restoration of a model not yet built). pending_restore() is true while
  // values wait.
  // `then`, when given, runs with the weights just after they take the values (a checkpoint
  // restores the optimizer's slots of those weights with it).
  void restore_when_built(std::vector<Tensor> values,
                          std::function<void(const std::vector<Variable>&)> then = nullptr);
  bool pending_restore() const { return !pending_weights_.empty(); }

 protected:
  // `class_name` gives the automatic name ("Dense" -> "dense", "dense_1", ...) unless `name` is
  // set.
  Layer(const std::string& class_name, std::string name);
  Layer(const Layer&) = default;
  Layer& operator=(const Layer&) = default;

  // A weight named "<layer>/<name>:0" of float32, made under the current device scope (and the
  // strategy's, when one is open: `aggregation` says how the replicas' assignments combine). A
  // regularizer's penalty of it joins losses().
  Variable add_weight(const std::string& name, const Shape& shape,
                      const initializers::Initializer& initializer, bool trainable = true,
                      VariableAggregation aggregation = VariableAggregation::kNone,
                      std::shared_ptr<const regularizers::Regularizer> regularizer = nullptr);
  // Keras's InputSpec: the least rank accepted, and fixed sizes of some axes (negative from the
  // end).
  struct InputSpec {
    std::optional<int> min_ndim;
    std::map<int, std::int64_t> axes;
  };
  void set_input_spec(InputSpec spec) { input_spec_ = std::move(spec); }
  // Marks the layer built; weights a checkpoint restored before it was (restore_when_built) are
  // assigned now, once there are as many weights as values.
  void set_built();
  // The layers this one holds (Keras tracks them as attributes; a Model's are its layers()):
  // their weights are part of this layer's lists.
  virtual std::vector<std::shared_ptr<Layer>> tracked_layers() const { return {}; }

 private:
  void check_input(const Tensor& inputs) const;

  std::string name_;
  bool built_ = false;
  bool trainable_ = true;
  std::optional<TensorShape> input_shape_;
  std::optional<TensorShape> output_shape_;
  std::optional<InputSpec> input_spec_;
  std::vector<Variable> weights_;
  std::vector<bool> weight_trainable_;
  std::vector<std::shared_ptr<const regularizers::Regularizer>> weight_regularizers_;
  std::vector<Tensor> pending_weights_;
  std::function<void(const std::vector<Variable>&)> pending_then_;
};

}  // namespace eagle::keras
