// eagle::keras training: losses and a fixed-weight MLP's loss, SGD and Adam steps and two epochs
// of fit against Keras (tests/fixtures/keras_training.json, tests/tools/gen_keras_fixture.py),
// Keras 2's summary table and progress bar to the character, compile strings, errors with
// Keras's texts, validation_split, EarlyStopping, and fit learning a synthetic problem. On the
// CPU and a simulated GPU.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/eagle.hpp"
#include "keras_test_support.hpp"

namespace {

using eagle::Tensor;
using eagle_test::floats;
using eagle_test::ints;
using eagle_test::Json;
using eagle_test::KerasPrintCapture;
using eagle_test::tensor;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace losses = eagle::keras::losses;

const Json& fixture() {
  static const Json f = Json::parse_file(EAGLE_FIXTURE_DIR "/keras_training.json");
  return f;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(tol).epsilon(tol));
  }
}

keras::FitOptions quiet() {
  keras::FitOptions o;
  o.verbose = 0;
  return o;
}

// The fixture's MLP: Input(3) -> Dense(5, relu) -> Dense(3, softmax), Keras's weights.
std::unique_ptr<keras::Sequential> fixture_mlp() {
  const Json& t = fixture()["training"];
  auto model = std::make_unique<keras::Sequential>();
  model->add(layers::Input({3}));
  model->add(layers::Dense(5, "relu"));
  model->add(layers::Dense(3, "softmax"));
  std::vector<Tensor> weights;
  for (std::size_t i = 0; i < 4; ++i) {
    std::vector<std::int64_t> dims;
    for (const Json& d : t["weight_shapes"].array()[i].array()) dims.push_back(d.integer());
    weights.push_back(tensor(t["initial_weights"].array()[i], eagle::Shape(dims)));
  }
  model->set_weights(weights);
  return model;
}

void check_weights(const keras::Model& model, const Json& expected, double tol) {
  const auto weights = model.get_weights();
  REQUIRE(weights.size() == expected.array().size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    INFO("weight " << i);
    check_close(weights[i].to_vector<float>(), floats(expected.array()[i]), tol);
  }
}

}  // namespace

TEST_CASE("keras losses: Keras's values, the softmax and sigmoid logits path and the clip") {
  const Json& l = fixture()["losses"];
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    const Tensor logits = tensor(l["logits"], {4, 3});
    const Tensor labels = eagle::constant(ints(l["labels"]));
    const Tensor probs = tensor(l["probs"], {4, 3});
    const Tensor onehot =
        eagle::cast(eagle::equal(eagle::expand_dims(labels, 1), eagle::range(3)), eagle::kFloat32);
    auto value = [](const Tensor& t) { return static_cast<double>(t.item<float>()); };
    const double tol = 1e-5;

    CHECK(value(losses::SparseCategoricalCrossentropy(true)(labels, logits)) ==
          Approx(l["scce_logits"].number()).epsilon(tol));
    CHECK(value(losses::SparseCategoricalCrossentropy()(labels, probs)) ==
          Approx(l["scce_probs"].number()).epsilon(tol));
    // A softmax's output: computed from its logits, as Keras does.
    const Tensor softmax_out = keras::activations::softmax(logits);
    CHECK(value(losses::SparseCategoricalCrossentropy()(labels, softmax_out)) ==
          Approx(l["scce_softmax"].number()).epsilon(tol));
    // Labels of shape (N, 1) are accepted too.
    CHECK(
        value(losses::SparseCategoricalCrossentropy(true)(eagle::expand_dims(labels, 1), logits)) ==
        Approx(l["scce_logits"].number()).epsilon(tol));
    CHECK(value(losses::CategoricalCrossentropy(true)(onehot, logits)) ==
          Approx(l["cce_logits"].number()).epsilon(tol));
    CHECK(value(losses::CategoricalCrossentropy()(onehot, tensor(l["unnormalized"], {4, 3}))) ==
          Approx(l["cce_unnormalized"].number()).epsilon(tol));
    CHECK(value(losses::CategoricalCrossentropy()(onehot, softmax_out)) ==
          Approx(l["cce_softmax"].number()).epsilon(tol));
    const Tensor bin_true = tensor(l["bin_true"], {4, 2});
    const Tensor bin_logits = tensor(l["bin_logits"], {4, 2});
    CHECK(value(losses::BinaryCrossentropy(true)(bin_true, bin_logits)) ==
          Approx(l["bce_logits"].number()).epsilon(tol));
    CHECK(value(losses::BinaryCrossentropy()(bin_true, keras::activations::sigmoid(bin_logits))) ==
          Approx(l["bce_sigmoid"].number()).epsilon(tol));
    CHECK(value(losses::BinaryCrossentropy()(bin_true, tensor(l["bin_prob"], {4, 2}))) ==
          Approx(l["bce_probs_keras2"].number()).epsilon(tol));
    const Tensor reg_true = tensor(l["reg_true"], {4, 2});
    const Tensor reg_pred = tensor(l["reg_pred"], {4, 2});
    CHECK(value(losses::get("mse")->operator()(reg_true, reg_pred)) ==
          Approx(l["mse"].number()).epsilon(tol));
    CHECK(value(losses::get("mae")->operator()(reg_true, reg_pred)) ==
          Approx(l["mae"].number()).epsilon(tol));
  }
}

