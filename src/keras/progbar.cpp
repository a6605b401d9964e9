// Keras 2's Progbar (keras/utils/generic_utils.py), character for character.
#include "eagle/keras/progbar.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"

namespace eagle::keras::utils {
namespace {

// Python's f"{avg:.4f}" above 1e-3 in magnitude, else f"{avg:.4e}".
std::string format_value(double avg) {
  return std::abs(avg) > 1e-3 ? fmt::format(" {:.4f}", avg) : fmt::format(" {:.4e}", avg);
}

std::string format_time(double time_per_unit, const std::string& unit_name) {
  if (time_per_unit >= 1 || time_per_unit == 0) {
    return fmt::format(" {:.0f}s/{}", time_per_unit, unit_name);
  }
  if (time_per_unit >= 1e-3) return fmt::format(" {:.0f}ms/{}", time_per_unit * 1e3, unit_name);
  return fmt::format(" {:.0f}us/{}", time_per_unit * 1e6, unit_name);
}

}  // namespace

Progbar::Progbar(std::int64_t target, int width, int verbose, double interval,
                 std::set<std::string> stateful_metrics, std::string unit_name)
    : target_(target),
      width_(width),
      verbose_(verbose),
      interval_(interval),
      stateful_metrics_(std::move(stateful_metrics)),
      unit_name_(std::move(unit_name)),
      dynamic_display_(io::dynamic_display()),
      start_(io::now()),
      time_at_epoch_start_(start_) {
  if (target_ <= 0) {
    throw InvalidArgumentError(fmt::format("Progbar needs a positive target, got {}", target_));
  }
}

double Progbar::estimate_step_duration(std::int64_t current, double now) {
  if (current == 0) return 0;
  double time_per_unit;
  if (time_after_first_step_ && current > 1) {
    time_per_unit = (now - *time_after_first_step_) / static_cast<double>(current - 1);
  } else {
    time_per_unit = (now - start_) / static_cast<double>(current);
  }
  if (current == 1) time_after_first_step_ = now;
  return time_per_unit;
}

void Progbar::update(std::int64_t current,
                     const std::vector<std::pair<std::string, double>>& values,
                     std::optional<bool> finalize_arg) {
  const bool finalize = finalize_arg ? *finalize_arg : current >= target_;
  for (const auto& [name, value] : values) {
    if (std::find(values_order_.begin(), values_order_.end(), name) == values_order_.end()) {
      values_order_.push_back(name);
    }
    if (stateful_metrics_.count(name) == 0) {
      const double base = static_cast<double>(std::max<std::int64_t>(current - seen_so_far_, 1));
      auto it = values_.find(name);
      if (it == values_.end()) {
        values_[name] = {value * base, base};
      } else {
        it->second.first += value * base;
        it->second.second += base;
      }
    } else {
      values_[name] = {value, 1};
    }
  }
  seen_so_far_ = current;

  const double now = io::now();
  std::string info = fmt::format(" - {:.0f}s", now - start_);
  if (current == target_) time_at_epoch_end_ = now;
  std::ostream& out = io::print_stream();
  if (verbose_ == 1) {
    if (!finalize && (!dynamic_display_ || now - last_update_ < interval_)) return;
    std::string message;
    const std::size_t prev_total_width = total_width_;
    // Keras redraws in place on a terminal (backspaces, then '\r'); elsewhere eagle prints
    // only the final line, where Keras would start a new line for every redraw.
    if (dynamic_display_) message += std::string(prev_total_width, '\b') + "\r";

    const int numdigits =
        static_cast<int>(std::floor(std::log10(static_cast<double>(target_)))) + 1;
    std::string bar = fmt::format("{:>{}}/{} [", current, numdigits, target_);
    const double prog = static_cast<double>(current) / static_cast<double>(target_);
    const int prog_width = static_cast<int>(width_ * prog);
    if (prog_width > 0) {
      bar += std::string(static_cast<std::size_t>(prog_width - 1), '=');
      bar += current < target_ ? ">" : "=";
    }
    bar += std::string(static_cast<std::size_t>(std::max(0, width_ - prog_width)), '.');
    bar += "]";
    total_width_ = bar.size();
    message += bar;

    const double time_per_unit = estimate_step_duration(current, now);
    if (finalize) {
      info += format_time(time_per_unit, unit_name_);
    } else {
      const double eta = time_per_unit * static_cast<double>(target_ - current);
      std::string eta_format;
      if (eta > 3600) {
        eta_format = fmt::format("{}:{:02d}:{:02d}", static_cast<long long>(eta / 3600),
                                 static_cast<long long>(std::fmod(eta, 3600) / 60),
                                 static_cast<long long>(std::fmod(eta, 60)));
      } else if (eta > 60) {
        eta_format = fmt::format("{}:{:02d}", static_cast<long long>(eta / 60),
                                 static_cast<long long>(std::fmod(eta, 60)));
      } else {
        eta_format = fmt::format("{}s", static_cast<long long>(eta));
      }
      info = " - ETA: " + eta_format;
    }
    for (const std::string& name : values_order_) {
      const auto& [total, count] = values_.at(name);
      info += " - " + name + ":" + format_value(total / std::max(1.0, count));
    }
    total_width_ += info.size();
    if (prev_total_width > total_width_) info += std::string(prev_total_width - total_width_, ' ');
    if (finalize) info += "\n";
    message += info;
    out << message << std::flush;
  } else if (verbose_ == 2 && finalize) {
    const int numdigits =
        static_cast<int>(std::floor(std::log10(static_cast<double>(target_)))) + 1;
    info = fmt::format("{:>{}}/{}", current, numdigits, target_) + info;
    for (const std::string& name : values_order_) {
      const auto& [total, count] = values_.at(name);
      const double avg = total / std::max(1.0, count);
      info += " - " + name + ":" +
              (avg > 1e-3 ? fmt::format(" {:.4f}", avg) : fmt::format(" {:.4e}", avg));
    }
    if (time_at_epoch_end_) {
      const double time_per_epoch = *time_at_epoch_end_ - time_at_epoch_start_;
      const double avg_time_per_step = time_per_epoch / static_cast<double>(target_);
      time_at_epoch_start_ = now;
      time_at_epoch_end_.reset();
      info += " -" + format_time(time_per_epoch, "epoch");
      info += " -" + format_time(avg_time_per_step, unit_name_);
      info += "\n";
    }
    out << info << std::flush;
  }
  last_update_ = now;
}

}  // namespace eagle::keras::utils
