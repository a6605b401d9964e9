// Keras's convolution and pooling layers (channels_last): Conv2D, MaxPooling2D,
// AveragePooling2D, on eagle::nn's ops (Conv2D, MaxPool, AvgPool, BiasAdd).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "eagle/keras/activations.hpp"
#include "eagle/keras/layer.hpp"
#include "eagle/ops/nn.hpp"

namespace eagle::keras::layers {

// Keras's int-or-tuple arguments (kernel_size, strides, pool_size): `3` or `{3, 2}`.
struct Size2 {
  Size2(std::int64_t n) : rows(n), cols(n) {}  // NOLINT: Keras's `kernel_size=3`
  Size2(std::int64_t r, std::int64_t c) : rows(r), cols(c) {}
  std::int64_t rows, cols;
};

struct Conv2DOptions {
  Size2 strides = 1;
  std::string padding = "valid";  // "valid" or "same" (any case, as Keras)
  Size2 dilation_rate = 1;
  // Keras's groups: the input channels split into `groups` slices, each convolved with its own
  // filters / groups filters (both must be divisible by it); the kernel is then
  // (rows, cols, in / groups, filters).
  std::int64_t groups = 1;
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  std::string name;                                 // default: "conv2d", "conv2d_1", ...
  std::optional<TensorShape> input_shape;           // one sample's shape (rows, cols, channels)
  regularizers::RegularizerArg kernel_regularizer;  // "l2", an L2(0.001), ...: in losses()
  regularizers::RegularizerArg bias_regularizer;
};
// Keras's Conv2D: activation(conv2d(inputs, kernel) + bias), kernel (rows, cols, in / groups,
// filters) (HWIO), inputs NHWC.
class Conv2D : public Layer {
 public:
  Conv2D(std::int64_t filters, Size2 kernel_size, activations::Activation activation = {},
         Conv2DOptions options = {});
  void build(const TensorShape& input_shape) override;
  Tensor call(const Tensor& inputs, bool training) override;
  TensorShape compute_output_shape(const TensorShape& input_shape) const override;
  std::string class_name() const override { return "Conv2D"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);

  std::int64_t filters() const { return filters_; }
  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }  // undefined without use_bias
  // The configuration (what .keras files record).
  Size2 kernel_size() const { return kernel_size_; }
  const activations::Activation& activation() const { return activation_; }
  const Conv2DOptions& options() const { return options_; }

 private:
  std::int64_t filters_;
  Size2 kernel_size_;
  activations::Activation activation_;
  Conv2DOptions options_;
  bool same_;
  Variable kernel_;
  Variable bias_;
};

struct Pooling2DOptions {
  std::optional<Size2> strides;   // default: pool_size, as Keras
  std::string padding = "valid";  // "valid" or "same"
  std::string name;
  std::optional<TensorShape> input_shape;
};
// Keras's Pooling2D base (keras/src/layers/pooling/base_pooling.py): the pool size, strides and
// padding of a 2-D pooling layer, its input spec and output shape; a subclass gives the op.
class Pooling2D : public Layer {
 public:
  Tensor call(const Tensor& inputs, bool training) override;
  TensorShape compute_output_shape(const TensorShape& input_shape) const override;
  Size2 pool_size() const { return pool_size_; }
  Size2 strides() const { return strides_; }
  bool same_padding() const { return same_; }
  eagle::io::Json get_config() const override;

 protected:
  // pool_size and strides must be positive, padding "valid" or "same": InvalidArgumentError with
  // Keras's texts otherwise.
  Pooling2D(const std::string& class_name, Size2 pool_size, Pooling2DOptions options);
  // The pooling op on NHWC inputs.
  virtual Tensor pool(const Tensor& inputs, const nn::Pool2DOptions& options) const = 0;

 private:
  Size2 pool_size_, strides_;
  bool same_;
};

// Keras's MaxPooling2D and AveragePooling2D (pool_size 2 by default).
class MaxPooling2D : public Pooling2D {
 public:
  explicit MaxPooling2D(Size2 pool_size = 2, Pooling2DOptions options = {});
  std::string class_name() const override { return "MaxPooling2D"; }
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);

 protected:
  Tensor pool(const Tensor& inputs, const nn::Pool2DOptions& options) const override;
};

class AveragePooling2D : public Pooling2D {
 public:
  explicit AveragePooling2D(Size2 pool_size = 2, Pooling2DOptions options = {});
  std::string class_name() const override { return "AveragePooling2D"; }
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);

 protected:
  Tensor pool(const Tensor& inputs, const nn::Pool2DOptions& options) const override;
};

}  // namespace eagle::keras::layers
