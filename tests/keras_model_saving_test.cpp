// Keras 3 .keras files (Sequential::save, keras::models::load_model): the fixture Keras saved
// (tests/tools/gen_keras_model_fixture.py) loads with its configuration and predicts Keras's
// values on the CPU and a simulated GPU; eagle's files load back; unsupported models and damaged
// files are typed errors. With EAGLE_KERAS_MODEL_OUT=DIR set, a model eagle built and trained is
// saved there with its predictions for tests/tools/check_keras_model_file.py (Keras loads it).
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/eagle.hpp"
#include "eagle/io/json.hpp"
#include "io/keras_weights_file.hpp"
#include "io/zip_archive.hpp"
#include "json_reader.hpp"
#include "keras_test_support.hpp"
#include "temp_files.hpp"

namespace {

using eagle_test::error_text;
using eagle_test::formula_values;
using eagle_test::TempDir;

namespace fs = std::filesystem;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using eagle::Tensor;
using eagle::io::Json;

const std::string kFixture = std::string(EAGLE_FIXTURE_DIR) + "/small_model.keras";
const std::string kPredictions = std::string(EAGLE_FIXTURE_DIR) + "/small_model_predictions.json";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<float> fixture_predictions() {
  const eagle_test::Json fixture = eagle_test::Json::parse_file(kPredictions);
  std::vector<float> out;
  for (const auto& row : fixture["predictions"].array()) {
    for (const auto& v : row.array()) out.push_back(static_cast<float>(v.number()));
  }
  return out;
}

std::vector<float> predict(keras::Model& model, const Tensor& x) {
  keras::PredictOptions quiet;
  quiet.verbose = 0;
  return model.predict(x, quiet).to_vector<float>();
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
  }
  return worst;
}

template <class L>
const L& layer_at(const keras::Sequential& model, std::size_t i) {
  const auto* layer = dynamic_cast<const L*>(model.layers().at(i).get());
  REQUIRE(layer != nullptr);
  return *layer;
}

// A .keras file like the fixture with config.json replaced.
std::string with_config(const TempDir& dir, const std::string& name, const std::string& config) {
  const eagle::io::ZipReader fixture(kFixture);
  const std::string path = dir.file(name);
  eagle::io::ZipWriter zip(path);
  zip.add("metadata.json", fixture.read("metadata.json"));
  zip.add("config.json", config);
  zip.add("model.weights.h5", fixture.read("model.weights.h5"));
  zip.finish();
  return path;
}

std::string fixture_config() { return eagle::io::ZipReader(kFixture).read("config.json"); }

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// Every layer class .keras files carry, with settings other than the defaults; trained a step so
// BatchNormalization's moving statistics move.
std::unique_ptr<keras::Sequential> eagle_model() {
  auto model = std::make_unique<keras::Sequential>("eagle_model");
  model->add(layers::Input({8, 8, 2}));
  layers::Conv2DOptions conv;
  conv.strides = {2, 1};
  conv.padding = "same";
  conv.name = "conv_a";
  model->add(layers::Conv2D(4, {3, 2}, "relu", conv));
  layers::BatchNormalizationOptions bn;
  bn.momentum = 0.5;
  bn.epsilon = 0.01;
  bn.center = false;
  model->add(layers::BatchNormalization(bn));
  layers::Pooling2DOptions pool;
  pool.strides = layers::Size2{1, 1};
  model->add(layers::MaxPooling2D({2, 2}, pool));
  layers::Pooling2DOptions same;
  same.padding = "same";
  model->add(layers::AveragePooling2D(2, same));
  model->add(layers::Dropout(0.3, 5));
  model->add(layers::Activation("gelu"));
  model->add(layers::Flatten());
  layers::DenseOptions hidden;
  hidden.use_bias = false;
  model->add(layers::Dense(5, "tanh", hidden));
  model->add(layers::Dense(3, "softmax"));
  model->compile("adam", "sparse_categorical_crossentropy");
  model->train_on_batch(formula_values({6, 8, 8, 2}), eagle::constant({0, 1, 2, 0, 1, 2}));
  return model;
}

}  // namespace