TEST_CASE("keras losses: Keras 3's reductions, sample weights, and the replicas' share") {
  // Per-sample squared errors 1, 4, 9, 16.
  const Tensor y_true = eagle::constant({0.f, 0.f, 0.f, 0.f}, {4, 1});
  const Tensor y_pred = eagle::constant({1.f, 2.f, 3.f, 4.f}, {4, 1});
  auto vec = [](const Tensor& t) { return t.to_vector<float>(); };
  CHECK(losses::MeanSquaredError()(y_true, y_pred).item<float>() == 7.5f);
  CHECK(losses::MeanSquaredError("mean")(y_true, y_pred).item<float>() == 7.5f);
  CHECK(losses::MeanSquaredError("sum")(y_true, y_pred).item<float>() == 30.0f);
  const Tensor none = losses::MeanSquaredError("none")(y_true, y_pred);
  CHECK(none.shape() == eagle::Shape({4}));
  CHECK(vec(none) == std::vector<float>{1.f, 4.f, 9.f, 16.f});
  CHECK(losses::MeanSquaredError("none").reduction() == "none");
  // Sample weights: one per sample; "mean_with_sample_weight" divides by their sum, the default
  // by the number of values.
  const Tensor weights = eagle::constant({1.f, 0.f, 2.f, 1.f});
  CHECK(losses::MeanSquaredError()(y_true, y_pred, weights).item<float>() == 35.0f / 4);
  CHECK(losses::MeanSquaredError("sum")(y_true, y_pred, weights).item<float>() == 35.0f);
  CHECK(
      losses::MeanSquaredError("mean_with_sample_weight")(y_true, y_pred, weights).item<float>() ==
      35.0f / 4);
  CHECK(losses::MeanSquaredError("mean_with_sample_weight")(
            y_true, y_pred, eagle::constant({0.5f, 0.5f, 0.5f, 0.5f}))
            .item<float>() == 7.5f);  // 15 / 2
  CHECK(vec(losses::MeanSquaredError("none")(y_true, y_pred, weights)) ==
        std::vector<float>{1.f, 0.f, 18.f, 16.f});
  // All-zero weights: divide_no_nan gives 0, not NaN.
  CHECK(losses::MeanSquaredError("mean_with_sample_weight")(y_true, y_pred, eagle::zeros({4}))
            .item<float>() == 0.0f);
  // The crossentropies take the reduction after from_logits.
  const Tensor logits = eagle::constant({2.f, 0.f, 0.f, 3.f}, {2, 2});
  const Tensor labels = eagle::constant({0, 1});
  const Tensor per_sample = losses::SparseCategoricalCrossentropy(true, "none")(labels, logits);
  CHECK(per_sample.shape() == eagle::Shape({2}));
  CHECK(losses::SparseCategoricalCrossentropy(true, "sum")(labels, logits).item<float>() ==
        Approx(vec(per_sample)[0] + vec(per_sample)[1]));
  // Under a strategy of two replicas, the default reduction is a replica's share of the global
  // mean (Keras 3's scale_loss_for_distribution); "sum" and "none" are not scaled.
  {
    const eagle::distribute::MirroredStrategy strategy({"/GPU:0", "/GPU:1"});
    auto scope = strategy.scope();
    CHECK(losses::MeanSquaredError()(y_true, y_pred).item<float>() == 3.75f);
    CHECK(losses::MeanSquaredError("sum")(y_true, y_pred).item<float>() == 30.0f);
  }
  CHECK_THROWS_MATCHES(losses::MeanSquaredError("average"), eagle::InvalidArgumentError,
                       Catch::Message("Invalid value for argument `reduction`. Expected one of "
                                      "{'sum_over_batch_size', 'sum', None, 'none', 'mean', "
                                      "'mean_with_sample_weight'}. Received: reduction=average"));
}

