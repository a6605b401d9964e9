// Keras's layer serialization: each layer class writes its get_config() and registers its
// from_config() under its Keras class name, next to the class (Note [Layer registry] in
// src/keras/layer_config.cpp); .keras saving and models::load_model go through the registry only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eagle/io/json.hpp"
#include "eagle/keras/activations.hpp"
#include "eagle/keras/conv_layers.hpp"
#include "eagle/keras/layer.hpp"

namespace eagle::keras {

// One layer's config as a file holds it, read with the context its errors name: every error is
// "<file>: layer '<name>' (<class>): <what>", UnimplementedError for a setting eagle's layers
// lack, InvalidArgumentError for a value that is wrong.
class LayerConfig {
 public:
  // `input_shape`: the shape the layer receives (batch first), when the model says it.
  LayerConfig(std::string file, std::string class_name, const eagle::io::Json& config,
              std::optional<TensorShape> input_shape = std::nullopt);

  const std::string& name() const { return name_; }
  const std::string& class_name() const { return class_name_; }
  const std::optional<TensorShape>& input_shape() const { return input_shape_; }
  const eagle::io::Json* find(const std::string& key) const { return config_.find(key); }

  [[noreturn]] void unimplemented(const std::string& what) const;
  [[noreturn]] void invalid(const std::string& what) const;

  // A member of the config, `fallback` when absent or null; another type is invalid().
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key, std::string fallback) const;
  // Keras's int-or-tuple arguments: 3 or [3, 2].
  layers::Size2 size2(const std::string& key, layers::Size2 fallback) const;
  // An activation by its Keras 3 name (none when absent); a function object, an unknown name or
  // Keras 3's hard_sigmoid (not eagle's Keras 2 one) is unimplemented().
  activations::Activation activation(const std::string& key) const;
  // A regularizer (regularizers::deserialize), nullptr when absent or null; a class eagle lacks
  // is unimplemented().
  std::shared_ptr<const regularizers::Regularizer> regularizer(const std::string& key) const;

  // Settings eagle's layers lack must be absent, null, or hold Keras's default.
  void require_null(const std::string& key) const;
  void require_value(const std::string& key, const eagle::io::Json& expected) const;
  void require_channels_last() const;
  void require_float32() const;

 private:
  template <class T, class Get>
  T get(const std::string& key, T fallback, Get&& get) const;

  std::string file_;
  std::string class_name_;
  const eagle::io::Json& config_;
  std::optional<TensorShape> input_shape_;
  std::string name_;
};

// A layer class's from_config: the layer a config describes (not built, its name and arguments
// the config's).
using LayerFromConfig = std::shared_ptr<Layer> (*)(const LayerConfig& config);

// Registers a class under its Keras class name (what Layer::keras3_class_name() returns). A name
// registered twice: InvalidArgumentError. Thread-safe.
void register_layer_class(const std::string& class_name, LayerFromConfig from_config);
// The class registered under `class_name`, nullptr when none.
LayerFromConfig find_layer_class(const std::string& class_name);
// The registered class names, sorted.
std::vector<std::string> registered_layer_classes();

// Registers a class while static objects are constructed, in the file that defines the class:
//   const LayerRegistration kDense("Dense", &Dense::from_config);
struct LayerRegistration {
  LayerRegistration(const char* class_name, LayerFromConfig from_config) {
    register_layer_class(class_name, from_config);
  }
};

// Pieces of configs as Keras 3 writes them.
namespace serialization {
// Keras 3's {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, ...}.
eagle::io::Json float32_policy();
// A Keras initializer object by class ("GlorotUniform", "Zeros", "Ones").
eagle::io::Json initializer(const char* class_name);
// [rows, cols].
eagle::io::Json size2(const layers::Size2& size);
// A regularizer's serialized form (regularizers::serialize), null for none, as Keras writes it.
eagle::io::Json regularizer(const std::shared_ptr<const regularizers::Regularizer>& regularizer);
// The activation's Keras 3 name: UnimplementedError for eagle's (Keras 2's) hard_sigmoid, and
// Keras 3's InvalidArgumentError for a function without a built-in name; `layer` is named.
std::string activation_name(const Layer& layer, const activations::Activation& activation);
}  // namespace serialization

}  // namespace eagle::keras
