// The layer registry, the reader each from_config gets, and the pieces of Keras 3 configs.
#include "eagle/keras/layer_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "eagle/errors.hpp"

// Note [Layer registry]
// ~~~~~~~~~~~~~~~~~~~~~
// Keras 3 serializes a layer as its class name and get_config(), and deserializes through a
// registry of classes by name (keras.saving.register_keras_serializable, serialization_lib).
// eagle does the same: each layer class overrides Layer::get_config() and registers a static
// from_config(const LayerConfig&) with a LayerRegistration object in the file that defines the
// class. Sequential::save and models::load_model know no layer class: adding a layer is one file.
// What every layer's config shares (name, trainable, the dtype policy, the regularizers and
// constraints eagle lacks) is read and checked by the loader, not by each class.
// The registrations run while the library's static objects are constructed, so eagle's shared
// library (the default) has every built-in layer before main(). A program linking the static
// library gets a layer file's registrations when it links that file, that is when it names one of
// its classes; one that only loads models links eagle with --whole-archive (as TensorFlow links
// its op registrations, alwayslink).

namespace eagle::keras {

// ---- the registry -------------------------------------------------------------------------------

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, LayerFromConfig> classes;
};

Registry& registry() {
  static Registry* instance = new Registry();  // never destroyed: used from static constructors
  return *instance;
}

}  // namespace

void register_layer_class(const std::string& class_name, LayerFromConfig from_config) {
  if (from_config == nullptr) {
    throw InvalidArgumentError(
        fmt::format("register_layer_class: a null from_config for '{}'", class_name));
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.classes.emplace(class_name, from_config).second) {
    throw InvalidArgumentError(
        fmt::format("The layer class '{}' is already registered", class_name));
  }
}

LayerFromConfig find_layer_class(const std::string& class_name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.classes.find(class_name);
  return it == r.classes.end() ? nullptr : it->second;
}

std::vector<std::string> registered_layer_classes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, from_config] : r.classes) names.push_back(name);
  return names;  // std::map: sorted
}

// ---- LayerConfig --------------------------------------------------------------------------------

using eagle::io::Json;

LayerConfig::LayerConfig(std::string file, std::string class_name, const Json& config,
                         std::optional<TensorShape> input_shape)
    : file_(std::move(file)),
      class_name_(std::move(class_name)),
      config_(config),
      input_shape_(std::move(input_shape)) {
  if (const Json* name = config_.find("name"); name != nullptr && name->is_string()) {
    name_ = name->as_string();
  }
}

void LayerConfig::unimplemented(const std::string& what) const {
  throw UnimplementedError(fmt::format("{}: layer '{}' ({}): {}", file_, name_, class_name_, what));
}

void LayerConfig::invalid(const std::string& what) const {
  throw InvalidArgumentError(
      fmt::format("{}: layer '{}' ({}): {}", file_, name_, class_name_, what));
}

template <class T, class Get>
T LayerConfig::get(const std::string& key, T fallback, Get&& get) const {
  const Json* value = find(key);
  if (value == nullptr || value->is_null()) return fallback;
  try {
    return get(*value);
  } catch (const InvalidArgumentError& e) {
    invalid(fmt::format("config '{}': {}", key, e.what()));
  }
}

std::int64_t LayerConfig::integer(const std::string& key, std::int64_t fallback) const {
  return get(key, fallback, [](const Json& v) { return v.as_integer(); });
}

double LayerConfig::number(const std::string& key, double fallback) const {
  return get(key, fallback, [](const Json& v) { return v.as_number(); });
}

bool LayerConfig::boolean(const std::string& key, bool fallback) const {
  return get(key, fallback, [](const Json& v) { return v.as_bool(); });
}

std::string LayerConfig::string(const std::string& key, std::string fallback) const {
  return get(key, std::move(fallback), [](const Json& v) { return v.as_string(); });
}

layers::Size2 LayerConfig::size2(const std::string& key, layers::Size2 fallback) const {
  return get(key, fallback, [&](const Json& v) -> layers::Size2 {
    if (v.is_integer()) return layers::Size2(v.as_integer());
    const Json::Array& a = v.as_array();
    if (a.size() != 2) {
      throw InvalidArgumentError(fmt::format("expected 2 integers, got {}", a.size()));
    }
    return layers::Size2(a[0].as_integer(), a[1].as_integer());
  });
}

