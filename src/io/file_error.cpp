#include "io/file_error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "eagle/errors.hpp"

namespace eagle::io {

void throw_file_error(const std::string& path, int error) {
  const std::string message = fmt::format("{}; {}", path, std::strerror(error));
  if (error == ENOENT || error == ENOTDIR) throw NotFoundError(message);
  if (error == EACCES || error == EPERM) throw PermissionDeniedError(message);
  if (error == EISDIR) throw FailedPreconditionError(message);
  throw UnknownError(message);
}

}  // namespace eagle::io