TEST_CASE("load_model reads the .keras file Keras 3 saved: configuration and predictions") {
  if (!eagle::io::keras_weights_supported()) {
    CHECK_THROWS_AS(keras::models::load_model(kFixture), eagle::UnimplementedError);
    return;
  }
  const std::vector<float> expected = fixture_predictions();
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    const std::unique_ptr<keras::Sequential> model = keras::models::load_model(kFixture);
    CHECK(model->name() == "small_model");
    CHECK(model->built());
    CHECK(*model->input_shape() == keras::TensorShape{std::nullopt, 6, 6, 1});
    std::vector<std::string> names;
    for (const auto& layer : model->layers()) names.push_back(layer->name());
    CHECK(names == std::vector<std::string>{"conv", "norm", "max_pool", "avg_pool", "drop",
                                            "squash", "flat", "hidden", "probabilities"});
    const auto& conv = layer_at<layers::Conv2D>(*model, 0);
    CHECK(conv.filters() == 3);
    CHECK(conv.kernel_size().rows == 3);
    CHECK(conv.kernel_size().cols == 2);
    CHECK(conv.options().padding == "same");
    CHECK(conv.activation().name() == "relu");
    CHECK(conv.kernel().device() ==
          std::string("/job:localhost/replica:0/task:0/device:") + (device + 1));
    const auto& norm = layer_at<layers::BatchNormalization>(*model, 1);
    CHECK(norm.options().momentum == 0.9);
    CHECK(norm.options().epsilon == 0.01);
    const auto& max_pool = layer_at<layers::MaxPooling2D>(*model, 2);
    CHECK(max_pool.pool_size().rows == 2);
    CHECK(max_pool.strides().rows == 1);
    CHECK(layer_at<layers::AveragePooling2D>(*model, 3).same_padding());
    CHECK(layer_at<layers::Dropout>(*model, 4).rate() == 0.25);
    CHECK(layer_at<layers::Dropout>(*model, 4).seed() == std::optional<std::uint64_t>(3));
    CHECK(layer_at<layers::Activation>(*model, 5).activation().name() == "tanh");
    const auto& hidden = layer_at<layers::Dense>(*model, 7);
    CHECK(hidden.units() == 4);
    CHECK(hidden.activation().name() == "elu");
    CHECK_FALSE(hidden.bias().defined());
    CHECK(model->count_params() == 3 * 2 * 3 + 3 + 4 * 3 + 3 * 3 * 3 * 4 + 4 * 3 + 3);
    const std::vector<float> got = predict(*model, formula_values({4, 6, 6, 1}));
    CHECK(max_difference(got, expected) <= 1e-5);
  }
}

TEST_CASE("Sequential::save writes a .keras file load_model reads back") {
  TempDir dir("eagle_keras_file_test");
  if (!eagle::io::keras_weights_supported()) {
    auto model = std::make_unique<keras::Sequential>();
    model->add(layers::Input({3}));
    model->add(layers::Dense(2));
    CHECK_THROWS_AS(model->save(dir.file("m.keras")), eagle::UnimplementedError);
    return;
  }
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    const auto model = eagle_model();
    const Tensor x = formula_values({4, 8, 8, 2});
    const std::vector<float> before = predict(*model, x);
    const std::string path = dir.file("eagle.keras");
    model->save(path);

    const eagle::io::ZipReader zip(path);
    CHECK(zip.names() ==
          std::vector<std::string>{"metadata.json", "config.json", "model.weights.h5"});
    const Json config = Json::parse(zip.read("config.json"));
    CHECK(config.find("class_name")->as_string() == "Sequential");
    const Json::Array& entries = config.find("config")->find("layers")->as_array();
    REQUIRE(entries.size() == 10);
    CHECK(entries[0].find("config")->find("batch_shape")->dump() == "[null, 8, 8, 2]");
    const Json& conv = *entries[1].find("config");
    CHECK(conv.find("name")->as_string() == "conv_a");
    CHECK(conv.find("kernel_size")->dump() == "[3, 2]");
    CHECK(conv.find("strides")->dump() == "[2, 1]");
    CHECK(conv.find("padding")->as_string() == "same");
    CHECK(conv.find("activation")->as_string() == "relu");
    CHECK(entries[2].find("config")->find("center")->dump() == "false");
    CHECK(entries[2].find("config")->find("momentum")->dump() == "0.5");
    CHECK(entries[5].find("config")->find("seed")->dump() == "5");
    CHECK(entries[6].find("config")->find("activation")->as_string() == "gelu");
    CHECK(entries[8].find("config")->find("use_bias")->dump() == "false");
    CHECK(entries[8].find("build_config")->find("input_shape")->dump() == "[null, 32]");
    CHECK(Json::parse(zip.read("metadata.json")).find("saved_by")->as_string() == "eagle");

    const std::unique_ptr<keras::Sequential> back = keras::models::load_model(path);
    CHECK(back->name() == "eagle_model");
    REQUIRE(back->layers().size() == model->layers().size());
    for (std::size_t i = 0; i < back->layers().size(); ++i) {
      CHECK(back->layers()[i]->name() == model->layers()[i]->name());
      CHECK(back->layers()[i]->class_name() == model->layers()[i]->class_name());
    }
    CHECK(predict(*back, x) == before);
    CHECK(layer_at<layers::BatchNormalization>(*back, 1)
              .moving_mean()
              .read_value()
              .to_vector<float>() == layer_at<layers::BatchNormalization>(*model, 1)
                                         .moving_mean()
                                         .read_value()
                                         .to_vector<float>());

    // The file tests/tools/check_keras_model_file.py loads into Keras (the CPU run's).
    const char* out = std::getenv("EAGLE_KERAS_MODEL_OUT");
    if (out != nullptr && std::string(device) == "/CPU:0") {
      fs::create_directories(out);
      model->save((fs::path(out) / "eagle_model.keras").string());
      std::ofstream json(fs::path(out) / "eagle_model_predictions.json");
      json << "{\"predictions\": [";
      for (std::size_t i = 0; i < before.size(); ++i) {
        json << (i ? ", " : "") << fmt::format("{:.9g}", before[i]);
      }
      json << "]}\n";
    }
  }
}