void LayerConfig::require_null(const std::string& key) const {
  const Json* value = find(key);
  if (value != nullptr && !value->is_null()) {
    unimplemented(fmt::format("'{}' {} is not supported by eagle's layers", key, value->dump()));
  }
}

void LayerConfig::require_value(const std::string& key, const Json& expected) const {
  const Json* value = find(key);
  if (value != nullptr && !value->is_null() && *value != expected) {
    unimplemented(fmt::format("{}={} is not supported by eagle's layers (only {})", key,
                              value->dump(), expected.dump()));
  }
}

void LayerConfig::require_channels_last() const {
  require_value("data_format", Json("channels_last"));
}

void LayerConfig::require_float32() const {
  const Json* dtype = find("dtype");
  if (dtype == nullptr || dtype->is_null()) return;
  std::string policy;
  if (dtype->is_string()) {
    policy = dtype->as_string();
  } else if (const Json* config = dtype->find("config"); config != nullptr) {
    if (const Json* name = config->find("name"); name != nullptr && name->is_string()) {
      policy = name->as_string();
    }
  }
  if (policy != "float32") {
    unimplemented(fmt::format("dtype policy {} is not supported: eagle's layers compute in float32",
                              policy.empty() ? dtype->dump() : "'" + policy + "'"));
  }
}

activations::Activation LayerConfig::activation(const std::string& key) const {
  const Json* value = find(key);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_string()) {
    // Keras 3 writes a registered or custom function as an object.
    unimplemented(fmt::format("activation {} is not a built-in activation name", value->dump()));
  }
  const std::string& name = value->as_string();
  if (name == "hard_sigmoid") {
    unimplemented(
        "activation 'hard_sigmoid' is Keras 3's relu6(x + 3) / 6; eagle's hard_sigmoid is "
        "Keras 2's clip(0.2 x + 0.5, 0, 1)");
  }
  try {
    return activations::Activation(name);
  } catch (const InvalidArgumentError&) {
    unimplemented(fmt::format(
        "Unknown activation function: '{}'. eagle has linear, relu, relu6, sigmoid, tanh, "
        "softmax, exponential, softplus, softsign, swish, silu, elu, selu and gelu",
        name));
  }
}

std::shared_ptr<const regularizers::Regularizer> LayerConfig::regularizer(
    const std::string& key) const {
  const Json* value = find(key);
  if (value == nullptr || value->is_null()) return nullptr;
  try {
    return regularizers::deserialize(*value);
  } catch (const UnimplementedError& e) {
    unimplemented(fmt::format("{}: {}", key, e.what()));
  } catch (const InvalidArgumentError& e) {
    invalid(fmt::format("{}: {}", key, e.what()));
  }
}

// ---- pieces of configs --------------------------------------------------------------------------

namespace serialization {

Json regularizer(const std::shared_ptr<const regularizers::Regularizer>& regularizer) {
  return regularizer ? regularizers::serialize(*regularizer) : Json();
}

Json float32_policy() {
  return Json::object()
      .set("module", "keras")
      .set("class_name", "DTypePolicy")
      .set("config", Json::object().set("name", "float32"))
      .set("registered_name", nullptr);
}

Json initializer(const char* class_name) {
  Json config = Json::object();
  if (std::string(class_name) == "GlorotUniform") config.set("seed", nullptr);
  return Json::object()
      .set("module", "keras.initializers")
      .set("class_name", class_name)
      .set("config", config)
      .set("registered_name", nullptr);
}

Json size2(const layers::Size2& size) { return Json(Json::Array{size.rows, size.cols}); }

std::string activation_name(const Layer& layer, const activations::Activation& activation) {
  const std::string& name = activation.name();
  if (name == "hard_sigmoid") {
    throw UnimplementedError(fmt::format(
        "Layer '{}': eagle's hard_sigmoid is Keras 2's (clip(0.2 x + 0.5, 0, 1)); Keras 3's "
        "'hard_sigmoid' is relu6(x + 3) / 6, so a .keras file cannot name it",
        layer.name()));
  }
  try {
    activations::get(name);
  } catch (const InvalidArgumentError&) {
    // Keras 3's text (activations.serialize) for a function without a registered name.
    throw InvalidArgumentError(fmt::format(
        "Unknown activation function '{}' cannot be serialized due to invalid function name. "
        "Make sure to use an activation name that matches the references defined in "
        "activations.py (layer '{}')",
        name, layer.name()));
  }
  return name;
}

}  // namespace serialization
}  // namespace eagle::keras
