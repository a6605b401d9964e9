// tf.debugging equivalents: placement logging, the replaceable log sink, and the numerics checks.
#pragma once

#include <functional>
#include <string_view>

#include "eagle/tensor.hpp"

namespace eagle::debugging {

enum class LogLevel { kInfo, kWarning };

// Receives one complete line (no trailing newline). Called from whichever thread ran the op, and
// for configuration warnings with the configuration lock held: a sink must not call into eagle.
using LogSink = std::function<void(LogLevel level, std::string_view line)>;

void set_log_device_placement(bool enabled);
bool get_log_device_placement();

// Replaces the sink (default: one line to stderr). An empty function restores the default. The
// default sink prefixes warnings with "WARNING:eagle:" and INFO messages with "INFO:eagle:"
// (Python logging's form, as TensorFlow's "WARNING:tensorflow:"); placement lines are bare. A sink
// gets the bare line.
void set_log_sink(LogSink sink);

// The least severe of eagle's own messages that are logged, as Python's
// tf.get_logger().setLevel("INFO"): kWarning by default, kInfo adds the INFO lines (such as
// MirroredStrategy's "Using MirroredStrategy with devices ..."). The placement log has its own
// switch, set_log_device_placement, and ignores this one.
void set_log_level(LogLevel level);
LogLevel get_log_level();

// tf.debugging.check_numerics (CheckNumerics): `tensor` itself when every value is finite, else
// InvalidArgumentError "<message> : Tensor had NaN values" (Inf, "Inf and NaN"). Floating dtypes
// only. Its gradient checks the gradient the same way ("Not a number (NaN) or infinity (Inf)
// values detected in gradient. <message>").
Tensor check_numerics(const Tensor& tensor, std::string_view message);

// tf.debugging.enable_check_numerics: from now on, in every thread, an op (other than TensorFlow's
// SAFE_OPS: Identity and the ops that only move values) whose floating output holds a NaN or an
// infinity raises InvalidArgumentError naming the op, the output, the counts and the inputs, as
// TensorFlow's check_numerics callback does. The outputs are read on the host after each op, so
// it slows every op down: a debugging mode. disable_check_numerics turns it off.
void enable_check_numerics();
void disable_check_numerics();
bool check_numerics_enabled();

}  // namespace eagle::debugging
