// eagle::keras layers: Keras's automatic names, Dense/Flatten/Activation/Dropout shapes and
// parameters, activations against TensorFlow, input checks and weight errors with Keras's texts,
// and variables on the device of the build scope. On the CPU and a simulated GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using Catch::Matchers::Equals;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";

}  // namespace

TEST_CASE("keras: automatic names count per class from zero as Keras 2's, clear_session resets") {
  keras::backend::clear_session();
  CHECK(layers::Dense(4).name() == "dense");
  CHECK(layers::Dense(4).name() == "dense_1");
  CHECK(layers::Flatten().name() == "flatten");
  CHECK(layers::Dense(4).name() == "dense_2");
  CHECK(layers::Dropout(0.5).name() == "dropout");
  CHECK(layers::Activation("relu").name() == "activation");
  CHECK(layers::Input({784}).name() == "input_1");
  CHECK(layers::Input({784}).name() == "input_2");
  CHECK(keras::Sequential().name() == "sequential");
  CHECK(keras::Sequential().name() == "sequential_1");
  layers::DenseOptions named;
  named.name = "logits";
  CHECK(layers::Dense(4, {}, named).name() == "logits");
  CHECK(layers::Dense(4).name() == "dense_3");  // a given name takes no number
  keras::backend::clear_session();
  CHECK(layers::Dense(4).name() == "dense");
  CHECK(keras::backend::to_snake_case("MaxPooling2D") == "max_pooling2d");
  CHECK(keras::backend::to_snake_case("Conv2D") == "conv2d");
  CHECK(keras::backend::to_snake_case("BatchNormalization") == "batch_normalization");
  CHECK(keras::backend::to_snake_case("AveragePooling2D") == "average_pooling2d");
}

TEST_CASE("keras: activations by name give TensorFlow's values") {
  const std::map<std::string, std::vector<float>> expected = {
      {"relu", {0.f, 0.f, 0.f, 0.f, 0.5f, 2.f, 7.f}},
      {"relu6", {0.f, 0.f, 0.f, 0.f, 0.5f, 2.f, 6.f}},
      {"sigmoid",
       {0.0474258736f, 0.268941432f, 0.377540678f, 0.5f, 0.622459352f, 0.880797088f, 0.999088943f}},
      {"tanh",
       {-0.995054722f, -0.761594176f, -0.462117136f, 0.f, 0.462117136f, 0.964027584f,
        0.999998331f}},
      {"exponential",
       {0.0497870669f, 0.36787945f, 0.606530666f, 1.f, 1.64872122f, 7.38905621f, 1096.63318f}},
      {"softplus",
       {0.048587352f, 0.313261688f, 0.474076986f, 0.693147182f, 0.974076986f, 2.12692809f,
        7.00091171f}},
      {"softsign", {-0.75f, -0.5f, -0.333333343f, 0.f, 0.333333343f, 0.666666687f, 0.875f}},
      {"swish",
       {-0.142277628f, -0.268941432f, -0.188770339f, 0.f, 0.311229676f, 1.76159418f, 6.99362278f}},
      {"silu",
       {-0.142277628f, -0.268941432f, -0.188770339f, 0.f, 0.311229676f, 1.76159418f, 6.99362278f}},
      {"elu", {-0.950212955f, -0.63212055f, -0.393469334f, 0.f, 0.5f, 2.f, 7.f}},
      {"selu",
       {-1.6705687f, -1.11133075f, -0.691758156f, 0.f, 0.525350511f, 2.10140204f, 7.35490704f}},
      {"gelu",
       {-0.00404969556f, -0.158655256f, -0.154268771f, 0.f, 0.345731229f, 1.95449972f, 7.f}},
      {"hard_sigmoid", {0.f, 0.300000012f, 0.400000006f, 0.5f, 0.600000024f, 0.899999976f, 1.f}},
      {"softmax",
       {4.49465479e-05f, 0.00033211254f, 0.000547560921f, 0.000902775442f, 0.00148842519f,
        0.00667065801f, 0.99001348f}},
      {"linear", {-3.f, -1.f, -0.5f, 0.f, 0.5f, 2.f, 7.f}},
  };
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    const Tensor x = eagle::constant({-3.f, -1.f, -0.5f, 0.f, 0.5f, 2.f, 7.f});
    for (const auto& [name, values] : expected) {
      INFO(device << " " << name);
      const std::vector<float> got = keras::activations::get(name)(x).to_vector<float>();
      REQUIRE(got.size() == values.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i] == Approx(values[i]).epsilon(1e-5).margin(1e-6));
      }
    }
  }
  CHECK_THROWS_MATCHES(
      keras::activations::get("relux"), eagle::InvalidArgumentError,
      Catch::Matchers::Message(
          "Unknown activation function: 'relux'. Please ensure you are using a "
          "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
          "https://www.tensorflow.org/guide/keras/save_and_serialize"
          "#registering_the_custom_object for details."));
  CHECK_THROWS_AS(layers::Dense(3, "sofmax"), eagle::InvalidArgumentError);
}