TEST_CASE("keras losses: errors for labels out of range, shapes and unknown names") {
  const Tensor logits = eagle::zeros({3, 10});
  CHECK_THROWS_MATCHES(
      losses::SparseCategoricalCrossentropy(true)(eagle::constant({1, 10, 3}), logits),
      eagle::InvalidArgumentError,
      Catch::Matchers::Message("Received a label value of 10 which is outside the valid range of "
                               "[0, 10).  Label values: 1 10 3 "
                               "[Op:SparseSoftmaxCrossEntropyWithLogits]"));
  CHECK_THROWS_MATCHES(
      losses::SparseCategoricalCrossentropy(true)(eagle::constant({1, 2}), logits),
      eagle::InvalidArgumentError,
      Catch::Matchers::Message("`labels.shape` must equal `logits.shape` except for the last "
                               "dimension. Received: labels.shape=[2] and logits.shape=[3,10]"));
  CHECK_THROWS_MATCHES(
      losses::CategoricalCrossentropy()(eagle::zeros({3, 9}), logits), eagle::InvalidArgumentError,
      Catch::Matchers::Message("Arguments `target` and `output` must have the same shape. "
                               "Received: target.shape=(3, 9), output.shape=(3, 10)"));
  CHECK_THROWS_MATCHES(
      losses::get("hinge_loss"), eagle::InvalidArgumentError,
      Catch::Matchers::Message(
          "Unknown loss function: 'hinge_loss'. Please ensure you are using a "
          "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
          "https://www.tensorflow.org/guide/keras/save_and_serialize"
          "#registering_the_custom_object for details."));
}

TEST_CASE(
    "keras training: the fixed-weight MLP's loss, one SGD step, two Adam steps and two "
    "epochs of fit match Keras") {
  const Json& t = fixture()["training"];
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    const Tensor x = tensor(t["x"], {6, 3});
    const Tensor y = eagle::constant(ints(t["y"]));

    auto model = fixture_mlp();
    check_close(model->predict(x, {32, 0}).to_vector<float>(), floats(t["predict"]), 1e-5);
    model->compile(std::make_shared<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.1}),
                   "sparse_categorical_crossentropy", {"accuracy"});
    const auto evaluated = model->evaluate(x, y, {32, 0});
    REQUIRE(evaluated.size() == 2);
    CHECK(evaluated[0] == Approx(t["loss"].number()).epsilon(1e-5));
    CHECK(evaluated[1] == Approx(t["accuracy"].number()));
    CHECK(model->metrics_names() == std::vector<std::string>{"loss", "accuracy"});
    const auto step = model->train_on_batch(x, y);
    CHECK(step[0] == Approx(t["sgd_step_loss"].number()).epsilon(1e-5));
    check_weights(*model, t["sgd_step_weights"], 1e-5);

    auto adam_model = fixture_mlp();
    adam_model->compile(
        std::make_shared<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01}),
        "sparse_categorical_crossentropy", {"accuracy"});
    adam_model->train_on_batch(x, y);
    adam_model->train_on_batch(x, y);
    check_weights(*adam_model, t["adam_two_steps_weights"], 1e-5);

    auto fit_model = fixture_mlp();
    fit_model->compile(std::make_shared<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.1}),
                       "sparse_categorical_crossentropy", {"accuracy"});
    keras::FitOptions options = quiet();
    options.batch_size = 4;
    options.epochs = 2;
    options.shuffle = false;
    const auto history = fit_model->fit(x, y, options);
    check_close({static_cast<float>(history.history.at("loss")[0]),
                 static_cast<float>(history.history.at("loss")[1])},
                floats(t["fit_loss"]), 1e-5);
    check_close({static_cast<float>(history.history.at("accuracy")[0]),
                 static_cast<float>(history.history.at("accuracy")[1])},
                floats(t["fit_accuracy"]), 1e-6);
    CHECK(history.epoch == std::vector<int>{0, 1});
    check_weights(*fit_model, t["fit_weights"], 1e-5);
  }
}

