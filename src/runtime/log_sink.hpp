// Where placement lines and warnings go (default: stderr). See eagle/debugging.hpp.
#pragma once

#include <string_view>

#include "eagle/debugging.hpp"

namespace eagle::runtime {

void emit_log(debugging::LogLevel level, std::string_view line);

}  // namespace eagle::runtime