TEST_CASE("keras: Dense builds on the first call, Keras's kernel shape, defaults and values") {
  keras::backend::clear_session();
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    layers::Dense dense(2, "relu");
    CHECK_FALSE(dense.built());
    CHECK_THROWS_MATCHES(
        dense.count_params(), eagle::InvalidArgumentError,
        Catch::Matchers::Message("You tried to call `count_params` on layer " + dense.name() +
                                 ", but the layer isn't built. You can build it manually via: `" +
                                 dense.name() + ".build(batch_input_shape)`."));
    const Tensor x = eagle::constant({1.f, 2.f, 3.f, -1.f, 0.f, 1.f}, eagle::Shape{2, 3});
    dense(x);
    REQUIRE(dense.built());
    CHECK(dense.kernel().shape() == eagle::Shape{3, 2});
    CHECK(dense.bias().shape() == eagle::Shape{2});
    CHECK(dense.kernel().name() == dense.name() + "/kernel:0");
    CHECK(dense.bias().name() == dense.name() + "/bias:0");
    CHECK(dense.count_params() == 8);
    CHECK(dense.weights().size() == 2);
    CHECK(dense.trainable_variables().size() == 2);
    CHECK(dense.non_trainable_variables().empty());
    // Zero bias, glorot_uniform kernel within sqrt(6 / (3 + 2)).
    CHECK(dense.bias().read_value().to_vector<float>() == std::vector<float>{0.f, 0.f});
    for (float k : dense.kernel().read_value().to_vector<float>()) {
      CHECK(std::abs(k) <= std::sqrt(6.0f / 5.0f));
    }
    dense.set_weights({eagle::constant({1.f, 0.f, 0.f, 1.f, 1.f, -1.f}, eagle::Shape{3, 2}),
                       eagle::constant({0.5f, 0.f})});
    CHECK(dense(x).to_vector<float>() == std::vector<float>{4.5f, 0.f, 0.5f, 0.f});
    // Frozen: no trainable weights, both in non_trainable_variables.
    dense.set_trainable(false);
    CHECK(dense.trainable_variables().empty());
    CHECK(dense.non_trainable_variables().size() == 2);
  }
  layers::DenseOptions no_bias;
  no_bias.use_bias = false;
  no_bias.kernel_initializer = "ones";
  layers::Dense plain(3, {}, no_bias);
  const Tensor y = plain(eagle::ones({4, 2, 5}));  // rank 3: contracted over the last axis
  CHECK(y.shape() == eagle::Shape{4, 2, 3});
  CHECK(y.to_vector<float>()[0] == 5.f);
  CHECK(plain.weights().size() == 1);
  CHECK_THROWS_MATCHES(layers::Dense(0), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("Received an invalid value for `units`, expected a "
                                                "positive integer. Received: units=0"));
}

