// Typed errors. Every failure a user can cause is one of these; nothing aborts.
#pragma once

#include <stdexcept>
#include <string>

namespace eagle {

enum class ErrorCode {
  kInvalidArgument,
  kNotFound,
  kResourceExhausted,
  kFailedPrecondition,
  kUnimplemented,
  kInternal,
};

// Base of every eagle error; what() is the TensorFlow-style message alone.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

#define EAGLE_DEFINE_ERROR(Name, Code)                                             \
  class Name : public Error {                                                      \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(ErrorCode::Code, message) {} \
  };

EAGLE_DEFINE_ERROR(InvalidArgumentError, kInvalidArgument)
EAGLE_DEFINE_ERROR(NotFoundError, kNotFound)
EAGLE_DEFINE_ERROR(ResourceExhaustedError, kResourceExhausted)
EAGLE_DEFINE_ERROR(FailedPreconditionError, kFailedPrecondition)
EAGLE_DEFINE_ERROR(UnimplementedError, kUnimplemented)
EAGLE_DEFINE_ERROR(InternalError, kInternal)

#undef EAGLE_DEFINE_ERROR

}  // namespace eagle
