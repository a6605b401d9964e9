// keras::callbacks::ModelCheckpoint: Keras's checkpoint callback, writing .weights.h5 files.
#include <limits>
#include <string>

#include <fmt/args.h>
#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/callbacks.hpp"
#include "eagle/keras/models.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::keras::callbacks {
namespace {

constexpr std::string_view kWeightsSuffix = ".weights.h5";

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keras: self.filepath.format(epoch=epoch + 1, **logs).
std::string format_filepath(const std::string& filepath, int epoch, const Logs& logs) {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  args.push_back(fmt::arg("epoch", epoch + 1));
  for (const auto& [name, value] : logs.items()) args.push_back(fmt::arg(name.c_str(), value));
  try {
    return fmt::vformat(filepath, args);
  } catch (const fmt::format_error& e) {
    throw InvalidArgumentError(fmt::format(
        "Failed to format this callback filepath: \"{}\". Reason: {}", filepath, e.what()));
  }
}

}  // namespace

ModelCheckpoint::ModelCheckpoint(std::string filepath, ModelCheckpointOptions options)
    : filepath_(std::move(filepath)), options_(std::move(options)) {
  if (!ends_with(filepath_, kWeightsSuffix)) {
    throw InvalidArgumentError(
        fmt::format("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath "
                    "provided must end in `.weights.h5` (Keras weights format). Received: "
                    "filepath={}",
                    filepath_));
  }
  std::string mode = options_.mode;
  if (mode != "auto" && mode != "min" && mode != "max") {
    runtime::emit_log(
        debugging::LogLevel::kWarning,
        fmt::format("ModelCheckpoint mode {} is unknown, fallback to auto mode.", mode));
    mode = "auto";
  }
  greater_is_better_ = mode == "auto" ? options_.monitor.find("acc") != std::string::npos ||
                                            options_.monitor.rfind("fmeasure", 0) == 0
                                      : mode == "max";
}

void ModelCheckpoint::on_train_begin(const Logs& /*logs*/) {
  best_ = greater_is_better_ ? -std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::infinity();
}

void ModelCheckpoint::on_epoch_end(int epoch, const Logs& logs) {
  const std::string filepath = format_filepath(filepath_, epoch, logs);
  if (!options_.save_best_only) {
    if (options_.verbose > 0) {
      io::print_stream() << fmt::format("\nEpoch {}: saving model to {}\n", epoch + 1, filepath);
    }
    model()->save_weights(filepath);
    last_saved_ = filepath;
    return;
  }
  const std::optional<double> current = logs.get(options_.monitor);
  if (!current) {
    runtime::emit_log(
        debugging::LogLevel::kWarning,
        fmt::format("Can save best model only with {} available, skipping.", options_.monitor));
    return;
  }
  const bool improved = greater_is_better_ ? *current > best_ : *current < best_;
  if (!improved) {
    if (options_.verbose > 0) {
      io::print_stream() << fmt::format("\nEpoch {}: {} did not improve from {:.5f}\n", epoch + 1,
                                        options_.monitor, best_);
    }
    return;
  }
  if (options_.verbose > 0) {
    io::print_stream() << fmt::format(
        "\nEpoch {}: {} improved from {:.5f} to {:.5f}, saving model to {}\n", epoch + 1,
        options_.monitor, best_, *current, filepath);
  }
  best_ = *current;
  model()->save_weights(filepath);
  last_saved_ = filepath;
}

}  // namespace eagle::keras::callbacks
