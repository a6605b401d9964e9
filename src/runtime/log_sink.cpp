#include "runtime/log_sink.hpp"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/flags.hpp"

namespace eagle::runtime {
namespace {

std::mutex g_sink_mutex;
std::shared_ptr<const debugging::LogSink> g_sink;  // null: the default stderr sink

// Warnings and INFO messages carry Python logging's "LEVEL:logger:" prefix, as TensorFlow's do
// ("WARNING:tensorflow:..."); placement lines, INFO-level but printed bare by TensorFlow's C++
// runtime, carry none. A sink gets the bare line either way.
void write_stderr(std::string_view prefix, std::string_view line) {
  std::string text;
  text.reserve(prefix.size() + line.size() + 1);
  text.append(prefix);
  text.append(line);
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stderr);  // one call: lines from threads don't mix
}

std::atomic<debugging::LogLevel> g_log_level{debugging::LogLevel::kWarning};

void emit(debugging::LogLevel level, std::string_view line, std::string_view stderr_prefix) {
  std::shared_ptr<const debugging::LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    sink = g_sink;
  }
  // Called outside the lock so a sink may itself run ops or replace the sink.
  if (sink) {
    (*sink)(level, line);
  } else {
    write_stderr(stderr_prefix, line);
  }
}

}  // namespace

void emit_info(std::string_view line) {
  if (g_log_level.load(std::memory_order_relaxed) == debugging::LogLevel::kInfo) {
    emit(debugging::LogLevel::kInfo, line, "INFO:eagle:");
  }
}

void emit_log(debugging::LogLevel level, std::string_view line) {
  emit(level, line, level == debugging::LogLevel::kWarning ? "WARNING:eagle:" : "");
}

}  // namespace eagle::runtime

namespace eagle::debugging {

void set_log_device_placement(bool enabled) { runtime::g_log_device_placement.store(enabled); }
bool get_log_device_placement() { return runtime::g_log_device_placement.load(); }

void set_log_level(LogLevel level) { runtime::g_log_level.store(level); }
LogLevel get_log_level() { return runtime::g_log_level.load(); }

void set_log_sink(LogSink sink) {
  auto shared = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
  std::lock_guard<std::mutex> lock(runtime::g_sink_mutex);
  runtime::g_sink = std::move(shared);
}

}  // namespace eagle::debugging
