// Keras 2's progress bar (keras.utils.Progbar), printed on io::print_stream().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace eagle::keras::utils {

// `1875/1875 [==============================] - 12s 6ms/step - loss: 0.5012 - accuracy: 0.8203`
// verbose 1: the bar, redrawn in place (at most every `interval` seconds) when the display is
// dynamic, else only its final line; verbose 2: one line at the end, no bar; 0: nothing.
// Values named in stateful_metrics are shown as given; others averaged over the steps.
class Progbar {
 public:
  explicit Progbar(std::int64_t target, int width = 30, int verbose = 1, double interval = 0.05,
                   std::set<std::string> stateful_metrics = {}, std::string unit_name = "step");
  void update(std::int64_t current, const std::vector<std::pair<std::string, double>>& values = {},
              std::optional<bool> finalize = std::nullopt);

 private:
  double estimate_step_duration(std::int64_t current, double now);

  std::int64_t target_;
  int width_;
  int verbose_;
  double interval_;
  std::set<std::string> stateful_metrics_;
  std::string unit_name_;
  bool dynamic_display_;
  std::size_t total_width_ = 0;
  std::int64_t seen_so_far_ = 0;
  std::map<std::string, std::pair<double, double>> values_;
  std::vector<std::string> values_order_;
  double start_;
  double last_update_ = 0;
  double time_at_epoch_start_;
  std::optional<double> time_at_epoch_end_;
  std::optional<double> time_after_first_step_;
};

}  // namespace eagle::keras::utils
