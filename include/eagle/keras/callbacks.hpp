// Keras's callbacks: hooks into fit/evaluate/predict, History, EarlyStopping.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle::keras {

class Model;

// The `logs` dict of Keras: metric values by name, in the order they were set (the order fit
// prints them: loss, the compiled metrics, then the val_ ones).
class Logs {
 public:
  void set(const std::string& name, double value);
  std::optional<double> get(const std::string& name) const;
  double at(const std::string& name) const;  // InvalidArgumentError when absent
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

namespace callbacks {

// Override the hooks you need. set_model() is called before training; model() is that model.
class Callback {
 public:
  virtual ~Callback() = default;
  virtual void set_model(Model* model) { model_ = model; }
  Model* model() const { return model_; }

  virtual void on_train_begin(const Logs& /*logs*/) {}
  virtual void on_train_end(const Logs& /*logs*/) {}
  virtual void on_epoch_begin(int /*epoch*/, const Logs& /*logs*/) {}
  virtual void on_epoch_end(int /*epoch*/, const Logs& /*logs*/) {}
  // Keras: on_train_batch_* call on_batch_* unless overridden.
  virtual void on_train_batch_begin(std::int64_t batch, const Logs& logs) {
    on_batch_begin(batch, logs);
  }
  virtual void on_train_batch_end(std::int64_t batch, const Logs& logs) {
    on_batch_end(batch, logs);
  }
  virtual void on_batch_begin(std::int64_t /*batch*/, const Logs& /*logs*/) {}
  virtual void on_batch_end(std::int64_t /*batch*/, const Logs& /*logs*/) {}
  virtual void on_test_begin(const Logs& /*logs*/) {}
  virtual void on_test_end(const Logs& /*logs*/) {}
  virtual void on_test_batch_end(std::int64_t /*batch*/, const Logs& /*logs*/) {}
  virtual void on_predict_begin(const Logs& /*logs*/) {}
  virtual void on_predict_end(const Logs& /*logs*/) {}
  virtual void on_predict_batch_end(std::int64_t /*batch*/, const Logs& /*logs*/) {}

 private:
  Model* model_ = nullptr;
};

// What fit() returns: history["loss"][epoch], and the epochs run.
class History : public Callback {
 public:
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  std::map<std::string, std::vector<double>> history;
  std::vector<int> epoch;
};

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0;
  int patience = 0;
  int verbose = 0;
  std::string mode = "auto";  // "min", "max", or "auto" (max for names ending in acc/accuracy)
  std::optional<double> baseline;
  bool restore_best_weights = false;
  int start_from_epoch = 0;
};
// Keras's EarlyStopping: stops training once `monitor` has not improved for `patience` epochs,
// optionally restoring the weights of the best epoch.
class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  // The epoch (0-based) training stopped after, 0 if it did not stop early.
  int stopped_epoch() const { return stopped_epoch_; }
  int best_epoch() const { return best_epoch_; }
  double best() const { return best_; }

 private:
  bool is_improvement(double value, double reference) const;
  EarlyStoppingOptions options_;
  bool greater_is_better_ = false;
  int wait_ = 0;
  int stopped_epoch_ = 0;
  int best_epoch_ = 0;
  double best_ = 0;
  std::optional<std::vector<Tensor>> best_weights_;
};

struct ModelCheckpointOptions {
  std::string monitor = "val_loss";
  int verbose = 0;
  bool save_best_only = false;
  std::string mode = "auto";  // "min", "max", or "auto" (max for names ending in acc/accuracy)
};
// Keras's ModelCheckpoint with save_weights_only: after each epoch, model.save_weights(filepath)
// where `filepath` may name the epoch and the logs (`"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"`,
// Python's format syntax); with save_best_only, only when `monitor` improved. The path must end
// in `.weights.h5` (Keras 3's rule and text).
class ModelCheckpoint : public Callback {
 public:
  explicit ModelCheckpoint(std::string filepath, ModelCheckpointOptions options = {});
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  double best() const { return best_; }
  // The file written (or kept) last, "" before any.
  const std::string& last_saved() const { return last_saved_; }

 private:
  std::string filepath_;
  ModelCheckpointOptions options_;
  bool greater_is_better_ = false;
  double best_ = 0;
  std::string last_saved_;
};

}  // namespace callbacks
}  // namespace eagle::keras
