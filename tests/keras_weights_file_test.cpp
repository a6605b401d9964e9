// Keras 3 .weights.h5 files (src/io/keras_weights_file.hpp): the fixture Keras wrote
// (tests/tools/gen_keras_weights_fixture.py) read with exact values, files eagle writes read back,
// and the errors. Without HDF5 in the build, the calls' UnimplementedError is what is tested.
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "io/keras_weights_file.hpp"
#include "temp_files.hpp"

namespace {

using eagle_test::error_text;
using eagle_test::TempDir;

namespace fs = std::filesystem;
using eagle::Shape;
using eagle::Tensor;
using eagle::io::LayerWeights;

const std::string kFixture = std::string(EAGLE_FIXTURE_DIR) + "/keras_model.weights.h5";

// The formula of tests/tools/keras_weights_model.py: variable j of the k-th layer with weights.
std::vector<float> formula(std::int64_t n, int j, int k) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = ((i % 13) - 6) / 8.0f + j + k / 4.0f;
  return v;
}

Tensor formula_tensor(const Shape& shape, int j, int k) {
  return eagle::constant(formula(shape.num_elements(), j, k), shape);
}

// The fixture model's weighted layers: path, shapes.
struct LayerSpec {
  std::string path;
  std::vector<Shape> shapes;
};
const std::vector<LayerSpec> kLayers = {
    {"layers/conv2d", {Shape{3, 3, 1, 2}, Shape{2}}},
    {"layers/dense", {Shape{8, 3}, Shape{3}}},
    {"layers/dense_1", {Shape{3, 2}, Shape{2}}},
};

// The whole model as Keras 3 writes it: every layer (weights or not) and the model's own group.
std::vector<LayerWeights> formula_model() {
  std::vector<LayerWeights> out{{"", {}, "sequential"}};
  for (std::size_t k = 0; k < kLayers.size(); ++k) {
    LayerWeights layer{kLayers[k].path, {}};
    for (std::size_t j = 0; j < kLayers[k].shapes.size(); ++j) {
      layer.weights.push_back(
          formula_tensor(kLayers[k].shapes[j], static_cast<int>(j), static_cast<int>(k)));
    }
    out.push_back(layer);
  }
  out.push_back({"layers/flatten", {}});
  out.push_back({"layers/max_pooling2d", {}});
  return out;
}

