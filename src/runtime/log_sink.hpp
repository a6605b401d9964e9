// Where placement lines and warnings go (default: stderr). See eagle/debugging.hpp.
#pragma once

#include <string_view>

#include "eagle/debugging.hpp"

namespace eagle::runtime {

void emit_log(debugging::LogLevel level, std::string_view line);
// An INFO message of eagle's own (not a placement line): emitted only when the log level is
// kInfo (debugging::set_log_level).
void emit_info(std::string_view line);

}  // namespace eagle::runtime
