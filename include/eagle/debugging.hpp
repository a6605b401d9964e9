// tf.debugging equivalents: placement logging and the replaceable log sink.
#pragma once

#include <functional>
#include <string_view>

namespace eagle::debugging {

enum class LogLevel { kInfo, kWarning };

// Receives one complete line (no trailing newline). Called from whichever thread ran the op, and
// for configuration warnings with the configuration lock held: a sink must not call into eagle.
using LogSink = std::function<void(LogLevel level, std::string_view line)>;

void set_log_device_placement(bool enabled);
bool get_log_device_placement();

// Replaces the sink (default: one line to stderr). An empty function restores the default.
void set_log_sink(LogSink sink);

}  // namespace eagle::debugging