// A layer the library does not have, made serializable in its own file as eagle's layers are
// (Note [Layer registry]): get_config, from_config, one registration.
class Scale : public eagle::keras::Layer {
 public:
  explicit Scale(double factor, std::string name = "")
      : Layer("Scale", std::move(name)), factor_(factor) {}
  Tensor call(const Tensor& inputs, bool /*training*/) override {
    return inputs * eagle::constant(static_cast<float>(factor_));
  }
  std::string class_name() const override { return "Scale"; }
  Json get_config() const override { return Layer::get_config().set("factor", factor_); }
  static std::shared_ptr<Layer> from_config(const keras::LayerConfig& config) {
    return std::make_shared<Scale>(config.number("factor", 1.0), config.name());
  }

 private:
  double factor_;
};
const keras::LayerRegistration kScale("Scale", &Scale::from_config);

// Registered under no name: save refuses it.
class Unregistered : public Scale {
 public:
  Unregistered() : Scale(2.0, "unregistered") {}
  std::string class_name() const override { return "Unregistered"; }
};

TEST_CASE("regularizers round-trip through .keras files in Keras 3's form") {
  if (!eagle::io::keras_weights_supported()) return;
  TempDir dir("eagle_keras_regularizer_test");
  auto model = std::make_unique<keras::Sequential>();
  model->add(layers::Input({6, 6, 1}));
  layers::Conv2DOptions conv;
  conv.kernel_regularizer = std::make_shared<eagle::keras::regularizers::L1L2>(0.001, 0.002);
  conv.bias_regularizer = "l2";
  model->add(layers::Conv2D(2, 3, "relu", conv));
  model->add(layers::Flatten());
  layers::DenseOptions dense;
  dense.kernel_regularizer =
      std::make_shared<eagle::keras::regularizers::OrthogonalRegularizer>(0.05, "columns");
  model->add(layers::Dense(3, {}, dense));
  const std::string path = dir.file("regularized.keras");
  model->save(path);
  const eagle::io::ZipReader zip(path);
  const Json config = Json::parse(zip.read("config.json"));
  const Json::Array& entries = config.find("config")->find("layers")->as_array();
  // [InputLayer, Conv2D, Flatten, Dense]
  CHECK(entries[1].find("config")->find("kernel_regularizer")->dump() ==
        R"({"module": "keras.regularizers", "class_name": "L1L2", "config": {"l1": 0.001, )"
        R"("l2": 0.002}, "registered_name": null})");
  CHECK(entries[3].find("config")->find("bias_regularizer")->is_null());
  const auto loaded = keras::models::load_model(path);
  const std::vector<Tensor> before = model->losses();
  const std::vector<Tensor> after = loaded->losses();
  REQUIRE(before.size() == 3);  // the conv kernel and bias, the dense kernel
  REQUIRE(after.size() == 3);
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(after[i].item<float>() == before[i].item<float>());
  }
  // A class eagle lacks is refused, naming it.
  const std::string bad = with_config(
      dir, "bad.keras",
      R"({"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": [)"
      R"({"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 4]}},)"
      R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "units": 2,)"
      R"("kernel_regularizer": {"module": "my", "class_name": "Spectral", "config": {}}}}]}})");
  CHECK_THROWS_WITH(keras::models::load_model(bad),
                    Catch::Contains("The regularizer class 'Spectral' is not in eagle"));
}