TEST_CASE("keras Sequential: summary prints Keras 2's table with thousands separators") {
  keras::backend::clear_session();
  KerasPrintCapture out;
  keras::Sequential model;
  model.add(layers::Input({784}));
  model.add(layers::Dense(64, "relu"));
  model.add(layers::Dropout(0.2));
  model.add(layers::Dense(10, "softmax"));
  model.summary();
  CHECK(out.text() ==
        "Model: \"sequential\"\n"
        "_________________________________________________________________\n"
        " Layer (type)                Output Shape              Param #   \n"
        "=================================================================\n"
        " dense (Dense)               (None, 64)                50240     \n"
        "                                                                 \n"
        " dropout (Dropout)           (None, 64)                0         \n"
        "                                                                 \n"
        " dense_1 (Dense)             (None, 10)                650       \n"
        "                                                                 \n"
        "=================================================================\n"
        "Total params: 50,890\n"
        "Trainable params: 50,890\n"
        "Non-trainable params: 0\n"
        "_________________________________________________________________\n");
  CHECK(model.count_params() == 50890);
  CHECK(model.layers().size() == 3);  // the InputLayer is not one of model.layers, as in Keras

  // Built from a shape, a frozen layer's weights counted as non-trainable.
  out.clear();
  keras::Sequential frozen;
  auto hidden = std::make_shared<layers::Dense>(100, "relu");
  frozen.add(std::make_shared<layers::Flatten>());
  frozen.add(hidden);
  frozen.add(layers::Dense(1000, "sigmoid"));
  frozen.build({std::nullopt, 28, 28});
  hidden->set_trainable(false);
  frozen.summary();
  CHECK(out.text() ==
        "Model: \"sequential_1\"\n"
        "_________________________________________________________________\n"
        " Layer (type)                Output Shape              Param #   \n"
        "=================================================================\n"
        " flatten (Flatten)           (None, 784)               0         \n"
        "                                                                 \n"
        " dense_2 (Dense)             (None, 100)               78500     \n"
        "                                                                 \n"
        " dense_3 (Dense)             (None, 1000)              101000    \n"
        "                                                                 \n"
        "=================================================================\n"
        "Total params: 179,500\n"
        "Trainable params: 101,000\n"
        "Non-trainable params: 78,500\n"
        "_________________________________________________________________\n");
  CHECK(frozen.trainable_variables().size() == 2);

  keras::Sequential unbuilt;
  unbuilt.add(layers::Dense(3));
  CHECK_FALSE(unbuilt.built());
  CHECK_THROWS_MATCHES(unbuilt.summary(), eagle::InvalidArgumentError,
                       Catch::Matchers::Message(
                           "This model has not yet been built. Build the model first by calling "
                           "`build()` or by calling the model on a batch of data."));
  unbuilt(eagle::ones({2, 5}));  // building by a call
  CHECK(unbuilt.built());
  CHECK(unbuilt.count_params() == 18);
  CHECK_THROWS_MATCHES(
      unbuilt.add(layers::Dense(3, {},
                                [] {
                                  layers::DenseOptions o;
                                  o.name = "dense_4";
                                  return o;
                                }())),
      eagle::InvalidArgumentError,
      Catch::Matchers::Message(
          "All layers added to a Sequential model should have unique names. Name \"dense_4\" is "
          "already the name of a layer in this model. Update the `name` argument to pass a unique "
          "name."));
}

