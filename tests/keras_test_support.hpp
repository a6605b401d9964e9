// What the eagle::keras tests share: printing captured in a string with the clock under the
// test's control, and the fixture's arrays as tensors.
#pragma once

#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "json_reader.hpp"

namespace eagle_test {

// tests/tools/keras_cnn_model.py's formula_values: flat element i (from `first`) is
// ((i * 1103515245 + 12345) mod 2^31 >> 23) / 255 as float32.
inline eagle::Tensor formula_values(const eagle::Shape& shape, std::uint64_t first = 0) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::uint64_t i = first + k;
    const std::uint64_t bits = ((i * 1103515245u + 12345u) % (1u << 31)) >> 23;
    v[k] = static_cast<float>(static_cast<double>(bits) / 255.0);
  }
  return eagle::constant(v, shape);
}

// The model of tests/tools/gen_keras_optimizer_state_fixture.py, uncompiled: Dense(3, relu) ->
// Dense(2) on 4 inputs, each weight formula_values of its shape minus 0.5.
inline std::unique_ptr<eagle::keras::Sequential> optimizer_state_model() {
  auto model = std::make_unique<eagle::keras::Sequential>();
  model->add(eagle::keras::layers::Input({4}));
  model->add(eagle::keras::layers::Dense(3, "relu"));
  model->add(eagle::keras::layers::Dense(2));
  for (const auto& layer : model->layers()) {
    std::vector<eagle::Tensor> values;
    for (const eagle::Tensor& w : layer->get_weights()) {
      values.push_back(eagle::subtract(formula_values(w.shape()), eagle::constant(0.5f)));
    }
    layer->set_weights(values);
  }
  return model;
}

// `steps` train_on_batch steps of that model on the generator's batch.
inline void train_optimizer_state_model(eagle::keras::Sequential& model, int steps) {
  for (int i = 0; i < steps; ++i) {
    model.train_on_batch(formula_values({8, 4}), formula_values({8, 2}));
  }
}

// While alive: Keras's printing goes to `text()`, the bar shows final lines only (unless asked
// otherwise), and the progress bar's clock reads `now`, which the test advances.
class KerasPrintCapture {
 public:
  explicit KerasPrintCapture(bool dynamic = false) {
    eagle::keras::io::set_print_stream(stream_);
    eagle::keras::io::set_dynamic_display(dynamic);
    eagle::keras::io::set_clock([this] { return now; });
  }
  ~KerasPrintCapture() {
    eagle::keras::io::set_print_stream(std::cout);
    eagle::keras::io::set_dynamic_display(std::nullopt);
    eagle::keras::io::set_clock(nullptr);
  }
  KerasPrintCapture(const KerasPrintCapture&) = delete;
  KerasPrintCapture& operator=(const KerasPrintCapture&) = delete;

  std::string text() const { return stream_.str(); }
  void clear() { stream_.str(""); }
  double now = 0;

 private:
  std::ostringstream stream_;
};

inline std::vector<float> floats(const Json& array) {
  std::vector<float> out;
  for (const Json& v : array.array()) out.push_back(static_cast<float>(v.number()));
  return out;
}

inline std::vector<std::int32_t> ints(const Json& array) {
  std::vector<std::int32_t> out;
  for (const Json& v : array.array()) out.push_back(static_cast<std::int32_t>(v.integer()));
  return out;
}

inline eagle::Tensor tensor(const Json& array, eagle::Shape shape) {
  return eagle::constant(floats(array), shape);
}

// samples/fashion_mnist_cnn.cpp's model (seed 003), unbuilt weights aside: 93,322 parameters.
inline std::unique_ptr<eagle::keras::Sequential> seed_cnn() {
  namespace keras = eagle::keras;
  namespace layers = eagle::keras::layers;
  auto model = std::make_unique<keras::Sequential>();
  layers::Conv2DOptions first;
  first.input_shape = keras::TensorShape{28, 28, 1};
  model->add(layers::Conv2D(32, 3, "relu", first));
  model->add(layers::MaxPooling2D(2));
  model->add(layers::Conv2D(64, 3, "relu"));
  model->add(layers::MaxPooling2D(2));
  model->add(layers::Conv2D(64, 3, "relu"));
  model->add(layers::Flatten());
  model->add(layers::Dense(64, "relu"));
  model->add(layers::Dense(10, "softmax"));
  return model;
}

}  // namespace eagle_test