TEST_CASE("a layer class registered in its own file saves and loads through the registry") {
  CHECK(keras::find_layer_class("Scale") == &Scale::from_config);
  CHECK(keras::find_layer_class("LSTM") == nullptr);
  CHECK(keras::registered_layer_classes() ==
        std::vector<std::string>{"Activation", "AveragePooling2D", "BatchNormalization", "Conv2D",
                                 "Dense", "Dropout", "Flatten", "MaxPooling2D", "Scale"});
  CHECK_THROWS_MATCHES(keras::register_layer_class("Dense", &Scale::from_config),
                       eagle::InvalidArgumentError,
                       Catch::Message("The layer class 'Dense' is already registered"));

  keras::backend::clear_session();
  layers::Dense dense(3, "relu");
  CHECK(dense.get_config().dump() ==
        "{\"name\": \"dense\", \"trainable\": true, \"dtype\": {\"module\": \"keras\", "
        "\"class_name\": \"DTypePolicy\", \"config\": {\"name\": \"float32\"}, "
        "\"registered_name\": null}, \"units\": 3, \"activation\": \"relu\", \"use_bias\": "
        "true, \"kernel_initializer\": {\"module\": \"keras.initializers\", \"class_name\": "
        "\"GlorotUniform\", \"config\": {\"seed\": null}, \"registered_name\": null}, "
        "\"bias_initializer\": {\"module\": \"keras.initializers\", \"class_name\": "
        "\"Zeros\", \"config\": {}, \"registered_name\": null}, \"kernel_regularizer\": null, "
        "\"bias_regularizer\": null}");

  TempDir dir("eagle_keras_registry_test");
  if (!eagle::io::keras_weights_supported()) return;
  keras::Sequential model("scaled");
  model.add(layers::Input({2}));
  model.add(std::make_shared<Scale>(2.5, "times"));
  model.add(layers::Dense(1));
  const Tensor x = eagle::constant({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  const std::vector<float> want = predict(model, x);
  const std::string path = dir.file("scaled.keras");
  model.save(path);
  const auto back = keras::models::load_model(path);
  REQUIRE(back->layers().size() == 2);
  CHECK(back->layers()[0]->name() == "times");
  CHECK(back->layers()[0]->get_config().find("factor")->as_number() == 2.5);
  CHECK(predict(*back, x) == want);

  keras::Sequential refused("refused");
  refused.add(layers::Input({2}));
  refused.add(std::make_shared<Unregistered>());
  CHECK_THROWS_AS(refused.save(dir.file("refused.keras")), eagle::UnimplementedError);
  CHECK(error_text([&] { refused.save(dir.file("refused.keras")); }) ==
        "Layer 'unregistered' (Unregistered) has no .keras configuration in eagle: "
        "Sequential::save writes the layers InputLayer, Activation, AveragePooling2D, "
        "BatchNormalization, Conv2D, Dense, Dropout, Flatten, MaxPooling2D, Scale");
}

TEST_CASE("the seed CNN saved as .keras loads back with the same predictions") {
  if (!eagle::io::keras_weights_supported()) return;
  TempDir dir("eagle_keras_file_test");
  auto model = eagle_test::seed_cnn();
  model->load_weights(std::string(EAGLE_FIXTURE_DIR) + "/seed_cnn.weights.h5");
  const std::string path = dir.file("seed_cnn.keras");
  model->save(path);
  const auto back = keras::models::load_model(path);
  CHECK(back->count_params() == 93322);
  const Tensor x = formula_values({2, 28, 28, 1});
  CHECK(predict(*back, x) == predict(*model, x));
}

TEST_CASE("grouped Conv2D and SyncBatchNormalization round-trip in Keras 3's spelling") {
  if (!eagle::io::keras_weights_supported()) return;
  TempDir dir("eagle_keras_file_test");
  keras::Sequential model;
  layers::Conv2DOptions conv;
  conv.input_shape = keras::TensorShape{5, 5, 4};
  conv.groups = 2;
  model.add(layers::Conv2D(6, 3, "linear", conv));
  model.add(layers::SyncBatchNormalization());
  model.add(layers::Flatten());
  model.add(layers::Dense(2, "softmax"));
  const std::string path = dir.file("sync.keras");
  model.save(path);
  const eagle::io::Json config =
      eagle::io::Json::parse(eagle::io::ZipReader(path).read("config.json"));
  const auto& saved = config.find("config")->find("layers")->as_array();
  REQUIRE(saved.size() == 5);  // InputLayer first
  CHECK(saved[1].find("config")->find("groups")->as_integer() == 2);
  CHECK(saved[2].find("class_name")->as_string() == "BatchNormalization");
  CHECK(saved[2].find("config")->find("synchronized")->as_bool());
  const auto back = keras::models::load_model(path);
  const auto* loaded_conv = dynamic_cast<const layers::Conv2D*>(back->layers()[0].get());
  REQUIRE(loaded_conv != nullptr);
  CHECK(loaded_conv->options().groups == 2);
  CHECK(loaded_conv->kernel().shape() == eagle::Shape{3, 3, 2, 6});
  const auto* loaded_bn = dynamic_cast<const layers::BatchNormalization*>(back->layers()[1].get());
  REQUIRE(loaded_bn != nullptr);
  CHECK(loaded_bn->synchronized());
  CHECK(loaded_bn->class_name() == "BatchNormalization");
  const Tensor x = formula_values({3, 5, 5, 4});
  CHECK(predict(*back, x) == predict(model, x));
}

TEST_CASE("load_model and save errors are typed and name what is wrong") {
  TempDir dir("eagle_keras_file_test");
  if (!eagle::io::keras_weights_supported()) {
    CHECK(error_text([&] { keras::models::load_model(kFixture); }) ==
          kFixture +
              ": this eagle was built without HDF5 (EAGLE_HDF5=OFF), so it cannot load Keras "
              ".keras files (their weights are HDF5); install libhdf5-dev and rebuild");
    return;
  }
  const std::string missing = dir.file("missing.keras");
  CHECK_THROWS_AS(keras::models::load_model(missing), eagle::NotFoundError);
  CHECK(error_text([&] { keras::models::load_model(missing); }) ==
        "File not found: filepath=" + missing +
            ". Please ensure the file is an accessible `.keras` zip file.");
  CHECK_THROWS_AS(keras::models::load_model(dir.file("m.h5")), eagle::InvalidArgumentError);
  CHECK(error_text([&] { keras::models::load_model(dir.file("m.h5")); }) ==
        "File format not supported: filepath=" + dir.file("m.h5") +
            ". eagle's load_model reads Keras 3 `.keras` files (a `.weights.h5` file loads into "
            "a built model with Model::load_weights).");

  const std::string text = dir.file("text.keras");
  std::ofstream(text) << "not a zip archive at all, just some words";
  CHECK_THROWS_AS(keras::models::load_model(text), eagle::DataLossError);
  CHECK(error_text([&] { keras::models::load_model(text); }) == text + ": File is not a zip file");

  const std::string whole = slurp(kFixture);
  const std::string truncated = dir.file("truncated.keras");
  std::ofstream(truncated, std::ios::binary) << whole.substr(0, 20000);
  CHECK_THROWS_AS(keras::models::load_model(truncated), eagle::DataLossError);
  CHECK(error_text([&] { keras::models::load_model(truncated); }) ==
        truncated +
            ": truncated zip archive: it starts as one but has no end of central directory "
            "record (20000 bytes)");

  const std::string config = fixture_config();
  const std::string lstm =
      with_config(dir, "lstm.keras", replaced(config, "\"Activation\"", "\"LSTM\""));
  CHECK_THROWS_AS(keras::models::load_model(lstm), eagle::UnimplementedError);
  CHECK(error_text([&] { keras::models::load_model(lstm); }) ==
        lstm +
            ": Could not locate class 'LSTM'. eagle's load_model builds the layers InputLayer, "
            "Activation, AveragePooling2D, BatchNormalization, Conv2D, Dense, Dropout, Flatten, "
            "MaxPooling2D, Scale");

  const std::string functional =
      with_config(dir, "functional.keras", replaced(config, "\"Sequential\"", "\"Functional\""));
  CHECK(error_text([&] { keras::models::load_model(functional); }) ==
        functional +
            ": the model is a 'Functional': eagle's load_model builds Sequential models only (a "
            "Keras Functional or subclassed model has no eagle counterpart)");

  const std::string mish = with_config(
      dir, "mish.keras", replaced(config, "\"activation\": \"tanh\"", "\"activation\": \"mish\""));
  CHECK_THROWS_AS(keras::models::load_model(mish), eagle::UnimplementedError);
  CHECK(error_text([&] { keras::models::load_model(mish); }) ==
        mish +
            ": layer 'squash' (Activation): Unknown activation function: 'mish'. eagle has "
            "linear, relu, relu6, sigmoid, tanh, softmax, exponential, softplus, softsign, "
            "swish, silu, elu, selu and gelu");

  const std::string first = with_config(dir, "channels_first.keras",
                                        replaced(config, "\"data_format\": \"channels_last\"",
                                                 "\"data_format\": \"channels_first\""));
  CHECK(error_text([&] { keras::models::load_model(first); }) ==
        first +
            ": layer 'conv' (Conv2D): data_format=\"channels_first\" is not supported by eagle's "
            "layers (only \"channels_last\")");

  const std::string bad_json =
      with_config(dir, "bad_json.keras", config.substr(0, config.size() - 1));
  CHECK_THROWS_AS(keras::models::load_model(bad_json), eagle::DataLossError);
  CHECK(error_text([&] { keras::models::load_model(bad_json); }) ==
        bad_json + ": config.json: invalid JSON at offset " + std::to_string(config.size() - 1) +
            ": expected ',' or '}'");

  // Another layer count than the weights file has: Keras's text, naming the archive's entry.
  const std::string wider =
      with_config(dir, "wider.keras", replaced(config, "\"units\": 4", "\"units\": 5"));
  CHECK_THROWS_AS(keras::models::load_model(wider), eagle::InvalidArgumentError);
  CHECK(error_text([&] { keras::models::load_model(wider); }) ==
        wider +
            "/model.weights.h5: /layers/dense/vars/0 ('kernel' of layer 'hidden') has shape "
            "(27, 4), expected (27, 5)");

  auto unbuilt = std::make_unique<keras::Sequential>("unbuilt");
  unbuilt->add(layers::Dense(2));
  CHECK(error_text([&] { unbuilt->save(dir.file("u.keras")); }) ==
        "Model \"unbuilt\" has not yet been built, so it cannot be saved to " +
            dir.file("u.keras") +
            ". Build the model first by calling `build()` or by calling the model on a batch of "
            "data.");
  auto built = std::make_unique<keras::Sequential>();
  built->add(layers::Input({3}));
  built->add(layers::Dense(2));
  CHECK_THROWS_AS(built->save(dir.file("m.h5")), eagle::InvalidArgumentError);
  CHECK(error_text([&] { built->save(dir.file("m.h5")); }) ==
        "Invalid filepath extension for saving. Please add a `.keras` extension for the native "
        "Keras format. Received: filepath=" +
            dir.file("m.h5") + ".");
  auto custom = std::make_unique<keras::Sequential>();
  custom->add(layers::Input({3}));
  layers::DenseOptions named;
  named.name = "dense_abs";
  custom->add(layers::Dense(
      2, keras::activations::Activation([](const Tensor& x) { return eagle::abs(x); }, "absolute"),
      named));
  CHECK_THROWS_AS(custom->save(dir.file("c.keras")), eagle::InvalidArgumentError);
  CHECK(error_text([&] { custom->save(dir.file("c.keras")); }) ==
        "Unknown activation function 'absolute' cannot be serialized due to invalid function "
        "name. Make sure to use an activation name that matches the references defined in "
        "activations.py (layer 'dense_abs')");
}