TEST_CASE("keras Progbar: Keras 2's final line, its averages and the in-place redraws") {
  {
    KerasPrintCapture out;
    keras::utils::Progbar bar(1875, 30, 1, 0.05, {"loss", "accuracy"});
    for (int step = 1; step <= 1875; ++step) {
      out.now = 12.0 * step / 1875;
      bar.update(step, {{"loss", 0.5012}, {"accuracy", 0.8203}});
    }
    CHECK(out.text() ==
          "1875/1875 [==============================] - 12s 6ms/step - loss: 0.5012 - accuracy: "
          "0.8203\n");
  }
  {
    // Values not declared stateful are averaged over the steps they cover; small ones in
    // scientific notation; sub-millisecond steps in us.
    KerasPrintCapture out;
    keras::utils::Progbar bar(3);
    out.now = 0.0001;
    bar.update(1, {{"a", 1.0}, {"b", 0.0001}});
    out.now = 0.0003;
    bar.update(3, {{"a", 4.0}, {"b", 0.0001}});
    CHECK(out.text() ==
          "3/3 [==============================] - 0s 100us/step - a: 3.0000 - b: "
          "1.0000e-04\n");
  }
  {
    KerasPrintCapture out(/*dynamic=*/true);
    keras::utils::Progbar bar(3, 30, 1, 0.05, {"loss"});
    out.now = 1;
    bar.update(1, {{"loss", 0.5}});
    out.now = 2;
    bar.update(2, {{"loss", 0.4}});
    out.now = 3;
    bar.update(3, {{"loss", 0.3}});
    const std::string back(61, '\b');
    CHECK(out.text() == "\r1/3 [=========>....................] - ETA: 2s - loss: 0.5000" + back +
                            "\r2/3 [===================>..........] - ETA: 1s - loss: 0.4000" +
                            back +
                            "\r3/3 [==============================] - 3s 1s/step - loss: "
                            "0.3000\n");
  }
  {
    // verbose 2: one line at the end with the epoch's time.
    KerasPrintCapture out;
    keras::utils::Progbar bar(4, 30, 2, 0.05, {"loss"});
    for (int step = 1; step <= 4; ++step) {
      out.now = 0.5 * step;
      bar.update(step, {{"loss", 0.25}});
    }
    CHECK(out.text() == "4/4 - 2s - loss: 0.2500 - 2s/epoch - 500ms/step\n");
  }
}

TEST_CASE("keras fit: prints Epoch lines and Keras 2's bars with the metrics and val_ metrics") {
  keras::backend::clear_session();
  const Json& t = fixture()["training"];
  const Tensor x = tensor(t["x"], {6, 3});
  const Tensor y = eagle::constant(ints(t["y"]));
  KerasPrintCapture out;
  // Each batch takes 6 ms on the mocked clock.
  struct Tick : keras::callbacks::Callback {
    explicit Tick(KerasPrintCapture& c) : capture(c) {}
    void on_train_batch_begin(std::int64_t, const keras::Logs&) override { capture.now += 0.006; }
    KerasPrintCapture& capture;
  };
  auto model = fixture_mlp();
  model->compile("sgd", "sparse_categorical_crossentropy", {"accuracy"});
  keras::FitOptions options;
  options.batch_size = 4;
  options.epochs = 2;
  options.shuffle = false;
  options.validation_data = std::make_pair(x, y);
  options.callbacks = {std::make_shared<Tick>(out)};
  const auto history = model->fit(x, y, options);
  const auto& h = history.history;
  REQUIRE(h.size() == 4);
  std::string expected;
  for (int e = 0; e < 2; ++e) {
    expected += fmt::format(
        "Epoch {}/2\n2/2 [==============================] - 0s 6ms/step - loss: {:.4f} - accuracy: "
        "{:.4f} - val_loss: {:.4f} - val_accuracy: {:.4f}\n",
        e + 1, h.at("loss")[e], h.at("accuracy")[e], h.at("val_loss")[e], h.at("val_accuracy")[e]);
  }
  CHECK(out.text() == expected);

  // One epoch: no Epoch line. evaluate prints one bar and predict a bar without metrics.
  out.clear();
  keras::FitOptions one;
  one.batch_size = 4;
  one.shuffle = false;
  model->fit(x, y, one);
  CHECK(out.text().rfind("2/2 [==============================] - 0s 0s/step - loss: ", 0) == 0);
  out.clear();
  const auto result = model->evaluate(x, y, {2, 1});
  CHECK(out.text() == fmt::format("3/3 [==============================] - 0s 0s/step - loss: "
                                  "{:.4f} - accuracy: {:.4f}\n",
                                  result[0], result[1]));
  out.clear();
  const Tensor predicted = model->predict(x, {4, 1});
  CHECK(predicted.shape() == eagle::Shape{6, 3});
  CHECK(out.text() == "2/2 [==============================] - 0s 0s/step\n");
}

