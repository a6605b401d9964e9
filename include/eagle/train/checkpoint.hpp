// eagle::train::Checkpoint and CheckpointManager: TensorFlow 2's object-based checkpoints of
// variables, Keras models and optimizers (docs/guide.md, "Checkpoints"; the file format is Note
// [Checkpoint format] in src/io/checkpoint_file.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/keras/layer.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/variable.hpp"

namespace eagle::train {

// What a checkpoint tracks under a name: a variable, a Keras layer or model (its weights(), in
// order), or an optimizer (its step counter, learning rate and every slot of a variable the
// checkpoint also tracks). Held by reference: the object must outlive the checkpoint.
class Trackable {
 public:
  Trackable(Variable variable)  // NOLINT: implicit by design
      : variable_(std::move(variable)) {}
  Trackable(keras::Layer& layer) : layer_(&layer) {}  // NOLINT: implicit by design
  template <class L, class = std::enable_if_t<std::is_base_of_v<keras::Layer, L>>>
  Trackable(const std::shared_ptr<L>& layer) : layer_(layer.get()) {}  // NOLINT: implicit
  template <class L, class = std::enable_if_t<std::is_base_of_v<keras::Layer, L>>>
  Trackable(const std::unique_ptr<L>& layer) : layer_(layer.get()) {}  // NOLINT: implicit
  Trackable(optimizers::Optimizer& optimizer)                          // NOLINT: implicit by design
      : optimizer_(&optimizer) {}
  template <class O, class = std::enable_if_t<std::is_base_of_v<optimizers::Optimizer, O>>,
            class = void>
  Trackable(const std::shared_ptr<O>& optimizer)  // NOLINT: implicit by design
      : optimizer_(optimizer.get()), shared_optimizer_(optimizer), from_shared_(true) {}
  template <class O, class = std::enable_if_t<std::is_base_of_v<optimizers::Optimizer, O>>,
            class = void>
  Trackable(const std::unique_ptr<O>& optimizer)  // NOLINT: implicit by design
      : optimizer_(optimizer.get()) {}

  const Variable& variable() const { return variable_; }
  keras::Layer* layer() const { return layer_; }
  optimizers::Optimizer* optimizer() const { return optimizer_; }
  // The optimizer as a deferred restoration reaches it later: through a weak reference when it
  // was given as a shared_ptr (null once it is gone), else the object itself, which must then
  // outlive the restoration.
  std::function<std::shared_ptr<optimizers::Optimizer>()> optimizer_later() const {
    if (from_shared_) return [weak = shared_optimizer_] { return weak.lock(); };
    return [raw = optimizer_] {
      return std::shared_ptr<optimizers::Optimizer>(std::shared_ptr<void>(), raw);  // not owning
    };
  }

 private:
  Variable variable_;
  keras::Layer* layer_ = nullptr;
  optimizers::Optimizer* optimizer_ = nullptr;
  std::weak_ptr<optimizers::Optimizer> shared_optimizer_;
  bool from_shared_ = false;
};

// What restore() matched (TensorFlow's CheckpointLoadStatus).
class CheckpointLoadStatus {
 public:
  // FailedPreconditionError unless every value in the checkpoint went to a tracked object and
  // every tracked variable got a value, deferred ones included (TensorFlow's text begins
  // "Unresolved object in checkpoint").
  const CheckpointLoadStatus& assert_consumed() const;
  // FailedPreconditionError unless every variable that exists now got a value (values for
  // objects not built yet may wait).
  const CheckpointLoadStatus& assert_existing_objects_matched() const;
  // Accepts a partial restore (TensorFlow's expect_partial; eagle warns about nothing anyway).
  const CheckpointLoadStatus& expect_partial() const { return *this; }

  // Keys of the checkpoint no tracked object took; tracked variables the checkpoint had no value
  // for; values waiting for their objects (a model not built, slots not made yet).
  std::vector<std::string> unused_keys;
  std::vector<std::string> missing;
  std::vector<std::string> deferred;
};

class Checkpoint {
 public:
  //   eagle::train::Checkpoint checkpoint({{"model", model}, {"optimizer", optimizer}});
  Checkpoint(std::map<std::string, Trackable> objects);  // NOLINT: implicit by design

  // Writes "<file_prefix>-<n>" with n the saves so far plus one (save_counter, itself saved),
  // and records it in the directory's "checkpoint" file (TensorFlow's), which
  // latest_checkpoint() reads. Returns the path restore() takes.
  std::string save(const std::string& file_prefix);
  // Writes exactly file_prefix, touching neither save_counter nor the "checkpoint" file.
  std::string write(const std::string& file_prefix) const;
  // Restores every tracked object from the checkpoint at save_path (what save() returned):
  // values of another shape or dtype are InvalidArgumentError before anything changes; a
  // missing checkpoint NotFoundError; a truncated or damaged one DataLossError. Values for a
  // model not built yet, or for optimizer slots not made yet, are kept and given to them when
  // they are (the status lists them as deferred).
  CheckpointLoadStatus restore(const std::string& save_path);
  // restore() without save_counter (TensorFlow's read()).
  CheckpointLoadStatus read(const std::string& save_path);

  std::int64_t save_counter() const { return save_counter_; }

 private:
  friend class CheckpointManager;  // advances save_counter as TensorFlow's manager does
  CheckpointLoadStatus load(const std::string& save_path, bool with_counter);

  std::map<std::string, Trackable> objects_;
  std::int64_t save_counter_ = 0;
};

// The newest checkpoint recorded in directory's "checkpoint" file whose data file exists, as
// save() returned it; std::nullopt when there is none (TensorFlow's tf.train.latest_checkpoint).
std::optional<std::string> latest_checkpoint(const std::string& directory);

// Numbered checkpoints in a directory, the oldest deleted beyond max_to_keep (TensorFlow's
// tf.train.CheckpointManager). It picks up the checkpoints the directory already records.
class CheckpointManager {
 public:
  CheckpointManager(Checkpoint& checkpoint, std::string directory,
                    std::optional<int> max_to_keep = 5, std::string checkpoint_name = "ckpt");
  // Saves "<directory>/<checkpoint_name>-<n>" (n: checkpoint_number, else the checkpoint's
  // save_counter + 1), then deletes the oldest beyond max_to_keep. Returns the path.
  std::string save(std::optional<std::int64_t> checkpoint_number = std::nullopt);
  std::optional<std::string> latest_checkpoint() const;
  // The kept checkpoints, oldest first.
  const std::vector<std::string>& checkpoints() const { return checkpoints_; }
  const std::string& directory() const { return directory_; }
  // Restores the latest checkpoint if there is one; std::nullopt (nothing restored) otherwise.
  std::optional<CheckpointLoadStatus> restore_or_initialize();

 private:
  Checkpoint& checkpoint_;
  std::string directory_;
  std::optional<int> max_to_keep_;
  std::string checkpoint_name_;
  std::vector<std::string> checkpoints_;
};

}  // namespace eagle::train
