// Keras 3's .keras files: Sequential::save and models::load_model (Note [Keras 3 .keras files]).
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "eagle/errors.hpp"
#include "eagle/keras/conv_layers.hpp"
#include "eagle/keras/layers.hpp"
#include "eagle/keras/models.hpp"
#include "eagle/keras/normalization.hpp"
#include "io/json.hpp"
#include "io/keras_weights_file.hpp"
#include "io/zip_archive.hpp"
#include "keras/model_weights.hpp"

// Note [Keras 3 .keras files]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// model.save("m.keras") in Keras 3 (saving_lib.save_model) writes a zip archive (stored entries)
// of three files:
//   metadata.json     {"keras_version": "3.15.1", "date_saved": "2026-11-25@20:46:40"}
//   config.json       serialize_keras_object(model): {"module": "keras", "class_name":
//                     "Sequential", "config": {"name", "trainable", "dtype", "layers": [...],
//                     "build_input_shape"}, "registered_name", "build_config", "compile_config"}
//   model.weights.h5  the weights in the .weights.h5 layout (Note [Keras 3 weights layout])
// Each layer's entry is {"module": "keras.layers", "class_name": "Conv2D", "config": {...},
// "registered_name": null, "build_config": {"input_shape": [...]}}; the config holds the
// constructor's arguments by their Keras names (filters, kernel_size, strides, padding, ...),
// "dtype" a DTypePolicy object (Keras 3.0-3.5: the string "float32"), activations their names.
// The InputLayer comes first with "batch_shape" (Keras before 3.3: "batch_input_shape").
// keras.models.load_model rebuilds the model from config.json and loads the weights by the
// layers' paths, which depend on the layers' classes and order only. eagle reads the arguments
// its layers have and refuses, naming them, the classes, activations and settings it lacks
// (channels_first, regularizers, ...), rather than build a model that computes
// something else; initializers are not read (the weights replace them) and written as Keras's
// defaults. The optimizer and compile() settings are neither saved nor loaded.