TEST_CASE("keras: Dense refuses inputs its input spec does not accept, Keras's texts") {
  keras::backend::clear_session();
  layers::Dense dense(2);
  dense(eagle::ones({2, 4}));
  CHECK_THROWS_MATCHES(
      dense(eagle::ones({32, 5})), eagle::InvalidArgumentError,
      Catch::Matchers::Message("Input 0 of layer \"dense\" is incompatible with the layer: "
                               "expected axis -1 of input shape to have value 4, but received "
                               "input with shape (32, 5)"));
  layers::Dense fresh(2);
  CHECK_THROWS_MATCHES(
      fresh(eagle::ones({4})), eagle::InvalidArgumentError,
      Catch::Matchers::Message("Input 0 of layer \"dense_1\" is incompatible with the layer: "
                               "expected min_ndim=2, found ndim=1. Full shape received: (4,)"));
}

TEST_CASE("keras: set_weights and get_weights, Keras's errors for count and shape") {
  keras::backend::clear_session();
  layers::Dense dense(2);
  dense(eagle::ones({1, 3}));
  const auto weights = dense.get_weights();
  REQUIRE(weights.size() == 2);
  CHECK(weights[0].shape() == eagle::Shape{3, 2});
  CHECK_THROWS_MATCHES(
      dense.set_weights({weights[0]}), eagle::InvalidArgumentError,
      Catch::Matchers::Message("You called `set_weights(weights)` on layer \"dense\" with a weight "
                               "list of length 1, but the layer was expecting 2 weights."));
  CHECK_THROWS_MATCHES(
      dense.set_weights({eagle::ones({2, 3}), weights[1]}), eagle::InvalidArgumentError,
      Catch::Matchers::Message(
          "Layer dense weight shape (3, 2) is not compatible with provided weight shape (2, 3)."));
  // Nothing changed by the refused calls.
  CHECK(dense.kernel().read_value().to_vector<float>() == weights[0].to_vector<float>());
}

TEST_CASE("keras: Flatten, Activation and Dropout") {
  keras::backend::clear_session();
  layers::Flatten flatten;
  const Tensor x = eagle::reshape(eagle::range(0, 24), {2, 3, 4});
  const Tensor flat = flatten(eagle::cast(x, eagle::kFloat32));
  CHECK(flat.shape() == eagle::Shape{2, 12});
  CHECK(flatten.compute_output_shape({std::nullopt, 26, 26, 32}) ==
        keras::TensorShape{std::nullopt, 21632});
  CHECK(keras::to_string(flatten.compute_output_shape({std::nullopt, 5, 5, 64})) == "(None, 1600)");
  CHECK(flatten(eagle::ones({3})).shape() == eagle::Shape{3, 1});

  layers::Activation softmax("softmax");
  const auto p = softmax(eagle::constant({{1.f, 1.f}})).to_vector<float>();
  CHECK(p == std::vector<float>{0.5f, 0.5f});

  layers::Dropout dropout(0.5, 7);
  const Tensor ones = eagle::ones({1000});
  CHECK(dropout(ones, false).to_vector<float>() == ones.to_vector<float>());  // inference
  const auto a = dropout(ones, true).to_vector<float>();
  const auto b = dropout(ones, true).to_vector<float>();
  int kept = 0;
  for (float v : a) {
    CHECK((v == 0.f || v == 2.f));  // inverted scaling: kept values times 1 / (1 - rate)
    kept += v != 0.f;
  }
  CHECK(kept > 400);
  CHECK(kept < 600);
  CHECK(a != b);  // a new mask at each call
  layers::Dropout again(0.5, 7);
  CHECK(again(ones, true).to_vector<float>() == a);  // the same sequence for the same seed
  CHECK_THROWS_MATCHES(layers::Dropout(1.5), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("Invalid value received for argument `rate`. "
                                                "Expected a float value between 0 and 1. "
                                                "Received: rate=1.5"));
  // Dropout is differentiable: the gradient is the mask, scaled.
  eagle::Variable v(eagle::ones({8}));
  eagle::GradientTape tape;
  const Tensor y = eagle::reduce_sum(layers::detail::dropout_op(v, 0.25, 3));
  const auto g = tape.gradient(y, {v});
  const auto dy = layers::detail::dropout_op(eagle::ones({8}), 0.25, 3).to_vector<float>();
  CHECK(g[0]->to_vector<float>() == dy);
}

