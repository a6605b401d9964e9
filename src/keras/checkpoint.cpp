// eagle::train::Checkpoint and CheckpointManager (eagle/train/checkpoint.hpp). The keys a
// checkpoint holds, under each tracked object's name N:
//   N                                   a variable's value
//   N/weights/<i>                       a layer's or model's weights()[i]
//   N/iteration, N/learning_rate        an optimizer's step counter and learning rate
//   N/slots/<owner key>/<slot>          an optimizer's slot of the variable saved at <owner key>
//   save_counter                        Checkpoint::save's counter
// Positions, not Keras's automatic layer names, identify a model's weights, so a model rebuilt
// in another process (where "dense" may be "dense_3") restores.
#include "eagle/train/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "io/checkpoint_file.hpp"

namespace eagle::train {
namespace {

namespace fs = std::filesystem;
using io::CheckpointEntry;

constexpr const char* kStateFile = "checkpoint";

CheckpointEntry entry_of(const std::string& key, const Tensor& value) {
  CheckpointEntry e{key, value.dtype(), value.shape(), {}};
  if (value.dtype() == kBool) {
    // One byte per element, as the dtype's width says (std::vector<bool> packs bits).
    for (const std::int32_t b : cast(value, kInt32).to_vector<std::int32_t>()) {
      e.bytes.push_back(static_cast<char>(b != 0));
    }
    return e;
  }
  visit_dtype(value.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {
      const std::vector<T> values = value.to_vector<T>();
      e.bytes.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    }
  });
  return e;
}

Tensor tensor_of(const CheckpointEntry& e) {
  return constant_from_buffer(e.bytes.data(), e.shape.num_elements(), e.dtype, e.shape);
}

std::string weight_key(const std::string& name, std::size_t i) {
  return fmt::format("{}/weights/{}", name, i);
}

// Every variable the tracked objects hold, by the key it is saved under (for the optimizers'
// slots: the key of the variable a slot belongs to).
std::map<std::uint64_t, std::string> variable_keys(
    const std::map<std::string, Trackable>& objects) {
  std::map<std::uint64_t, std::string> keys;
  for (const auto& [name, object] : objects) {
    if (object.variable().defined()) keys.emplace(object.variable().id(), name);
    if (object.layer() != nullptr) {
      const std::vector<Variable> weights = object.layer()->weights();
      for (std::size_t i = 0; i < weights.size(); ++i) {
        keys.emplace(weights[i].id(), weight_key(name, i));
      }
    }
  }
  return keys;
}

std::string state_file(const std::string& directory) {
  return (fs::path(directory.empty() ? "." : directory) / kStateFile).string();
}

// TensorFlow's CheckpointState text: model_checkpoint_path and all_model_checkpoint_paths,
// relative to the directory.
void write_state(const std::string& directory, const std::vector<std::string>& paths) {
  std::string text;
  const auto relative = [](const std::string& path) { return fs::path(path).filename().string(); };
  text += fmt::format("model_checkpoint_path: \"{}\"\n", relative(paths.back()));
  for (const std::string& path : paths) {
    text += fmt::format("all_model_checkpoint_paths: \"{}\"\n", relative(path));
  }
  io::write_file_atomically(state_file(directory), text);
}

// The state file's paths (model_checkpoint_path last), made paths in directory.
std::vector<std::string> read_state(const std::string& directory) {
  std::ifstream in(state_file(directory));
  std::vector<std::string> all;
  std::string latest;
  std::string line;
  while (std::getline(in, line)) {
    const auto open = line.find('"');
    const auto close = line.rfind('"');
    if (open == std::string::npos || close <= open) continue;
    const std::string value = line.substr(open + 1, close - open - 1);
    const fs::path path =
        fs::path(value).is_absolute() ? fs::path(value) : fs::path(directory) / value;
    if (line.rfind("model_checkpoint_path:", 0) == 0) latest = path.string();
    if (line.rfind("all_model_checkpoint_paths:", 0) == 0) all.push_back(path.string());
  }
  if (!latest.empty() && (all.empty() || all.back() != latest)) {
    all.erase(std::remove(all.begin(), all.end(), latest), all.end());
    all.push_back(latest);
  }
  return all;
}

bool exists(const std::string& save_path) {
  std::error_code ignored;
  return fs::exists(save_path + io::kCheckpointSuffix, ignored);
}

void check_compatible(const std::string& key, const Tensor& value, const Variable& variable) {
  if (value.shape() != variable.shape() || value.dtype() != variable.dtype()) {
    throw InvalidArgumentError(fmt::format(
        "Received incompatible tensor with shape {} and dtype {} when attempting to restore "
        "variable with shape {} and dtype {} and name {} (checkpoint key '{}')",
        value.shape().to_tuple_string(), dtype_name(value.dtype()),
        variable.shape().to_tuple_string(), dtype_name(variable.dtype()), variable.name(), key));
  }
}

[[noreturn]] void unresolved(const std::string& what, const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += (list.empty() ? "" : ", ") + item;
  throw FailedPreconditionError(fmt::format("{}: {}", what, list));
}

}  // namespace