namespace eagle::keras {
namespace {

using eagle::io::Json;

// A temporary folder, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "eagle_keras_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw UnknownError(fmt::format("could not create a temporary folder {}", pattern));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw UnknownError(fmt::format("could not write the temporary file {}", path));
}

const std::vector<std::string>& supported_layers() {
  static const std::vector<std::string> names = {
      "InputLayer",       "Dense",   "Conv2D",  "MaxPooling2D",
      "AveragePooling2D", "Flatten", "Dropout", "BatchNormalization",
      "Activation"};
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// ---- writing --------------------------------------------------------------------------------

Json shape_json(const TensorShape& shape) {
  Json out = Json::array();
  for (const auto& d : shape) out.push_back(d ? Json(*d) : Json());
  return out;
}

Json pair_json(const layers::Size2& size) { return Json(Json::Array{size.rows, size.cols}); }

Json dtype_policy() {
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

// Keras 3 reads an activation by name; eagle's hard_sigmoid is Keras 2's, which Keras 3 changed.
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

// The layer's config and class for config.json.
Json layer_config(const Layer& layer) {
  Json config = Json::object()
                    .set("name", layer.name())
                    .set("trainable", layer.trainable())
                    .set("dtype", dtype_policy());
  if (const auto* dense = dynamic_cast<const layers::Dense*>(&layer)) {
    config.set("units", dense->units())
        .set("activation", activation_name(layer, dense->activation()))
        .set("use_bias", dense->bias().defined())
        .set("kernel_initializer", initializer("GlorotUniform"))
        .set("bias_initializer", initializer("Zeros"));
  } else if (const auto* conv = dynamic_cast<const layers::Conv2D*>(&layer)) {
    const layers::Conv2DOptions& o = conv->options();
    config.set("filters", conv->filters())
        .set("kernel_size", pair_json(conv->kernel_size()))
        .set("strides", pair_json(o.strides))
        .set("padding", lower(o.padding))
        .set("data_format", "channels_last")
        .set("dilation_rate", pair_json(o.dilation_rate))
        .set("groups", o.groups)
        .set("activation", activation_name(layer, conv->activation()))
        .set("use_bias", o.use_bias)
        .set("kernel_initializer", initializer("GlorotUniform"))
        .set("bias_initializer", initializer("Zeros"));
  } else if (const auto* pooling = dynamic_cast<const layers::Pooling2D*>(&layer)) {
    config.set("pool_size", pair_json(pooling->pool_size()))
        .set("padding", pooling->same_padding() ? "same" : "valid")
        .set("strides", pair_json(pooling->strides()))
        .set("data_format", "channels_last");
  } else if (dynamic_cast<const layers::Flatten*>(&layer) != nullptr) {
    config.set("data_format", "channels_last");
  } else if (const auto* dropout = dynamic_cast<const layers::Dropout*>(&layer)) {
    config.set("rate", dropout->rate())
        .set("seed", dropout->seed() ? Json(static_cast<std::int64_t>(*dropout->seed())) : Json())
        .set("noise_shape", nullptr);
  } else if (const auto* activation = dynamic_cast<const layers::Activation*>(&layer)) {
    config.set("activation", activation_name(layer, activation->activation()));
  } else if (const auto* bn = dynamic_cast<const layers::BatchNormalization*>(&layer)) {
    const layers::BatchNormalizationOptions& o = bn->options();
    config.set("axis", -1)
        .set("momentum", o.momentum)
        .set("epsilon", o.epsilon)
        .set("center", o.center)
        .set("scale", o.scale)
        .set("synchronized", o.synchronized)
        .set("beta_initializer", initializer("Zeros"))
        .set("gamma_initializer", initializer("Ones"))
        .set("moving_mean_initializer", initializer("Zeros"))
        .set("moving_variance_initializer", initializer("Ones"));
  } else {
    throw UnimplementedError(fmt::format(
        "Layer '{}' ({}) has no .keras configuration in eagle: Sequential::save writes the "
        "layers {}",
        layer.name(), layer.class_name(), joined(supported_layers())));
  }
  return config;
}

Json model_config(const Sequential& model) {
  const TensorShape& input = *model.input_shape();
  Json layer_list = Json::array();
  layer_list.push_back(Json::object()
                           .set("module", "keras.layers")
                           .set("class_name", "InputLayer")
                           .set("config", Json::object()
                                              .set("batch_shape", shape_json(input))
                                              .set("dtype", "float32")
                                              .set("sparse", false)
                                              .set("name", "input_layer"))
                           .set("registered_name", nullptr));
  TensorShape shape = input;
  for (const auto& layer : model.layers()) {
    layer_list.push_back(
        Json::object()
            .set("module", "keras.layers")
            .set("class_name", layer->keras3_class_name())
            .set("config", layer_config(*layer))
            .set("registered_name", nullptr)
            .set("build_config", Json::object().set("input_shape", shape_json(shape))));
    shape = *layer->output_shape();
  }
  return Json::object()
      .set("module", "keras")
      .set("class_name", "Sequential")
      .set("config", Json::object()
                         .set("name", model.name())
                         .set("trainable", true)
                         .set("dtype", dtype_policy())
                         .set("layers", layer_list)
                         .set("build_input_shape", shape_json(input)))
      .set("registered_name", nullptr)
      .set("build_config", Json::object().set("input_shape", shape_json(input)));
}

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d@%H:%M:%S", &local);
  return buffer;
}

// ---- reading --------------------------------------------------------------------------------

// One layer's entry of config.json, with the context its errors name.
class LayerConfig {
 public:
  LayerConfig(std::string file, std::string class_name, const Json& config)
      : file_(std::move(file)), class_name_(std::move(class_name)), config_(config) {
    if (const Json* name = config_.find("name"); name != nullptr && name->is_string()) {
      name_ = name->as_string();
    }
  }

  const std::string& name() const { return name_; }
  const Json* find(const std::string& key) const { return config_.find(key); }

  [[noreturn]] void unimplemented(const std::string& what) const {
    throw UnimplementedError(
        fmt::format("{}: layer '{}' ({}): {}", file_, name_, class_name_, what));
  }
  [[noreturn]] void invalid(const std::string& what) const {
    throw InvalidArgumentError(
        fmt::format("{}: layer '{}' ({}): {}", file_, name_, class_name_, what));
  }

  // A member of the config as a type, `fallback` when absent or null.
  template <class T, class Get>
  T get(const std::string& key, T fallback, Get&& get) const {
    const Json* value = find(key);
    if (value == nullptr || value->is_null()) return fallback;
    try {
      return get(*value);
    } catch (const InvalidArgumentError& e) {
      invalid(fmt::format("config '{}': {}", key, e.what()));
    }
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback) const {
    return get(key, fallback, [](const Json& v) { return v.as_integer(); });
  }
  double number(const std::string& key, double fallback) const {
    return get(key, fallback, [](const Json& v) { return v.as_number(); });
  }
  bool boolean(const std::string& key, bool fallback) const {
    return get(key, fallback, [](const Json& v) { return v.as_bool(); });
  }
  std::string string(const std::string& key, std::string fallback) const {
    return get(key, std::move(fallback), [](const Json& v) { return v.as_string(); });
  }
  // Keras's int-or-tuple arguments: 3 or [3, 2].
  layers::Size2 size2(const std::string& key, layers::Size2 fallback) const {
    return get(key, fallback, [&](const Json& v) -> layers::Size2 {
      if (v.is_integer()) return layers::Size2(v.as_integer());
      const Json::Array& a = v.as_array();
      if (a.size() != 2) {
        throw InvalidArgumentError(fmt::format("expected 2 integers, got {}", a.size()));
      }
      return layers::Size2(a[0].as_integer(), a[1].as_integer());
    });
  }

  // Settings eagle's layers lack must hold Keras's defaults.
  void require_null(const std::string& key) const {
    const Json* value = find(key);
    if (value != nullptr && !value->is_null()) {
      unimplemented(fmt::format("'{}' {} is not supported by eagle's layers", key, value->dump()));
    }
  }
  void require_value(const std::string& key, const Json& expected) const {
    const Json* value = find(key);
    if (value != nullptr && !value->is_null() && *value != expected) {
      unimplemented(fmt::format("{}={} is not supported by eagle's layers (only {})", key,
                                value->dump(), expected.dump()));
    }
  }
  void require_channels_last() const { require_value("data_format", Json("channels_last")); }
  void require_float32() const {
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
      unimplemented(
          fmt::format("dtype policy {} is not supported: eagle's layers compute in "
                      "float32",
                      policy.empty() ? dtype->dump() : "'" + policy + "'"));
    }
  }

  activations::Activation activation(const std::string& key) const {
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

 private:
  std::string file_;
  std::string class_name_;
  const Json& config_;
  std::string name_;
};

std::optional<TensorShape> shape_from(const Json* value) {
  if (value == nullptr || !value->is_array()) return std::nullopt;
  TensorShape shape;
  for (const Json& d : value->as_array()) {
    if (d.is_null()) {
      shape.push_back(std::nullopt);
    } else if (d.is_integer()) {
      shape.push_back(d.as_integer());
    } else {
      return std::nullopt;
    }
  }
  return shape;
}

TensorShape without_batch(const TensorShape& shape) {
  return TensorShape(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
}

// A Keras layer's config as an eagle layer; `input` is the shape it receives, when known.
std::shared_ptr<Layer> make_layer(const LayerConfig& c, const std::string& class_name,
                                  const std::optional<TensorShape>& input) {
  c.require_float32();
  for (const char* key :
       {"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
        "bias_constraint", "beta_regularizer", "gamma_regularizer", "beta_constraint",
        "gamma_constraint", "noise_shape", "quantization_config", "lora_rank"}) {
    c.require_null(key);
  }
  std::shared_ptr<Layer> layer;
  if (class_name == "Dense") {
    layers::DenseOptions o;
    o.name = c.name();
    o.use_bias = c.boolean("use_bias", true);
    const std::int64_t units = c.integer("units", -1);
    if (units <= 0) c.invalid(fmt::format("units must be a positive integer, got {}", units));
    layer = std::make_shared<layers::Dense>(units, c.activation("activation"), o);
  } else if (class_name == "Conv2D") {
    c.require_channels_last();
    layers::Conv2DOptions o;
    o.name = c.name();
    o.strides = c.size2("strides", 1);
    o.padding = c.string("padding", "valid");
    o.dilation_rate = c.size2("dilation_rate", 1);
    o.use_bias = c.boolean("use_bias", true);
    o.groups = c.integer("groups", 1);
    const std::int64_t filters = c.integer("filters", -1);
    if (filters <= 0) c.invalid(fmt::format("filters must be a positive integer, got {}", filters));
    layer = std::make_shared<layers::Conv2D>(filters, c.size2("kernel_size", 0),
                                             c.activation("activation"), o);
  } else if (class_name == "MaxPooling2D" || class_name == "AveragePooling2D") {
    c.require_channels_last();
    layers::Pooling2DOptions o;
    o.name = c.name();
    o.padding = c.string("padding", "valid");
    if (const Json* strides = c.find("strides"); strides != nullptr && !strides->is_null()) {
      o.strides = c.size2("strides", 1);
    }
    const layers::Size2 pool = c.size2("pool_size", 2);
    if (class_name == "MaxPooling2D") {
      layer = std::make_shared<layers::MaxPooling2D>(pool, o);
    } else {
      layer = std::make_shared<layers::AveragePooling2D>(pool, o);
    }
  } else if (class_name == "Flatten") {
    c.require_channels_last();
    layer = std::make_shared<layers::Flatten>(layers::LayerOptions{c.name(), std::nullopt});
  } else if (class_name == "Dropout") {
    std::optional<std::uint64_t> seed;
    if (const Json* s = c.find("seed"); s != nullptr && !s->is_null()) {
      seed = static_cast<std::uint64_t>(c.integer("seed", 0));
    }
    layer = std::make_shared<layers::Dropout>(c.number("rate", 0.5), seed,
                                              layers::LayerOptions{c.name(), std::nullopt});
  } else if (class_name == "Activation") {
    layer = std::make_shared<layers::Activation>(c.activation("activation"),
                                                 layers::LayerOptions{c.name(), std::nullopt});
  } else if (class_name == "BatchNormalization") {
    c.require_value("renorm", Json(false));
    const Json* axis = c.find("axis");
    std::int64_t a = -1;
    if (axis != nullptr && axis->is_array() && axis->as_array().size() == 1) {
      axis = &axis->as_array()[0];
    }
    if (axis != nullptr && !axis->is_null()) {
      if (!axis->is_integer()) {
        c.unimplemented(fmt::format("axis={}: eagle normalizes over the last axis", axis->dump()));
      }
      a = axis->as_integer();
    }
    const bool last = a == -1 || (input && a == static_cast<std::int64_t>(input->size()) - 1);
    if (!last) c.unimplemented(fmt::format("axis={}: eagle normalizes over the last axis", a));
    layers::BatchNormalizationOptions o;
    o.name = c.name();
    o.momentum = c.number("momentum", 0.99);
    o.epsilon = c.number("epsilon", 0.001);
    o.center = c.boolean("center", true);
    o.scale = c.boolean("scale", true);
    o.synchronized = c.boolean("synchronized", false);
    layer = std::make_shared<layers::BatchNormalization>(o);
  }
  layer->set_trainable(c.boolean("trainable", true));
  return layer;
}

void require_hdf5(const std::string& filepath, const char* what) {
  if (!eagle::io::keras_weights_supported()) {
    throw UnimplementedError(fmt::format(
        "{}: this eagle was built without HDF5 (EAGLE_HDF5=OFF), so it cannot {} Keras .keras "
        "files (their weights are HDF5); install libhdf5-dev and rebuild",
        filepath, what));
  }
}

// The Sequential model config.json describes, built, without its weights.
std::unique_ptr<Sequential> model_from_config(const std::string& filepath, const Json& root) {
  const Json* class_name = root.find("class_name");
  const Json* config = root.find("config");
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw DataLossError(fmt::format(
        "{}: config.json is not a serialized Keras model (no \"class_name\" and \"config\")",
        filepath));
  }
  if (class_name->as_string() != "Sequential") {
    throw UnimplementedError(fmt::format(
        "{}: the model is a '{}': eagle's load_model builds Sequential models only (a Keras "
        "Functional or subclassed model has no eagle counterpart)",
        filepath, class_name->as_string()));
  }
  const Json* layer_list = config->find("layers");
  if (layer_list == nullptr || !layer_list->is_array()) {
    throw DataLossError(
        fmt::format("{}: config.json: the Sequential config has no \"layers\" list", filepath));
  }
  std::string name;
  if (const Json* n = config->find("name"); n != nullptr && n->is_string()) name = n->as_string();
  auto model = std::make_unique<Sequential>(name);
  std::optional<TensorShape> shape = shape_from(config->find("build_input_shape"));
  bool has_input = false;
  for (const Json& entry : layer_list->as_array()) {
    const Json* layer_class = entry.find("class_name");
    const Json* layer_config = entry.find("config");
    if (layer_class == nullptr || !layer_class->is_string() || layer_config == nullptr ||
        !layer_config->is_object()) {
      throw DataLossError(fmt::format(
          "{}: config.json: a layer entry has no \"class_name\" and \"config\"", filepath));
    }
    const std::string& cls = layer_class->as_string();
    const auto& known = supported_layers();
    const Json* registered = entry.find("registered_name");
    const bool custom =
        registered != nullptr && registered->is_string() && registered->as_string() != cls;
    if (custom || std::find(known.begin(), known.end(), cls) == known.end()) {
      // Keras's text (serialization_lib._retrieve_class_or_fn) for a class it cannot find.
      throw UnimplementedError(
          fmt::format("{}: Could not locate class '{}'. eagle's load_model builds the layers {}",
                      filepath, custom ? registered->as_string() : cls, joined(known)));
    }
    const LayerConfig c(filepath, cls, *layer_config);
    if (cls == "InputLayer") {
      std::optional<TensorShape> batch_shape = shape_from(c.find("batch_shape"));
      if (!batch_shape) batch_shape = shape_from(c.find("batch_input_shape"));
      if (!batch_shape) c.invalid("no batch_shape");
      if (c.boolean("sparse", false)) c.unimplemented("sparse inputs are not supported");
      model->add(layers::InputLayer(without_batch(*batch_shape)));
      has_input = true;
      shape = batch_shape;
      continue;
    }
    if (!has_input) {
      // No InputLayer (a model built by calling it): the model's build shape, else a Keras 2
      // style batch_input_shape on the first layer.
      if (!shape) shape = shape_from(c.find("batch_input_shape"));
      if (shape) model->add(layers::InputLayer(without_batch(*shape)));
      has_input = true;
    }
    std::shared_ptr<Layer> layer = make_layer(c, cls, shape);
    model->add(layer);
    shape = layer->output_shape();
  }
  return model;
}

}  // namespace

void Sequential::save(const std::string& filepath) const {
  if (!ends_with(filepath, ".keras")) {
    // Keras 3's text (saving_api.save_model), without the .h5 and export() alternatives.
    throw InvalidArgumentError(fmt::format(
        "Invalid filepath extension for saving. Please add a `.keras` extension for the native "
        "Keras format. Received: filepath={}.",
        filepath));
  }
  require_hdf5(filepath, "save");
  if (!input_shape_ || !built_) {
    throw InvalidArgumentError(fmt::format(
        "Model \"{}\" has not yet been built, so it cannot be saved to {}. Build the model first "
        "by calling `build()` or by calling the model on a batch of data.",
        name(), filepath));
  }
  const Json config = model_config(*this);
  const Json metadata = Json::object()
                            .set("keras_version", "3.0.0")
                            .set("date_saved", now_text())
                            .set("saved_by", "eagle");
  TempDir dir;
  const std::string weights = dir.file("model.weights.h5");
  eagle::io::save_keras_weights(weights, detail::weight_groups(*this));
  eagle::io::ZipWriter zip(filepath);
  zip.add("metadata.json", metadata.dump());
  zip.add("config.json", config.dump());
  zip.add("model.weights.h5", read_bytes(weights));
  zip.finish();
}

namespace models {

std::unique_ptr<Sequential> load_model(const std::string& filepath) {
  if (!ends_with(filepath, ".keras")) {
    // Keras 3's text (saving_api.load_model) for other extensions, with eagle's alternative.
    throw InvalidArgumentError(fmt::format(
        "File format not supported: filepath={}. eagle's load_model reads Keras 3 `.keras` "
        "files (a `.weights.h5` file loads into a built model with Model::load_weights).",
        filepath));
  }
  require_hdf5(filepath, "load");
  struct stat info {};
  if (stat(filepath.c_str(), &info) != 0) {
    // Keras 3's text (saving_api.load_model).
    throw NotFoundError(fmt::format(
        "File not found: filepath={}. Please ensure the file is an accessible `.keras` zip "
        "file.",
        filepath));
  }
  const eagle::io::ZipReader zip(filepath);
  if (!zip.contains("config.json")) {
    throw DataLossError(
        fmt::format("{}: not a .keras file: the archive has no config.json (entries: {})", filepath,
                    joined(zip.names())));
  }
  Json root;
  try {
    root = Json::parse(zip.read("config.json"));
  } catch (const DataLossError& e) {
    throw DataLossError(fmt::format("{}: config.json: {}", filepath, e.what()));
  }
  std::unique_ptr<Sequential> model = model_from_config(filepath, root);

  if (!zip.contains("model.weights.h5")) {
    if (zip.contains("model.weights.npz")) {
      throw UnimplementedError(fmt::format(
          "{}: the weights are in model.weights.npz: eagle reads model.weights.h5 only", filepath));
    }
    // Keras's text (saving_lib._load_state's caller).
    throw DataLossError(
        fmt::format("{}: Expected a model.weights.h5 or model.weights.npz file.", filepath));
  }
  if (!model->built()) {
    throw InvalidArgumentError(fmt::format(
        "{}: config.json gives no input shape (no InputLayer or build_input_shape), so the "
        "model cannot be built to take its weights",
        filepath));
  }
  const std::string inside = filepath + "/model.weights.h5";  // for messages
  TempDir dir;
  const std::string weights = dir.file("model.weights.h5");
  write_bytes(weights, zip.read("model.weights.h5"));
  std::vector<eagle::io::LayerWeights> loaded;
  try {
    loaded = eagle::io::load_keras_weights(weights);
  } catch (const Error& e) {
    std::string message = e.what();
    for (std::size_t at; (at = message.find(weights)) != std::string::npos;) {
      message.replace(at, weights.size(), inside);
    }
    throw_like(e, message);
  }
  detail::assign_weight_groups(*model, loaded, inside);
  return model;
}

}  // namespace models
}  // namespace eagle::keras