TEST_CASE("keras: a model built under a device scope keeps its variables on that device") {
  keras::backend::clear_session();
  keras::Sequential model;
  {
    auto scope = eagle::device("/GPU:0");
    model.add(layers::Input({3}));
    model.add(layers::Dense(4, "relu"));
    model.add(layers::Dense(2));
  }
  for (const eagle::Variable& v : model.weights()) CHECK(v.device() == kGpu0);
  model.compile("adam", "mse");
  // Trained under the CPU's scope, the variables and the optimizer's slots stay on GPU:0.
  auto scope = eagle::device("/CPU:0");
  model.fit(eagle::ones({8, 3}), eagle::zeros({8, 2}), [] {
    keras::FitOptions o;
    o.verbose = 0;
    return o;
  }());
  for (const eagle::Variable& v : model.weights()) {
    CHECK(v.device() == kGpu0);
    CHECK(model.optimizer()->get_slot(v, "momentum").device() == kGpu0);
  }
  keras::Sequential cpu_model;
  cpu_model.add(layers::Input({3}));
  cpu_model.add(layers::Dense(4));
  CHECK(cpu_model.weights()[0].device() == kCpu0);
}

TEST_CASE("keras: input_shape on the first layer builds a Sequential as layers are added") {
  keras::backend::clear_session();
  keras::Sequential model;
  layers::LayerOptions flat;
  flat.input_shape = keras::TensorShape{28, 28};
  model.add(layers::Flatten(flat));
  CHECK(model.built());
  model.add(layers::Dense(10, "softmax"));
  REQUIRE(model.layers().size() == 2);
  CHECK(model.layers()[0]->output_shape() == keras::TensorShape{std::nullopt, 784});
  CHECK(model.layers()[1]->output_shape() == keras::TensorShape{std::nullopt, 10});
  CHECK(model.count_params() == 7850);
  const Tensor y = model(eagle::ones({5, 28, 28}));
  CHECK(y.shape() == eagle::Shape{5, 10});
  const auto rows = eagle::reduce_sum(y, -1).to_vector<float>();
  for (float r : rows) CHECK(r == Approx(1.0f));
  // Dense with input_shape in its options.
  keras::Sequential dense_first;
  layers::DenseOptions options;
  options.input_shape = keras::TensorShape{3};
  dense_first.add(layers::Dense(2, "relu", options));
  CHECK(dense_first.built());
  CHECK(dense_first.count_params() == 8);
  dense_first.pop();
  CHECK(dense_first.layers().empty());
  CHECK_THROWS_MATCHES(dense_first.pop(), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("There are no layers in the model."));
}