const CheckpointLoadStatus& CheckpointLoadStatus::assert_consumed() const {
  if (!unused_keys.empty()) {
    unresolved("Unresolved object in checkpoint (values no tracked object took)", unused_keys);
  }
  if (!missing.empty()) unresolved("Tracked variables the checkpoint had no value for", missing);
  if (!deferred.empty()) {
    unresolved("Unresolved object in checkpoint (values still waiting for their objects)",
               deferred);
  }
  return *this;
}

const CheckpointLoadStatus& CheckpointLoadStatus::assert_existing_objects_matched() const {
  if (!missing.empty()) unresolved("Tracked variables the checkpoint had no value for", missing);
  return *this;
}

Checkpoint::Checkpoint(std::map<std::string, Trackable> objects) : objects_(std::move(objects)) {
  for (const auto& [name, object] : objects_) {
    if (name.empty() || name == "save_counter" || name.find('/') != std::string::npos) {
      throw InvalidArgumentError(fmt::format(
          "Checkpoint: '{}' cannot name a tracked object (not empty, no '/', not save_counter)",
          name));
    }
  }
}

std::string Checkpoint::write(const std::string& file_prefix) const {
  std::vector<CheckpointEntry> entries;
  entries.push_back(entry_of("save_counter", constant(save_counter_)));
  const std::map<std::uint64_t, std::string> keys = variable_keys(objects_);
  for (const auto& [name, object] : objects_) {
    if (object.variable().defined()) entries.push_back(entry_of(name, object.variable()));
    if (object.layer() != nullptr) {
      const std::vector<Variable> weights = object.layer()->weights();
      for (std::size_t i = 0; i < weights.size(); ++i) {
        entries.push_back(entry_of(weight_key(name, i), weights[i]));
      }
    }
    if (optimizers::Optimizer* optimizer = object.optimizer()) {
      entries.push_back(entry_of(name + "/iteration", optimizer->iterations_variable()));
      if (optimizer->learning_rate_variable().defined()) {
        entries.push_back(entry_of(name + "/learning_rate", optimizer->learning_rate_variable()));
      }
      for (const auto& [owner, slots] : optimizer->slot_variables()) {
        const auto key = keys.find(owner.id());
        if (key == keys.end()) continue;  // a variable this checkpoint does not hold
        for (const auto& [slot, variable] : slots) {
          entries.push_back(entry_of(fmt::format("{}/slots/{}/{}", name, key->second, slot),
                                     variable.read_value()));
        }
      }
    }
  }
  io::write_checkpoint_file(file_prefix + io::kCheckpointSuffix, std::move(entries));
  return file_prefix;
}

std::string Checkpoint::save(const std::string& file_prefix) {
  ++save_counter_;
  const std::string path = fmt::format("{}-{}", file_prefix, save_counter_);
  try {
    write(path);
  } catch (...) {
    --save_counter_;
    throw;
  }
  write_state(fs::path(path).parent_path().string(), {path});
  return path;
}

CheckpointLoadStatus Checkpoint::restore(const std::string& save_path) {
  return load(save_path, true);
}

CheckpointLoadStatus Checkpoint::read(const std::string& save_path) {
  return load(save_path, false);
}

