// Keras's Model (a Trainer with layers, weights, weight files and summary) and Sequential.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/keras/layer.hpp"
#include "eagle/keras/trainer.hpp"
#include "eagle/tensor.hpp"

namespace eagle::keras {

// A model: a Layer whose layers are applied by call() and trained as Keras trains (Trainer: one
// GradientTape per batch, the loss, optimizer.apply_gradients). Its weight lists, count_params and
// get/set_weights are Layer's, over its layers; a model can be a layer of another model. Not
// copyable; callbacks get a pointer to it.
class Model : public Layer, public Trainer {
 public:
  ~Model() override = default;

  // The layers, in order (Keras's model.layers).
  virtual std::vector<std::shared_ptr<Layer>> layers() const = 0;
  // The forward pass (builds the model on the first call from the input's shape).
  Tensor call(const Tensor& inputs, bool training) override = 0;

  // Keras 3's model.save_weights / load_weights: a `.weights.h5` file (HDF5) with one group per
  // layer, so weights move between eagle and Keras both ways (Note [Keras 3 weights layout]).
  // load_weights checks every layer's count and shapes before assigning any (Keras's texts); the
  // model must be built. Without HDF5 in the build: UnimplementedError. A compiled model's file
  // holds its optimizer's variables too (group "optimizer", as Keras 3's); load_weights assigns
  // them to a compiled model's optimizer when the counts agree (an optimizer not yet built is
  // built over trainable_variables() first, which Keras does not do) and otherwise logs Keras's
  // warning "Skipping variable loading for optimizer ..." and leaves it as it is.
  void save_weights(const std::string& filepath) const;
  void load_weights(const std::string& filepath);

  // Keras 2's table on io::print_stream(). Before build: InvalidArgumentError, Keras's text.
  void summary(int line_length = 65) const;

 protected:
  Model(const std::string& class_name, std::string name) : Layer(class_name, std::move(name)) {}
  std::vector<std::shared_ptr<Layer>> tracked_layers() const override { return layers(); }
};

// Keras's Sequential: a stack of layers, each fed the previous one's output. With an input
// shape (an InputLayer first, or input_shape on the first layer) it builds as layers are added;
// otherwise at build() or the first call.
class Sequential : public Model {
 public:
  explicit Sequential(std::string name = "");
  explicit Sequential(const std::vector<std::shared_ptr<Layer>>& layers, std::string name = "");

  // Adds a layer (a copy of `layer`; keep the shared_ptr form to hold a handle). A name already
  // in the model is InvalidArgumentError, Keras's text.
  void add(std::shared_ptr<Layer> layer);
  template <class L, class = std::enable_if_t<std::is_base_of_v<Layer, std::decay_t<L>>>>
  void add(L&& layer) {
    add(std::shared_ptr<Layer>(std::make_shared<std::decay_t<L>>(std::forward<L>(layer))));
  }
  void pop();

  // Builds every layer for inputs of this shape (batch first, usually unknown: {std::nullopt,
  // 784}).
  void build(const TensorShape& input_shape) override;
  std::vector<std::shared_ptr<Layer>> layers() const override { return layers_; }
  Tensor call(const Tensor& inputs, bool training) override;
  // The last layer's output shape for this input shape.
  TensorShape compute_output_shape(const TensorShape& input_shape) const override;
  std::string class_name() const override { return "Sequential"; }

  // The input shape with the batch dimension ((None, 28, 28, 1)), once known.
  const std::optional<TensorShape>& input_shape() const { return input_shape_; }
  // Keras 3's model.save("m.keras"): a .keras file (a zip of config.json, metadata.json and
  // model.weights.h5; Note [Keras 3 .keras files]) that keras.models.load_model and
  // eagle::keras::models::load_model read. The model must be built, its layers among those
  // load_model knows, with named activations. A compiled model's file holds its compile()
  // settings (get_compile_config) and its optimizer's variables, as Keras 3's. Another extension
  // than .keras is InvalidArgumentError (Keras's text); without HDF5 in the build,
  // UnimplementedError; a loss, metric or learning-rate function with no Keras class,
  // UnimplementedError.
  void save(const std::string& filepath) const;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
  std::optional<TensorShape> input_shape_;  // with the batch dimension
};

namespace models {

// Keras 3's keras.models.load_model for .keras files: the Sequential model that config.json
// describes, built from its input shape, with the weights of model.weights.h5 (Note [Keras 3
// .keras files]). Layers: InputLayer, Dense, Conv2D, MaxPooling2D, AveragePooling2D, Flatten,
// Dropout, BatchNormalization, Activation, with their names, trainable flags and the
// configuration eagle's layers have, and the kernel and bias regularizers; initializers are not
// read. With a compile_config the model comes back compiled (compile_from_config) with its
// optimizer's state; a compile_config eagle cannot apply is a warning and the model comes back
// uncompiled. Errors name the file: a missing file NotFoundError
// (Keras's text), one that is not a zip archive or is damaged DataLossError, another model class
// (a Functional model), an unknown layer class, activation or setting eagle lacks
// UnimplementedError naming it. Without HDF5 in the build: UnimplementedError.
std::unique_ptr<Sequential> load_model(const std::string& filepath);

}  // namespace models
}  // namespace eagle::keras