TEST_CASE("keras: Conv2D and the pooling layers, Keras's shapes, names, parameters and errors") {
  keras::backend::clear_session();
  keras::Sequential model;
  layers::Conv2DOptions same;
  same.padding = "SAME";  // any case, as Keras
  same.strides = {2, 1};
  same.input_shape = keras::TensorShape{9, 8, 3};
  model.add(layers::Conv2D(4, {3, 2}, "relu", same));
  model.add(layers::MaxPooling2D(2));
  layers::Pooling2DOptions pool;
  pool.strides = 1;
  pool.padding = "same";
  model.add(layers::AveragePooling2D(3, pool));
  const auto all = model.layers();
  CHECK(all[0]->name() == "conv2d");
  CHECK(all[1]->name() == "max_pooling2d");
  CHECK(all[2]->name() == "average_pooling2d");
  // SAME: ceil(9 / 2) = 5 rows, 8 columns; pooled 2x2 VALID: 2 x 4; then SAME stride 1 keeps it.
  CHECK(keras::to_string(*all[0]->output_shape()) == "(None, 5, 8, 4)");
  CHECK(keras::to_string(*all[1]->output_shape()) == "(None, 2, 4, 4)");
  CHECK(keras::to_string(*all[2]->output_shape()) == "(None, 2, 4, 4)");
  CHECK(all[0]->count_params() == 3 * 2 * 3 * 4 + 4);
  CHECK(all[0]->weights()[0].shape() == eagle::Shape{3, 2, 3, 4});  // HWIO
  const Tensor x = eagle::random_uniform({2, 9, 8, 3}, -1, 1, eagle::kFloat32, 5);
  const Tensor y = model(x);
  CHECK(y.shape() == eagle::Shape{2, 2, 4, 4});
  // The same computation from the ops.
  const auto w = all[0]->get_weights();
  const Tensor conv = eagle::relu(eagle::nn::conv2d(x, w[0], {{2, 1}, "SAME"}) + w[1]);
  const Tensor want = eagle::nn::avg_pool2d(eagle::nn::max_pool2d(conv),
                                            {{3, 3}, std::array<std::int64_t, 2>{1, 1}, "SAME"});
  const auto got_values = y.to_vector<float>(), want_values = want.to_vector<float>();
  REQUIRE(got_values.size() == want_values.size());
  for (std::size_t i = 0; i < got_values.size(); ++i) {
    CHECK(got_values[i] == Approx(want_values[i]).margin(1e-6));
  }

  CHECK_THROWS_MATCHES(layers::Conv2D(4, 3, {},
                                      [] {
                                        layers::Conv2DOptions o;
                                        o.padding = "full";
                                        return o;
                                      }()),
                       eagle::InvalidArgumentError,
                       Catch::Message("The `padding` argument must be a list/tuple or one of "
                                      "\"valid\", \"same\" (or \"causal\", only for `Conv1D). "
                                      "Received: full"));
  CHECK_THROWS_MATCHES(layers::Conv2D(0, 3), eagle::InvalidArgumentError,
                       Catch::Message("Invalid value for argument `filters`. Expected a strictly "
                                      "positive value. Received filters=0."));
  // The two refused layers above took their names first (conv2d_1, conv2d_2), as Keras's do.
  layers::Conv2D big(2, 5);
  CHECK_THROWS_MATCHES(big(eagle::zeros({1, 3, 3, 1})), eagle::InvalidArgumentError,
                       Catch::Message("One of the dimensions in the output is <= 0 due to "
                                      "downsampling in conv2d_3. Consider increasing the input "
                                      "size. Received input shape (None, 3, 3, 1) which would "
                                      "produce output shape with a zero or negative value in a "
                                      "dimension."));
}

// Keras's values (tests/tools/gen_keras_conv_groups.py prints them, computed by Keras 3 on
// TensorFlow): every input, kernel and output value is a multiple of 1/32, exact in float32.
TEST_CASE("keras: Conv2D with groups=2 gives Keras's kernel shape, parameter count and values") {
  keras::backend::clear_session();
  auto values = [](std::int64_t n, int mul, int mod, float scale) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      v[static_cast<std::size_t>(i)] = static_cast<float>((i * mul) % mod - mod / 2) / scale;
    }
    return v;
  };
  const Tensor x = eagle::constant(values(48, 7, 11, 4), eagle::Shape{1, 3, 4, 4});
  const Tensor kernel = eagle::constant(values(32, 5, 9, 8), eagle::Shape{2, 2, 2, 4});
  const Tensor bias = eagle::constant({0.5f, -0.25f, 0.125f, -1.f});
  const std::vector<float> want = {
      -0.0625,  0.5625,   0.65625, -0.75,    1.4375,  -0.96875, -0.4375, -0.40625,
      -0.15625, 0.59375,  0.875,   -2.125,   0.875,   -0.375,   -0.0625, -0.40625,
      0.78125,  -0.0625,  0.40625, -1.09375, 0.90625, 0.125,    0.34375, -1.09375,
      1.03125,  -1.40625, 0.28125, -1.09375, -0.8125, 0.0,      0.34375, -0.46875,
      1.0,      -1.4375,  0.28125, -0.96875, -0.4375, 0.25,     0.28125, -0.9375,
      0.875,    -0.125,   0.28125, -0.90625, 1.0,     -0.21875, 0.15625, -0.5};
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    layers::Conv2DOptions options;
    options.groups = 2;
    options.padding = "same";
    layers::Conv2D layer(4, 2, {}, options);
    (void)layer(x);
    CHECK(layer.kernel().shape() == eagle::Shape{2, 2, 2, 4});  // (kh, kw, in / groups, filters)
    CHECK(layer.count_params() == 36);
    layer.set_weights({kernel, bias});
    CHECK(layer(x).to_vector<float>() == want);
  }
  // Keras's summary count for a built Sequential: 3 * 3 * (4 / 2) * 6 + 6.
  layers::Conv2DOptions grouped;
  grouped.groups = 2;
  grouped.input_shape = keras::TensorShape{3, 4, 4};
  keras::Sequential model;
  model.add(layers::Conv2D(6, 3, {}, grouped));
  CHECK(model.count_params() == 114);
}