TEST_CASE("keras compile: Keras's strings and objects, unknown names refused") {
  keras::backend::clear_session();
  keras::Sequential model;
  model.add(layers::Input({2}));
  model.add(layers::Dense(1));
  for (const char* name : {"adam", "Adam", "sgd", "SGD", "rmsprop", "RMSprop", "adagrad"}) {
    model.compile(name, "mse");
    CHECK(model.optimizer() != nullptr);
  }
  model.compile("adam", "mse");
  CHECK(model.optimizer()->learning_rate() == Approx(0.001));
  model.compile("sgd", "mean_absolute_error", {"mse", "mae"});
  CHECK(model.loss()->name() == "mean_absolute_error");
  model.compile("sgd", losses::BinaryCrossentropy(true), {"accuracy"});
  CHECK(model.loss()->name() == "binary_crossentropy");
  const std::string scope_text =
      "'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is "
      "included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize"
      "#registering_the_custom_object for details.";
  // Keras's optimizer identifiers, in any case.
  for (const std::string& name :
       {"AdamW", "adamax", "Nadam", "adadelta", "lion", "Lamb", "RMSprop"}) {
    model.compile(name, "mse");
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string got = model.optimizer()->name();
    for (char& c : got) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(got == lower);
  }
  CHECK_THROWS_MATCHES(model.compile("adamw2", "mse"), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("Unknown optimizer: 'adamw2" + scope_text));
  CHECK_THROWS_MATCHES(
      model.compile("adam", "mse", {"accuracyy"}), eagle::InvalidArgumentError,
      Catch::Matchers::Message("Unknown metric function: 'accuracyy" + scope_text));
}

TEST_CASE("keras fit: errors before compile, for data of different lengths and a bad split") {
  keras::backend::clear_session();
  keras::Sequential model;
  model.add(layers::Input({3}));
  model.add(layers::Dense(2, "softmax"));
  const Tensor x = eagle::ones({10, 3});
  const Tensor y = eagle::zeros({10}, eagle::kInt32);
  const std::string not_compiled =
      "You must compile your model before training/testing. Use `model.compile(optimizer, "
      "loss)`.";
  CHECK_THROWS_MATCHES(model.fit(x, y, quiet()), eagle::RuntimeError,
                       Catch::Matchers::Message(not_compiled));
  CHECK_THROWS_MATCHES(model.evaluate(x, y, {32, 0}), eagle::RuntimeError,
                       Catch::Matchers::Message(not_compiled));
  CHECK_THROWS_MATCHES(model.train_on_batch(x, y), eagle::RuntimeError,
                       Catch::Matchers::Message(not_compiled));
  model.compile("adam", "sparse_categorical_crossentropy", {"accuracy"});
  CHECK_THROWS_MATCHES(model.fit(x, eagle::zeros({9}, eagle::kInt32), quiet()),
                       eagle::InvalidArgumentError,
                       Catch::Matchers::Message("Data cardinality is ambiguous:\n  x sizes: 10\n  "
                                                "y sizes: 9\nMake sure all arrays contain the same "
                                                "number of samples."));
  CHECK_THROWS_MATCHES(model.fit(eagle::ones({10, 4}), y, quiet()), eagle::InvalidArgumentError,
                       Catch::Matchers::Message(
                           "Input 0 of layer \"dense\" is incompatible with the layer: expected "
                           "axis -1 of input shape to have value 3, but received input with "
                           "shape (10, 4)"));
  keras::FitOptions split = quiet();
  split.validation_split = 0.95;
  CHECK_THROWS_MATCHES(
      model.fit(x, y, split), eagle::InvalidArgumentError,
      Catch::Matchers::Message("Training data contains 10 samples, which is not sufficient to "
                               "split it into a validation and training set as specified by "
                               "`validation_split=0.95`. Either provide more data, or a "
                               "different value for the `validation_split` argument."));
}

