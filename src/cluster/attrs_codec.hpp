// An op's attributes as bytes, to run the op on another task (Note [Remote devices] in
// src/runtime/remote_device.hpp). Every task runs the same eagle, so the encoding is this build's:
// the alternative's index, then each field in declaration order.
#pragma once

#include <string>

#include "opdefs/attrs.hpp"

namespace eagle::cluster {

// UnimplementedError for attributes that cannot leave the process: a constant's host pointer
// (a constant is sent as a value instead) and a custom gradient's function.
std::string encode_attrs(const opdefs::OpAttrs& attrs);
// InvalidArgumentError for bytes encode_attrs did not write.
opdefs::OpAttrs decode_attrs(const std::string& bytes);

}  // namespace eagle::cluster
