// Keras's core layers: InputLayer, Dense, Flatten, Activation, Dropout.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "eagle/keras/activations.hpp"
#include "eagle/keras/layer.hpp"

namespace eagle::keras::layers {

// Keras's Input / InputLayer: declares the shape of one sample (no batch dimension), so a
// Sequential model builds as layers are added. Named "input_1", "input_2", ... (Keras counts
// these from 1).
class InputLayer : public Layer {
 public:
  explicit InputLayer(TensorShape shape, std::string name = "");
  Tensor call(const Tensor& inputs, bool training) override;
  std::string class_name() const override { return "InputLayer"; }
  // The sample shape given (without the batch).
  const TensorShape& shape() const { return shape_; }

 private:
  TensorShape shape_;
};
// keras.Input(shape).
InputLayer Input(TensorShape shape, std::string name = "");

struct DenseOptions {
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  std::string name;                                 // default: "dense", "dense_1", ...
  std::optional<TensorShape> input_shape;           // Keras's input_shape: one sample's shape
  regularizers::RegularizerArg kernel_regularizer;  // "l2", an L2(0.001), ...: in losses()
  regularizers::RegularizerArg bias_regularizer;
};
// Keras's Dense: activation(inputs . kernel + bias), kernel (in, units).
class Dense : public Layer {
 public:
  explicit Dense(std::int64_t units, activations::Activation activation = {},
                 DenseOptions options = {});
  void build(const TensorShape& input_shape) override;
  Tensor call(const Tensor& inputs, bool training) override;
  TensorShape compute_output_shape(const TensorShape& input_shape) const override;
  std::string class_name() const override { return "Dense"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);

  std::int64_t units() const { return units_; }
  const activations::Activation& activation() const { return activation_; }
  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }  // undefined without use_bias

 private:
  std::int64_t units_;
  activations::Activation activation_;
  DenseOptions options_;
  Variable kernel_;
  Variable bias_;
};

struct LayerOptions {
  std::string name;
  std::optional<TensorShape> input_shape;
};

// Keras's Flatten (channels_last): (batch, d1, d2, ...) -> (batch, d1 * d2 * ...); (batch,) ->
// (batch, 1).
class Flatten : public Layer {
 public:
  explicit Flatten(LayerOptions options = {});
  Tensor call(const Tensor& inputs, bool training) override;
  TensorShape compute_output_shape(const TensorShape& input_shape) const override;
  std::string class_name() const override { return "Flatten"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);
};

// Keras's Activation layer.
class Activation : public Layer {
 public:
  explicit Activation(activations::Activation activation, LayerOptions options = {});
  Tensor call(const Tensor& inputs, bool training) override;
  std::string class_name() const override { return "Activation"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);
  const activations::Activation& activation() const { return activation_; }

 private:
  activations::Activation activation_;
};

// Keras's Dropout: while training, each element is zeroed with probability `rate` and the rest
// scaled by 1 / (1 - rate); at inference the identity. With a seed, the masks of successive
// calls differ but repeat from run to run (Keras's seeded generator). In a mirrored model's
// replicas each replica draws its own masks (as TensorFlow's replicas do): replica 0's k-th call
// the single-device k-th mask, replica r's a seed of its own.
class Dropout : public Layer {
 public:
  explicit Dropout(double rate, std::optional<std::uint64_t> seed = std::nullopt,
                   LayerOptions options = {});
  Tensor call(const Tensor& inputs, bool training) override;
  std::string class_name() const override { return "Dropout"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);
  double rate() const { return rate_; }
  const std::optional<std::uint64_t>& seed() const { return seed_; }

 private:
  double rate_;
  std::optional<std::uint64_t> seed_;
  std::uint64_t calls_ = 0;
  // Calls per replica when a mirrored model's replicas call the layer at once (each replica
  // counts its own, so replica r's k-th mask is the same in every run).
  struct ReplicaCalls {
    std::mutex mutex;
    std::map<int, std::uint64_t> calls;
  };
  std::shared_ptr<ReplicaCalls> replica_calls_ = std::make_shared<ReplicaCalls>();
};

namespace detail {
// Inverted dropout of x through eagle::nn::dropout (rate 1, which Keras allows: zeros).
Tensor dropout_op(const Tensor& x, double rate, std::optional<std::uint64_t> seed);
}  // namespace detail

}  // namespace eagle::keras::layers
