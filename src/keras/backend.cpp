// Keras's process-wide state: name counters, the print stream, the display mode and the clock.
#include "eagle/keras/backend.hpp"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>

#include "core/snake_case.hpp"

namespace eagle::keras::backend {
namespace {

std::mutex& names_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, int>& name_counts() {
  static std::map<std::string, int> counts;
  return counts;
}

}  // namespace

std::string unique_object_name(const std::string& base) {
  std::lock_guard<std::mutex> lock(names_mutex());
  const int n = name_counts()[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

std::string to_snake_case(const std::string& class_name) {
  return detail::to_snake_case(class_name);
}

void clear_session() {
  std::lock_guard<std::mutex> lock(names_mutex());
  name_counts().clear();
}

}  // namespace eagle::keras::backend

namespace eagle::keras::io {
namespace {

struct Settings {
  std::mutex mutex;
  std::ostream* stream = &std::cout;
  std::optional<bool> dynamic;
  Clock clock;
};
Settings& settings() {
  static Settings s;
  return s;
}

}  // namespace

void set_print_stream(std::ostream& stream) {
  std::lock_guard<std::mutex> lock(settings().mutex);
  settings().stream = &stream;
}

std::ostream& print_stream() {
  std::lock_guard<std::mutex> lock(settings().mutex);
  return *settings().stream;
}

void set_dynamic_display(std::optional<bool> dynamic) {
  std::lock_guard<std::mutex> lock(settings().mutex);
  settings().dynamic = dynamic;
}

bool dynamic_display() {
  std::lock_guard<std::mutex> lock(settings().mutex);
  if (settings().dynamic) return *settings().dynamic;
  return settings().stream == &std::cout && ::isatty(STDOUT_FILENO) == 1;
}

void set_clock(Clock clock) {
  std::lock_guard<std::mutex> lock(settings().mutex);
  settings().clock = std::move(clock);
}

double now() {
  Clock clock;
  {
    std::lock_guard<std::mutex> lock(settings().mutex);
    clock = settings().clock;
  }
  if (clock) return clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace eagle::keras::io