CheckpointLoadStatus Checkpoint::load(const std::string& save_path, bool with_counter) {
  std::map<std::string, CheckpointEntry> entries;
  for (CheckpointEntry& e : io::read_checkpoint_file(save_path + io::kCheckpointSuffix)) {
    std::string key = e.key;
    entries.emplace(std::move(key), std::move(e));
  }
  std::set<std::string> used;
  CheckpointLoadStatus status;
  // Everything is checked and converted before anything is assigned: a mismatch changes nothing.
  std::vector<std::pair<Variable, Tensor>> assignments;
  // A layer not built yet takes its values when it is built, and then the optimizers' slots of
  // its weights take theirs (TensorFlow restores slots of variables created later alike).
  struct DeferredSlots {
    std::function<std::shared_ptr<optimizers::Optimizer>()> optimizer;
    std::size_t weight;  // index in the layer's weights()
    std::map<std::string, Tensor> values;
  };
  struct DeferredLayer {
    keras::Layer* layer;
    std::vector<Tensor> values;
    std::vector<DeferredSlots> slots;
  };
  std::vector<DeferredLayer> deferred_layers;
  std::map<std::string, std::pair<std::size_t, std::size_t>> deferred_owners;  // key -> layer, i
  std::vector<std::tuple<optimizers::Optimizer*, Variable, std::map<std::string, Tensor>>> slots;
  const auto take = [&](const std::string& key) -> const CheckpointEntry* {
    const auto found = entries.find(key);
    if (found == entries.end()) return nullptr;
    used.insert(key);
    return &found->second;
  };
  // The variables that exist now, by the key they are saved under (slots find their owner here).
  std::map<std::string, Variable> by_key;
  for (const auto& [name, object] : objects_) {
    if (object.variable().defined()) {
      by_key.emplace(name, object.variable());
      if (const CheckpointEntry* e = take(name)) {
        const Tensor value = tensor_of(*e);
        check_compatible(name, value, object.variable());
        assignments.emplace_back(object.variable(), value);
      } else {
        status.missing.push_back(name);
      }
    }
    if (keras::Layer* layer = object.layer()) {
      const std::vector<Variable> weights = layer->weights();
      if (!weights.empty()) {
        for (std::size_t i = 0; i < weights.size(); ++i) {
          const std::string key = weight_key(name, i);
          by_key.emplace(key, weights[i]);
          if (const CheckpointEntry* e = take(key)) {
            const Tensor value = tensor_of(*e);
            check_compatible(key, value, weights[i]);
            assignments.emplace_back(weights[i], value);
          } else {
            status.missing.push_back(key);
          }
        }
      } else {
        // Not built yet: its values wait for build (Layer::restore_when_built).
        std::vector<Tensor> values;
        for (std::size_t i = 0; const CheckpointEntry* e = take(weight_key(name, i)); ++i) {
          values.push_back(tensor_of(*e));
          status.deferred.push_back(weight_key(name, i));
          deferred_owners.emplace(weight_key(name, i), std::make_pair(deferred_layers.size(), i));
        }
        if (!values.empty()) deferred_layers.push_back(DeferredLayer{layer, std::move(values), {}});
      }
    }
  }
  for (const auto& [name, object] : objects_) {
    optimizers::Optimizer* optimizer = object.optimizer();
    if (optimizer == nullptr) continue;
    if (const CheckpointEntry* e = take(name + "/iteration")) {
      const Tensor value = tensor_of(*e);
      check_compatible(name + "/iteration", value, optimizer->iterations_variable());
      assignments.emplace_back(optimizer->iterations_variable(), value);
    } else {
      status.missing.push_back(name + "/iteration");
    }
    if (optimizer->learning_rate_variable().defined()) {
      if (const CheckpointEntry* e = take(name + "/learning_rate")) {
        const Tensor value = tensor_of(*e);
        check_compatible(name + "/learning_rate", value, optimizer->learning_rate_variable());
        assignments.emplace_back(optimizer->learning_rate_variable(), value);
      }
    }
    // Slots: "<name>/slots/<owner key>/<slot>", the owner key itself holding '/'.
    const std::string prefix = name + "/slots/";
    std::map<std::string, std::map<std::string, Tensor>> by_owner;
    std::map<std::string, std::map<std::string, Tensor>> by_deferred_owner;
    for (const auto& [key, e] : entries) {
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string rest = key.substr(prefix.size());
      const auto slash = rest.rfind('/');
      if (slash == std::string::npos) continue;
      const std::string owner = rest.substr(0, slash);
      if (by_key.count(owner) != 0) {
        by_owner[owner][rest.substr(slash + 1)] = tensor_of(e);
      } else if (deferred_owners.count(owner) != 0) {
        by_deferred_owner[owner][rest.substr(slash + 1)] = tensor_of(e);
        status.deferred.push_back(key);
      } else {
        continue;  // no tracked variable has this key: unused
      }
      used.insert(key);
    }
    for (auto& [owner, values] : by_deferred_owner) {
      const auto [layer_index, weight] = deferred_owners.at(owner);
      deferred_layers[layer_index].slots.push_back(
          DeferredSlots{object.optimizer_later(), weight, std::move(values)});
    }
    for (auto& [owner, values] : by_owner) {
      const Variable& variable = by_key.at(owner);
      for (const auto& [slot, value] : values) {
        if (value.shape() != variable.shape() || value.dtype() != variable.dtype()) {
          check_compatible(prefix + owner + "/" + slot, value, variable);
        }
      }
      slots.emplace_back(optimizer, variable, std::move(values));
    }
  }
  if (with_counter) {
    if (const CheckpointEntry* e = take("save_counter")) {
      save_counter_ = tensor_of(*e).item<std::int64_t>();
    }
  } else {
    used.insert("save_counter");
  }
  for (const auto& [key, e] : entries) {
    if (used.count(key) == 0) status.unused_keys.push_back(key);
  }
  for (const auto& [variable, value] : assignments) variable.assign(value);
  for (DeferredLayer& deferred : deferred_layers) {
    std::function<void(const std::vector<Variable>&)> then;
    if (!deferred.slots.empty()) {
      then = [slots = std::move(deferred.slots)](const std::vector<Variable>& weights) {
        for (const DeferredSlots& s : slots) {
          const std::shared_ptr<optimizers::Optimizer> optimizer = s.optimizer();
          if (optimizer && s.weight < weights.size()) {
            optimizer->restore_slots(weights[s.weight], s.values);
          }
        }
      };
    }
    deferred.layer->restore_when_built(std::move(deferred.values), std::move(then));
  }
  for (auto& [optimizer, variable, values] : slots) optimizer->restore_slots(variable, values);
  // Layers restored now, optimizer slots restored now: no longer deferred.
  status.deferred.erase(
      std::remove_if(status.deferred.begin(), status.deferred.end(),
                     [&](const std::string& key) {
                       for (const auto& [name, object] : objects_) {
                         if (object.layer() != nullptr && key.rfind(name + "/weights/", 0) == 0) {
                           return !object.layer()->pending_restore();
                         }
                       }
                       return false;
                     }),
      status.deferred.end());
  return status;
}