TEST_CASE("keras fit: validation_split holds out the last fraction, before shuffling") {
  keras::backend::clear_session();
  keras::Sequential model;
  model.add(layers::Input({1}));
  model.add(layers::Dense(1, {}, [] {
    layers::DenseOptions o;
    o.kernel_initializer = "zeros";
    return o;
  }()));
  // SGD with a zero rate: the weights stay 0, so val_loss is the mean of y^2 over the held-out
  // samples, which tells which ones they were.
  model.compile(std::make_shared<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.0}),
                "mse");
  const Tensor x = eagle::ones({10, 1});
  const Tensor y = eagle::constant({1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 3.f, 5.f}, {10, 1});
  keras::FitOptions options = quiet();
  options.validation_split = 0.2;
  options.seed = 1;
  const auto history = model.fit(x, y, options);
  CHECK(history.history.at("loss")[0] == Approx(1.0));
  CHECK(history.history.at("val_loss")[0] == Approx((9.0 + 25.0) / 2));
}

namespace {
// Records the weights after every batch (the last one: what the last step made).
struct WeightRecorderAtBatch : keras::callbacks::Callback {
  void on_train_batch_end(std::int64_t, const keras::Logs&) override {
    weights = model()->get_weights();
  }
  std::vector<Tensor> weights;
};
}  // namespace

TEST_CASE("keras fit with use_ema: the model ends with the optimizer's moving averages") {
  keras::backend::clear_session();
  keras::Sequential model;
  model.add(layers::Input({1}));
  model.add(layers::Dense(1));
  eagle::optimizers::SGDOptions sgd;
  sgd.learning_rate = 0.1;
  sgd.base.use_ema = true;
  sgd.base.ema_momentum = 0.5;
  auto optimizer = std::make_shared<eagle::optimizers::SGD>(sgd);
  model.compile(optimizer, "mse");
  const Tensor x = eagle::constant({1.f, 2.f, 3.f, 4.f}, {4, 1});
  const Tensor y = eagle::constant({2.f, 4.f, 6.f, 8.f}, {4, 1});
  // The weights the last step made, recorded before fit's end gives the averages.
  auto last = std::make_shared<WeightRecorderAtBatch>();
  keras::FitOptions options = quiet();
  options.epochs = 2;
  options.batch_size = 2;
  options.callbacks = {last};
  model.fit(x, y, options);
  const std::vector<eagle::Variable> variables = model.trainable_variables();
  REQUIRE(variables.size() == 2);
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const eagle::Variable average = optimizer->get_slot(variables[i], "average");
    CHECK(variables[i].read_value().to_vector<float>() == average.read_value().to_vector<float>());
    CHECK(variables[i].read_value().to_vector<float>() != last->weights[i].to_vector<float>());
  }
}

namespace {
// Records the weights at the end of each epoch.
struct WeightRecorder : keras::callbacks::Callback {
  void on_epoch_end(int, const keras::Logs&) override { weights.push_back(model()->get_weights()); }
  std::vector<std::vector<Tensor>> weights;
};
}  // namespace

