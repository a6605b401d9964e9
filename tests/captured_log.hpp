// Captures the runtime's log lines while alive: CapturedLog (placement lines and warnings, bare,
// placement logging on) and LevelLog (warnings and INFO lines, prefixed); both restore the
// default sink and flags afterwards.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "eagle/config.hpp"
#include "eagle/debugging.hpp"

namespace eagle_test {

class CapturedLog {
 public:
  explicit CapturedLog(bool log_placement = true) {
    eagle::debugging::set_log_sink([this](eagle::debugging::LogLevel, std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(line);
    });
    eagle::debugging::set_log_device_placement(log_placement);
  }
  ~CapturedLog() {
    eagle::debugging::set_log_device_placement(false);
    eagle::debugging::set_log_sink(nullptr);
    eagle::config::set_soft_device_placement(true);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  // The lines so far, forgotten afterwards.
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    out.swap(lines_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

// Warnings and INFO lines, each prefixed as the default stderr sink prints it ("WARNING:eagle:",
// "INFO:eagle:"), with INFO logging on (or off) while alive; restores the default sink and level.
class LevelLog {
 public:
  explicit LevelLog(bool info = true) {
    eagle::debugging::set_log_level(info ? eagle::debugging::LogLevel::kInfo
                                         : eagle::debugging::LogLevel::kWarning);
    eagle::debugging::set_log_sink([this](eagle::debugging::LogLevel level, std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(
          (level == eagle::debugging::LogLevel::kInfo ? "INFO:eagle:" : "WARNING:eagle:") +
          std::string(line));
    });
  }
  ~LevelLog() {
    eagle::debugging::set_log_sink(nullptr);
    eagle::debugging::set_log_level(eagle::debugging::LogLevel::kWarning);
  }
  LevelLog(const LevelLog&) = delete;
  LevelLog& operator=(const LevelLog&) = delete;

  // The lines so far, forgotten afterwards.
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    out.swap(lines_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace eagle_test