std::optional<std::string> latest_checkpoint(const std::string& directory) {
  const std::vector<std::string> paths = read_state(directory);
  if (paths.empty() || !exists(paths.back())) return std::nullopt;
  return paths.back();
}

CheckpointManager::CheckpointManager(Checkpoint& checkpoint, std::string directory,
                                     std::optional<int> max_to_keep, std::string checkpoint_name)
    : checkpoint_(checkpoint),
      directory_(std::move(directory)),
      max_to_keep_(max_to_keep),
      checkpoint_name_(std::move(checkpoint_name)) {
  if (max_to_keep_ && *max_to_keep_ <= 0) {
    throw InvalidArgumentError(fmt::format(
        "CheckpointManager: max_to_keep must be positive or None, got {}", *max_to_keep_));
  }
  for (const std::string& path : read_state(directory_)) {
    if (exists(path)) checkpoints_.push_back(path);
  }
}

std::string CheckpointManager::save(std::optional<std::int64_t> checkpoint_number) {
  // TensorFlow's manager advances save_counter first (the file holds the new count), and names
  // the file by it unless told a number.
  ++checkpoint_.save_counter_;
  const std::int64_t number = checkpoint_number.value_or(checkpoint_.save_counter_);
  const std::string path =
      (fs::path(directory_) / fmt::format("{}-{}", checkpoint_name_, number)).string();
  try {
    checkpoint_.write(path);
  } catch (...) {
    --checkpoint_.save_counter_;
    throw;
  }
  checkpoints_.erase(std::remove(checkpoints_.begin(), checkpoints_.end(), path),
                     checkpoints_.end());
  checkpoints_.push_back(path);
  std::vector<std::string> removed;
  while (max_to_keep_ && checkpoints_.size() > static_cast<std::size_t>(*max_to_keep_)) {
    removed.push_back(checkpoints_.front());
    checkpoints_.erase(checkpoints_.begin());
  }
  // The state names the new checkpoint before the old files go: a crash in between leaves only
  // files the state no longer lists.
  write_state(directory_, checkpoints_);
  for (const std::string& old : removed) {
    std::error_code ignored;
    fs::remove(old + io::kCheckpointSuffix, ignored);
  }
  return path;
}

std::optional<std::string> CheckpointManager::latest_checkpoint() const {
  if (checkpoints_.empty()) return std::nullopt;
  return checkpoints_.back();
}

std::optional<CheckpointLoadStatus> CheckpointManager::restore_or_initialize() {
  const std::optional<std::string> latest = latest_checkpoint();
  if (!latest) return std::nullopt;
  return checkpoint_.restore(*latest);
}

}  // namespace eagle::train