const LayerWeights* find(const std::vector<LayerWeights>& layers, const std::string& path) {
  for (const LayerWeights& l : layers) {
    if (l.path == path) return &l;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a .weights.h5 file Keras 3 wrote loads with exact values") {
  if (!eagle::io::keras_weights_supported()) {
    CHECK_THROWS_AS(eagle::io::load_keras_weights(kFixture), eagle::UnimplementedError);
    return;
  }
  const std::vector<LayerWeights> layers = eagle::io::load_keras_weights(kFixture);
  std::vector<std::string> paths;
  for (const LayerWeights& l : layers) paths.push_back(l.path);
  CHECK(paths == std::vector<std::string>{"layers/conv2d", "layers/dense", "layers/dense_1",
                                          "layers/flatten", "layers/max_pooling2d", "optimizer",
                                          ""});
  for (std::size_t k = 0; k < kLayers.size(); ++k) {
    const LayerWeights* layer = find(layers, kLayers[k].path);
    REQUIRE(layer != nullptr);
    CHECK(layer->name == kLayers[k].path.substr(7));
    REQUIRE(layer->weights.size() == kLayers[k].shapes.size());
    for (std::size_t j = 0; j < layer->weights.size(); ++j) {
      const Tensor& w = layer->weights[j];
      CHECK(w.shape() == kLayers[k].shapes[j]);
      CHECK(w.dtype() == eagle::float32);
      CHECK(w.device() == "/job:localhost/replica:0/task:0/device:CPU:0");
      CHECK(w.to_vector<float>() ==
            formula(w.num_elements(), static_cast<int>(j), static_cast<int>(k)));
    }
  }
  CHECK(find(layers, "layers/flatten")->weights.empty());
  CHECK(find(layers, "")->name == "sequential");
  // Adam's state after one step: iterations (int64 scalar), learning rate, then m and v.
  const LayerWeights* adam = find(layers, "optimizer");
  REQUIRE(adam != nullptr);
  CHECK(adam->name == "adam");
  REQUIRE(adam->weights.size() == 14);
  CHECK(adam->weights[0].dtype() == eagle::int64);
  CHECK(adam->weights[0].shape() == Shape{});
  CHECK(adam->weights[0].item<std::int64_t>() == 1);
  CHECK(adam->weights[1].item<float>() == 0.001f);
  CHECK(adam->weights[10].shape() == Shape{3, 2});  // "10" after "9", not after "1"

  const LayerWeights& dense = eagle::io::expect_layer_weights(
      kFixture, layers, "layers/dense", "dense", {"kernel", "bias"}, {Shape{8, 3}, Shape{3}});
  CHECK(&dense == find(layers, "layers/dense"));
}

TEST_CASE("save_keras_weights writes Keras 3's layout, read back exactly") {
  if (!eagle::io::keras_weights_supported()) {
    TempDir dir("eagle_weights_test");
    CHECK_THROWS_AS(eagle::io::save_keras_weights(dir.file("m.weights.h5"), formula_model()),
                    eagle::UnimplementedError);
    return;
  }
  TempDir dir("eagle_weights_test");
  const std::string file = dir.file("m.weights.h5");
  std::vector<LayerWeights> model = formula_model();
  // Other dtypes and ranks: a scalar int64, float64, float16 and an empty tensor.
  model.push_back(
      {"optimizer",
       {eagle::constant(std::int64_t{7}), eagle::constant(std::vector<double>{0.1, -2.5}),
        eagle::cast(eagle::constant(std::vector<float>{0.5f, -1.25f, 65504.f}), eagle::kFloat16),
        eagle::constant(std::vector<std::int32_t>{}, {0, 3})},
       "adam"});
  eagle::io::save_keras_weights(file, model);
  const std::vector<LayerWeights> back = eagle::io::load_keras_weights(file);
  REQUIRE(back.size() == model.size());
  for (const LayerWeights& original : model) {
    const LayerWeights* read = find(back, original.path);
    REQUIRE(read != nullptr);
    CHECK(read->name == (original.name.empty() ? original.path.substr(original.path.rfind('/') + 1)
                                               : original.name));
    REQUIRE(read->weights.size() == original.weights.size());
    for (std::size_t j = 0; j < read->weights.size(); ++j) {
      const Tensor& a = original.weights[j];
      const Tensor& b = read->weights[j];
      CHECK(a.shape() == b.shape());
      CHECK(a.dtype() == b.dtype());
      CHECK(eagle::cast(a, eagle::float64).to_vector<double>() ==
            eagle::cast(b, eagle::float64).to_vector<double>());
    }
  }
  // The file Keras's own test reads (tests/tools/check_keras_loads.py).
  if (const char* out = std::getenv("EAGLE_KERAS_WEIGHTS_OUT")) {
    eagle::io::save_keras_weights(out, formula_model());
  }
}

TEST_CASE("weights file errors are typed and name the file") {
  TempDir dir("eagle_weights_test");
  CHECK(error_text([&] { eagle::io::save_keras_weights(dir.file("m.h5"), {}); }) ==
        "The filename must end in `.weights.h5`. Received: filepath=" + dir.file("m.h5"));
  if (!eagle::io::keras_weights_supported()) {
    CHECK(error_text([&] { eagle::io::load_keras_weights(kFixture); }) ==
          kFixture +
              ": this eagle was built without HDF5 (EAGLE_HDF5=OFF), so it cannot load Keras "
              ".weights.h5 files; install libhdf5-dev and rebuild");
    return;
  }
  const std::string missing = dir.file("missing.weights.h5");
  CHECK_THROWS_AS(eagle::io::load_keras_weights(missing), eagle::NotFoundError);
  CHECK(error_text([&] { eagle::io::load_keras_weights(missing); }) ==
        missing + "; No such file or directory");
  const std::string no_dir = dir.file("nowhere/m.weights.h5");
  CHECK_THROWS_AS(eagle::io::save_keras_weights(no_dir, {}), eagle::NotFoundError);

  const std::string text = dir.file("text.weights.h5");
  std::FILE* f = std::fopen(text.c_str(), "w");
  std::fputs("not hdf5 at all", f);
  std::fclose(f);
  CHECK_THROWS_AS(eagle::io::load_keras_weights(text), eagle::DataLossError);
  CHECK(error_text([&] { eagle::io::load_keras_weights(text); }) ==
        text + ": not an HDF5 file (no HDF5 signature): not a .weights.h5 file");

  const std::string empty = dir.file("empty.weights.h5");
  eagle::io::save_keras_weights(empty, {});
  CHECK_THROWS_AS(eagle::io::load_keras_weights(empty), eagle::DataLossError);
  CHECK(error_text([&] { eagle::io::load_keras_weights(empty); }) ==
        empty +
            ": not in Keras 3's .weights.h5 layout: no \"vars\" group (a Keras 2 .h5 file keeps "
            "its weights under model_weights/ or per-layer groups instead)");

  CHECK_THROWS_AS(eagle::io::save_keras_weights(dir.file("b.weights.h5"),
                                                {{"layers/x", {eagle::constant({true, false})}}}),
                  eagle::UnimplementedError);

  const std::vector<LayerWeights> layers = eagle::io::load_keras_weights(kFixture);
  CHECK(error_text([&] {
          eagle::io::expect_layer_weights(kFixture, layers, "layers/dense_9", "dense_9",
                                          {"kernel", "bias"}, {Shape{8, 3}, Shape{3}});
        }) == kFixture +
                  ": Layer 'dense_9' expected 2 variables, but received 0 variables during "
                  "loading. Expected: ['kernel', 'bias']");
  CHECK_THROWS_AS(eagle::io::expect_layer_weights(kFixture, layers, "layers/dense", "dense",
                                                  {"kernel", "bias"}, {Shape{8, 4}, Shape{4}}),
                  eagle::InvalidArgumentError);
  CHECK(error_text([&] {
          eagle::io::expect_layer_weights(kFixture, layers, "layers/dense", "dense",
                                          {"kernel", "bias"}, {Shape{8, 4}, Shape{4}});
        }) == kFixture +
                  ": /layers/dense/vars/0 ('kernel' of layer 'dense') has shape (8, 3), expected "
                  "(8, 4)");
}