TEST_CASE("keras: Conv2D refuses groups that do not divide, Keras's texts") {
  keras::backend::clear_session();
  layers::Conv2DOptions two;
  two.groups = 2;
  CHECK_THROWS_MATCHES(layers::Conv2D(5, 3, {}, two), eagle::InvalidArgumentError,
                       Catch::Message("The number of filters must be evenly divisible by the "
                                      "number of groups. Received: groups=2, filters=5."));
  layers::Conv2DOptions zero;
  zero.groups = 0;
  CHECK_THROWS_MATCHES(
      layers::Conv2D(4, 3, {}, zero), eagle::InvalidArgumentError,
      Catch::Message("The number of groups must be a positive integer. Received: groups=0."));
  two.input_shape = keras::TensorShape{5, 5, 3};
  keras::Sequential model;
  CHECK_THROWS_MATCHES(model.add(layers::Conv2D(4, 3, {}, two)), eagle::InvalidArgumentError,
                       Catch::Message("The number of input channels must be evenly divisible by "
                                      "the number of groups. Received groups=2, but the input has "
                                      "3 channels (full input shape is (None, 5, 5, 3))."));
}

TEST_CASE(
    "keras: BatchNormalization normalizes by the batch while training, moves its statistics") {
  keras::backend::clear_session();
  // Channel 0: 1, 3 (mean 2, biased variance 1, unbiased 2); channel 1: 2, 6 (4, 4, 8).
  const Tensor x4 = eagle::constant({1.f, 2.f, 3.f, 6.f}, eagle::Shape{2, 1, 1, 2});
  layers::BatchNormalization fused;
  const Tensor y = fused(x4, /*training=*/true);
  const float s0 = 1.f / std::sqrt(1.001f), s1 = 2.f / std::sqrt(4.001f);
  const auto yv = y.to_vector<float>();
  const std::vector<float> want_y = {-s0, -s1, s0, s1};
  for (int i = 0; i < 4; ++i) CHECK(yv[i] == Approx(want_y[i]).epsilon(1e-5));
  // Keras's fused path: the moving variance takes the Bessel-corrected batch variance.
  const auto mm = fused.moving_mean().read_value().to_vector<float>();
  CHECK(mm[0] == Approx(0.02f));
  CHECK(mm[1] == Approx(0.04f));
  const auto mv = fused.moving_variance().read_value().to_vector<float>();
  CHECK(mv[0] == Approx(0.99f + 0.01f * 2));
  CHECK(mv[1] == Approx(0.99f + 0.01f * 8));
  CHECK(fused.weights().size() == 4);
  CHECK(fused.trainable_variables().size() == 2);
  // Inference: the moving statistics.
  const auto yi = fused(x4, false).to_vector<float>();
  CHECK(yi[0] == Approx((1.f - 0.02f) / std::sqrt(mv[0] + 0.001f)).epsilon(1e-5));

  // Rank 2: moments, whose variance is the biased one (Keras 2's non-fused path).
  layers::BatchNormalization plain;
  (void)plain(eagle::constant({1.f, 2.f, 3.f, 6.f}, eagle::Shape{2, 2}), true);
  const auto mv2 = plain.moving_variance().read_value().to_vector<float>();
  CHECK(mv2[0] == Approx(0.99f + 0.01f * 1));
  CHECK(mv2[1] == Approx(0.99f + 0.01f * 4));
  CHECK(plain.name() == "batch_normalization_1");
}
