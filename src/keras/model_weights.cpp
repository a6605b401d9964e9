// Model::save_weights / load_weights: the model's layers in Keras 3's .weights.h5 layout, through
// io/keras_weights_file (Note [Keras 3 weights layout]).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/models.hpp"
#include "eagle/ops.hpp"
#include "eagle/optimizers.hpp"
#include "keras/model_weights.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::keras {
namespace {

// "dense/kernel:0" -> "kernel": the names Keras's loading errors list.
std::string short_name(const std::string& variable_name) {
  std::string s = variable_name.substr(0, variable_name.rfind(':'));
  const auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// Each layer's group in the file. Keras 3 (saving_lib._save_container_state) names the items of a
// model's layer list by class, counted within the model ("layers/dense", "layers/dense_1"), not by
// the layers' own names: a model built after another (dense_2, dense_3) reads the same file.
std::vector<std::string> layer_paths(const std::vector<std::shared_ptr<Layer>>& layers) {
  std::map<std::string, int> used;
  std::vector<std::string> paths;
  for (const auto& layer : layers) {
    const std::string base = backend::to_snake_case(layer->keras3_class_name());
    const auto [it, first] = used.try_emplace(base, 0);
    if (!first) ++it->second;
    paths.push_back("layers/" + (first ? base : fmt::format("{}_{}", base, it->second)));
  }
  return paths;
}

}  // namespace

namespace detail {
namespace {

// One group of the weights file, and the layer whose weights it holds: a model's layers nest below
// its own group ("layers/sequential/layers/dense"), as Keras 3 saves a model used as a layer.
struct WeightGroup {
  std::string path;
  std::string layer_name;
  std::shared_ptr<Layer> leaf;  // the layer whose weights the group holds; null for a model's
};

void collect_groups(const Model& model, const std::string& prefix, std::vector<WeightGroup>& out) {
  const auto all = model.layers();
  const std::vector<std::string> paths = layer_paths(all);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string path = prefix + paths[i];
    if (const auto* inner = dynamic_cast<const Model*>(all[i].get())) {
      out.push_back(WeightGroup{path, inner->name(), nullptr});
      collect_groups(*inner, path + "/", out);
    } else {
      out.push_back(WeightGroup{path, all[i]->name(), all[i]});
    }
  }
}

// The optimizer's group: Keras 3 saves the compiled model's `optimizer` attribute at "optimizer",
// its variables by their index in optimizer.variables (saving_lib, Optimizer.save_own_variables).
constexpr const char* kOptimizerPath = "optimizer";

std::vector<WeightGroup> groups_of(const Model& model) {
  std::vector<WeightGroup> groups;
  collect_groups(model, "", groups);
  groups.push_back(WeightGroup{"", model.name(), nullptr});  // the model's own /vars
  return groups;
}

// What the file's optimizer group assigns to the compiled model's optimizer, checked. Keras 3
// (Optimizer.load_own_variables) assigns the saved variables by index when the counts agree and
// otherwise warns and skips them; a file without the group counts as 0 variables. Unlike Keras,
// an optimizer not built yet is first built over the model's trainable variables, as fit would
// build it, so that a state saved after training loads before the first step (docs/guide.md,
// "Keras weights files (.weights.h5)").
std::vector<std::pair<Variable, Tensor>> optimizer_assignments(
    const Model& model, const std::vector<eagle::io::LayerWeights>& loaded,
    const std::string& filename) {
  const auto& optimizer = model.optimizer();
  if (!optimizer) return {};
  const auto it = std::find_if(loaded.begin(), loaded.end(), [](const eagle::io::LayerWeights& l) {
    return l.path == kOptimizerPath;
  });
  const std::size_t saved = it == loaded.end() ? 0 : it->weights.size();
  if (saved > optimizer->variables().size() && !optimizer->built()) {
    optimizer->build(model.trainable_variables());
  }
  const std::vector<Variable> variables = optimizer->variables();
  if (saved != variables.size()) {
    runtime::emit_log(
        debugging::LogLevel::kWarning,
        fmt::format("Skipping variable loading for optimizer '{}', because it has {} "
                    "variables whereas the saved optimizer has {} variables.",
                    backend::to_snake_case(optimizer->name()), variables.size(), saved));
    return {};
  }
  std::vector<std::pair<Variable, Tensor>> out;
  for (std::size_t i = 0; i < saved; ++i) {
    const Tensor& value = it->weights[i];
    const Variable& variable = variables[i];
    if (value.shape() != variable.shape()) {
      throw InvalidArgumentError(fmt::format(
          "{}: /optimizer/vars/{} has shape {}, but the optimizer's variable '{}' has shape {}",
          filename, i, value.shape().to_tuple_string(), variable.name(),
          variable.shape().to_tuple_string()));
    }
    out.emplace_back(variable,
                     value.dtype() == variable.dtype() ? value : cast(value, variable.dtype()));
  }
  return out;
}

}  // namespace

std::vector<eagle::io::LayerWeights> weight_groups(const Model& model) {
  std::vector<eagle::io::LayerWeights> entries;
  for (const WeightGroup& group : groups_of(model)) {
    eagle::io::LayerWeights entry{group.path, {}, group.layer_name};
    if (group.leaf) entry.weights = group.leaf->get_weights();
    entries.push_back(std::move(entry));
  }
  if (const auto& optimizer = model.optimizer()) {
    eagle::io::LayerWeights entry{kOptimizerPath, {}, backend::to_snake_case(optimizer->name())};
    for (const Variable& v : optimizer->variables()) entry.weights.push_back(v.read_value());
    entries.push_back(std::move(entry));
  }
  return entries;
}

void assign_weight_groups(Model& model, const std::vector<eagle::io::LayerWeights>& loaded,
                          const std::string& filename) {
  // Every group is checked before any variable is assigned, so a bad file changes nothing.
  std::vector<WeightGroup> groups = groups_of(model);
  groups.pop_back();  // the model's own group holds nothing to check
  std::vector<std::vector<Tensor>> values;
  for (const WeightGroup& group : groups) {
    std::vector<std::string> names;
    std::vector<Shape> shapes;
    if (group.leaf) {
      for (const Variable& v : group.leaf->weights()) {
        names.push_back(short_name(v.name()));
        shapes.push_back(v.shape());
      }
    }
    values.push_back(eagle::io::expect_layer_weights(filename, loaded, group.path, group.layer_name,
                                                     names, shapes)
                         .weights);
  }
  std::vector<std::pair<Variable, Tensor>> optimizer_state =
      optimizer_assignments(model, loaded, filename);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].leaf && !values[i].empty()) groups[i].leaf->set_weights(values[i]);
  }
  for (const auto& [variable, value] : optimizer_state) variable.assign(value);
}

}  // namespace detail

void Model::save_weights(const std::string& filepath) const {
  eagle::io::save_keras_weights(filepath, detail::weight_groups(*this));
}

void Model::load_weights(const std::string& filepath) {
  if (!built()) {
    throw InvalidArgumentError(fmt::format(
        "Unable to load weights into model \"{}\": it has not yet been built. Build the model "
        "first by calling `build()` or by calling the model on a batch of data.",
        name()));
  }
  detail::assign_weight_groups(*this, eagle::io::load_keras_weights(filepath), filepath);
}

}  // namespace eagle::keras
