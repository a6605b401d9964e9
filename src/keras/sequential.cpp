// Keras's Sequential model and Keras 2's summary table.
#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/layers.hpp"
#include "eagle/keras/models.hpp"

namespace eagle::keras {

Sequential::Sequential(std::string name) : Model("Sequential", std::move(name)) {}

Sequential::Sequential(const std::vector<std::shared_ptr<Layer>>& layers, std::string name)
    : Sequential(std::move(name)) {
  for (const auto& layer : layers) add(layer);
}

void Sequential::add(std::shared_ptr<Layer> layer) {
  if (!layer) throw InvalidArgumentError("Sequential::add: a null layer");
  if (auto* input = dynamic_cast<layers::InputLayer*>(layer.get())) {
    if (!layers_.empty() || input_shape_) {
      throw InvalidArgumentError(
          "An InputLayer must be the first layer of a Sequential model (Keras only accepts "
          "Input first).");
    }
    input_shape_ = *input->output_shape();
    set_built();
    return;  // Keras keeps the InputLayer out of model.layers
  }
  for (const auto& existing : layers_) {
    if (existing->name() == layer->name()) {
      throw InvalidArgumentError(fmt::format(
          "All layers added to a Sequential model should have unique names. Name \"{}\" is "
          "already the name of a layer in this model. Update the `name` argument to pass a "
          "unique name.",
          layer->name()));
    }
  }
  if (layers_.empty() && !input_shape_ && layer->input_shape()) {
    TensorShape with_batch{std::nullopt};
    with_batch.insert(with_batch.end(), layer->input_shape()->begin(), layer->input_shape()->end());
    input_shape_ = with_batch;
    set_built();
  }
  layers_.push_back(std::move(layer));
  if (input_shape_) {
    // Known input: build the new layer now (Keras does, so summary() works before fit).
    TensorShape shape = *input_shape_;
    for (std::size_t i = 0; i + 1 < layers_.size(); ++i) shape = *layers_[i]->output_shape();
    Layer& last = *layers_.back();
    if (!last.built()) last.build(shape);
    last.set_output_shape(last.compute_output_shape(shape));
  }
}

void Sequential::pop() {
  if (layers_.empty()) throw InvalidArgumentError("There are no layers in the model.");
  layers_.pop_back();
}

void Sequential::build(const TensorShape& input_shape) {
  input_shape_ = input_shape;
  TensorShape shape = input_shape;
  for (const auto& layer : layers_) {
    if (!layer->built()) layer->build(shape);
    shape = layer->compute_output_shape(shape);
    layer->set_output_shape(shape);
  }
  set_built();
}

TensorShape Sequential::compute_output_shape(const TensorShape& input_shape) const {
  TensorShape shape = input_shape;
  for (const auto& layer : layers_) shape = layer->compute_output_shape(shape);
  return shape;
}

Tensor Sequential::call(const Tensor& inputs, bool training) {
  if (!inputs.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  if (!built() || std::any_of(layers_.begin(), layers_.end(),
                              [](const auto& l) { return !l->output_shape(); })) {
    TensorShape shape = shape_of(inputs);
    if (!shape.empty()) shape[0] = std::nullopt;
    if (input_shape_ && input_shape_->size() == shape.size()) shape = *input_shape_;
    build(shape);
  }
  Tensor x = inputs;
  for (const auto& layer : layers_) x = (*layer)(x, training);
  return x;
}

// ---- summary() ----------------------------------------------------------------------------------

namespace {

// Keras 2's print_row: fields cut to their column (wrapped over several lines when longer).
void print_row(std::ostream& out, std::vector<std::string> fields,
               const std::vector<int>& positions) {
  auto any_left = [&] {
    return std::any_of(fields.begin(), fields.end(), [](const auto& f) { return !f.empty(); });
  };
  do {
    std::string line;
    for (std::size_t col = 0; col < fields.size(); ++col) {
      const int start = col > 0 ? positions[col - 1] : 0;
      const int end = positions[col];
      const int space = col != positions.size() - 1 ? 2 : 0;
      int cutoff = end - start - space;
      if (col != positions.size() - 1) cutoff -= 1;
      std::string fit = fields[col].substr(0, static_cast<std::size_t>(std::max(cutoff, 0)));
      // Keras breaks a line at the end of a tuple, list or dict element.
      std::size_t best = std::string::npos;
      for (const char* marker : {"),", "},", "],", "',"}) {
        const std::size_t at = fit.find(marker);
        if (at != std::string::npos) best = std::min(best, at + 2);
      }
      if (best != std::string::npos) {
        cutoff = static_cast<int>(best);
        fit = fit.substr(0, best);
      }
      if (col == 0) line += " ";
      line += fit;
      line += std::string(static_cast<std::size_t>(space), ' ');
      fields[col] = fields[col].size() > static_cast<std::size_t>(std::max(cutoff, 0))
                        ? fields[col].substr(static_cast<std::size_t>(std::max(cutoff, 0)))
                        : "";
      if (static_cast<int>(line.size()) < positions[col]) {
        line += std::string(static_cast<std::size_t>(positions[col]) - line.size(), ' ');
      }
    }
    out << line << "\n";
  } while (any_left());
}

std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace

void Model::summary(int line_length) const {
  if (!built()) {
    throw InvalidArgumentError(
        "This model has not yet been built. Build the model first by calling `build()` or by "
        "calling the model on a batch of data.");
  }
  std::ostream& out = io::print_stream();
  const std::vector<int> positions{static_cast<int>(line_length * 0.45),
                                   static_cast<int>(line_length * 0.85), line_length};
  out << "Model: \"" << name() << "\"\n";
  out << std::string(static_cast<std::size_t>(line_length), '_') << "\n";
  print_row(out, {"Layer (type)", "Output Shape", "Param #"}, positions);
  out << std::string(static_cast<std::size_t>(line_length), '=') << "\n";
  std::int64_t trainable = 0;
  std::int64_t non_trainable = 0;
  for (const auto& layer : layers()) {
    const std::string shape = layer->output_shape() ? to_string(*layer->output_shape()) : "?";
    const std::string params =
        layer->built() ? std::to_string(layer->count_params()) : std::string("0 (unused)");
    print_row(out, {layer->name() + " (" + layer->class_name() + ")", shape, params}, positions);
    out << std::string(static_cast<std::size_t>(line_length), ' ') << "\n";
    for (const Variable& v : layer->trainable_variables()) trainable += v.shape().num_elements();
    for (const Variable& v : layer->non_trainable_variables()) {
      non_trainable += v.shape().num_elements();
    }
  }
  out << std::string(static_cast<std::size_t>(line_length), '=') << "\n";
  out << "Total params: " << with_commas(trainable + non_trainable) << "\n";
  out << "Trainable params: " << with_commas(trainable) << "\n";
  out << "Non-trainable params: " << with_commas(non_trainable) << "\n";
  out << std::string(static_cast<std::size_t>(line_length), '_') << "\n" << std::flush;
}

}  // namespace eagle::keras
