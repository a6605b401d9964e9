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
#include "eagle/io/json.hpp"
#include "eagle/keras/layer_config.hpp"
#include "eagle/keras/layers.hpp"
#include "eagle/keras/models.hpp"
#include "io/keras_weights_file.hpp"
#include "io/zip_archive.hpp"
#include "keras/model_weights.hpp"
#include "runtime/log_sink.hpp"

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
// (channels_first, constraints, ...), rather than build a model that computes
// something else; initializers are not read (the weights replace them) and written as Keras's
// defaults. A compiled model's config.json also holds "compile_config" (the optimizer, loss and
// metrics serialized, Trainer::get_compile_config) and its model.weights.h5 the optimizer's
// variables: load_model compiles the model from it and restores the optimizer's state, so
// training resumes where it stopped.

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

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw UnknownError(fmt::format("could not write the temporary file {}", path));
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

// The layer's entry in config.json: its class and get_config() (Note [Layer registry]). A class
// load_model could not read back is refused here.
Json layer_entry(const Layer& layer, const TensorShape& input_shape) {
  const std::string cls = layer.keras3_class_name();
  if (find_layer_class(cls) == nullptr) {
    throw UnimplementedError(fmt::format(
        "Layer '{}' ({}) has no .keras configuration in eagle: Sequential::save writes the "
        "layers InputLayer, {}",
        layer.name(), layer.class_name(), joined(registered_layer_classes())));
  }
  return Json::object()
      .set("module", "keras.layers")
      .set("class_name", cls)
      .set("config", layer.get_config())
      .set("registered_name", nullptr)
      .set("build_config", Json::object().set("input_shape", shape_json(input_shape)));
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
    layer_list.push_back(layer_entry(*layer, shape));
    shape = *layer->output_shape();
  }
  return Json::object()
      .set("module", "keras")
      .set("class_name", "Sequential")
      .set("config", Json::object()
                         .set("name", model.name())
                         .set("trainable", true)
                         .set("dtype", serialization::float32_policy())
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

// A Keras layer's config as an eagle layer, through the class's registered from_config, after
// what every layer's config shares: the float32 policy, no activity regularizer or constraint,
// trainable. The kernel and bias regularizers are the classes' own (Dense, Conv2D read them; a
// layer that does not has no such key in Keras either).
std::shared_ptr<Layer> make_layer(const LayerConfig& c, LayerFromConfig from_config) {
  c.require_float32();
  for (const char* key : {"activity_regularizer", "kernel_constraint", "bias_constraint",
                          "beta_regularizer", "gamma_regularizer", "beta_constraint",
                          "gamma_constraint", "noise_shape", "quantization_config", "lora_rank"}) {
    c.require_null(key);
  }
  std::shared_ptr<Layer> layer = from_config(c);
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
    const Json* registered = entry.find("registered_name");
    const bool custom =
        registered != nullptr && registered->is_string() && registered->as_string() != cls;
    const LayerFromConfig from_config = custom ? nullptr : find_layer_class(cls);
    if (from_config == nullptr && (custom || cls != "InputLayer")) {
      // Keras's text (serialization_lib._retrieve_class_or_fn) for a class it cannot find.
      throw UnimplementedError(fmt::format(
          "{}: Could not locate class '{}'. eagle's load_model builds the layers InputLayer, {}",
          filepath, custom ? registered->as_string() : cls, joined(registered_layer_classes())));
    }
    const LayerConfig c(filepath, cls, *layer_config, shape);
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
    std::shared_ptr<Layer> layer = make_layer(c, from_config);
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
  if (!input_shape_ || !built()) {
    throw InvalidArgumentError(fmt::format(
        "Model \"{}\" has not yet been built, so it cannot be saved to {}. Build the model first "
        "by calling `build()` or by calling the model on a batch of data.",
        name(), filepath));
  }
  Json config = model_config(*this);
  if (std::optional<Json> compile_config = get_compile_config()) {
    config.set("compile_config", std::move(*compile_config));
  }
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
  // Keras (deserialize_keras_object) compiles the model from compile_config before its weights
  // load, so that the optimizer is built to take its variables. A config eagle cannot apply (a
  // loss of another library, loss_weights) leaves the model uncompiled with a warning rather than
  // failing the load: the weights are what the file is for.
  if (const Json* compile_config = root.find("compile_config");
      compile_config != nullptr && !compile_config->is_null()) {
    try {
      model->compile_from_config(*compile_config);
    } catch (const Error& e) {
      runtime::emit_log(debugging::LogLevel::kWarning,
                        fmt::format("{}: the model is loaded uncompiled: its compile_config "
                                    "cannot be applied: {}",
                                    filepath, e.what()));
    }
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