TEST_CASE("keras EarlyStopping: patience, stop_training, restoring the best epoch's weights") {
  keras::backend::clear_session();
  const Tensor x = eagle::random_normal({64, 2}, 0, 1, eagle::kFloat32, 3);
  const Tensor y = eagle::reduce_sum(x, -1, true);
  auto make = [] {
    auto model = std::make_unique<keras::Sequential>();
    model->add(layers::Input({2}));
    model->add(layers::Dense(1));
    return model;
  };
  {
    // A zero learning rate: the loss never improves after the first epoch.
    auto model = make();
    model->compile(std::make_shared<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.0}),
                   "mse");
    keras::callbacks::EarlyStoppingOptions es;
    es.monitor = "loss";
    es.patience = 2;
    auto stopper = std::make_shared<keras::callbacks::EarlyStopping>(es);
    keras::FitOptions options = quiet();
    options.epochs = 10;
    options.shuffle = false;  // the same batches each epoch: the same loss to the last bit
    options.callbacks = {stopper};
    const auto history = model->fit(x, y, options);
    CHECK(history.epoch == std::vector<int>{0, 1, 2});
    CHECK(stopper->stopped_epoch() == 2);
    CHECK(model->stop_training);
  }
  {
    // Mode max on a falling loss: the first epoch is the best; its weights come back.
    KerasPrintCapture out;
    auto model = make();
    model->compile("sgd", "mse");
    keras::callbacks::EarlyStoppingOptions es;
    es.monitor = "loss";
    es.mode = "max";
    es.patience = 1;
    es.restore_best_weights = true;
    es.verbose = 1;
    auto recorder = std::make_shared<WeightRecorder>();
    keras::FitOptions options = quiet();
    options.epochs = 10;
    options.callbacks = {recorder, std::make_shared<keras::callbacks::EarlyStopping>(es)};
    const auto history = model->fit(x, y, options);
    REQUIRE(history.epoch == std::vector<int>{0, 1});
    CHECK(history.history.at("loss")[1] < history.history.at("loss")[0]);
    const auto final_weights = model->get_weights();
    for (std::size_t i = 0; i < final_weights.size(); ++i) {
      CHECK(final_weights[i].to_vector<float>() == recorder->weights[0][i].to_vector<float>());
      CHECK(final_weights[i].to_vector<float>() != recorder->weights[1][i].to_vector<float>());
    }
    CHECK(out.text() ==
          "Restoring model weights from the end of the best epoch: 1.\nEpoch 2: early stopping\n");
  }
}

TEST_CASE("keras fit: an MLP learns three Gaussian blobs to at least 95% accuracy") {
  keras::backend::clear_session();
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    // 600 points around three centres, labels 0..2.
    const Tensor centres = eagle::constant({{2.f, 0.f}, {-1.f, 1.7f}, {-1.f, -1.7f}});
    const Tensor labels =
        eagle::cast(eagle::floormod(eagle::range(0, 600), eagle::constant(3)), eagle::kInt32);
    const Tensor x = eagle::gather(centres, labels) +
                     eagle::random_normal({600, 2}, 0, 0.5, eagle::kFloat32, 11);
    keras::Sequential model;
    layers::DenseOptions seeded;
    seeded.kernel_initializer = eagle::initializers::glorot_uniform(5);
    model.add(layers::Input({2}));
    model.add(layers::Dense(16, "relu", seeded));
    model.add(layers::Dense(3, "softmax", seeded));
    model.compile("adam", "sparse_categorical_crossentropy", {"accuracy"});
    keras::FitOptions options = quiet();
    options.epochs = 15;
    options.validation_split = 0.2;
    options.seed = 2;
    const auto history = model.fit(x, labels, options);
    CHECK(history.history.at("accuracy").back() >= 0.95);
    CHECK(history.history.at("val_accuracy").back() >= 0.95);
    const auto evaluated = model.evaluate(x, labels, {32, 0});
    CHECK(evaluated[1] >= 0.95);
    CHECK(evaluated[0] < history.history.at("loss").front());
  }
}
