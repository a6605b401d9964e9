// The error TensorFlow's file system gives for an errno: "<path>; No such file or directory".
#pragma once

#include <string>

namespace eagle::io {

// NotFoundError for ENOENT/ENOTDIR, PermissionDeniedError for EACCES/EPERM,
// FailedPreconditionError for EISDIR, else UnknownError; the text is "<path>; <strerror>".
[[noreturn]] void throw_file_error(const std::string& path, int error);

}  // namespace eagle::io
