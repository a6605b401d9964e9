// Typed errors. Every failure a user can cause is one of these; nothing aborts.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace eagle {

// TensorFlow's canonical codes (tf.errors / absl::StatusCode), with TensorFlow's numbers, so a
// code read from a log or a status proto means the same here.
enum class ErrorCode {
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

// TensorFlow's name of the code: "INVALID_ARGUMENT", "OUT_OF_RANGE", ...; "UNKNOWN" for a value
// that is not an ErrorCode.
constexpr std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCancelled:
      return "CANCELLED";
    case ErrorCode::kUnknown:
      return "UNKNOWN";
    case ErrorCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case ErrorCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case ErrorCode::kNotFound:
      return "NOT_FOUND";
    case ErrorCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case ErrorCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case ErrorCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case ErrorCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case ErrorCode::kAborted:
      return "ABORTED";
    case ErrorCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case ErrorCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case ErrorCode::kInternal:
      return "INTERNAL";
    case ErrorCode::kUnavailable:
      return "UNAVAILABLE";
    case ErrorCode::kDataLoss:
      return "DATA_LOSS";
  }
  return "UNKNOWN";
}

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

// One class per code, named as tf.errors names them.
EAGLE_DEFINE_ERROR(CancelledError, kCancelled)
EAGLE_DEFINE_ERROR(UnknownError, kUnknown)
EAGLE_DEFINE_ERROR(InvalidArgumentError, kInvalidArgument)
EAGLE_DEFINE_ERROR(DeadlineExceededError, kDeadlineExceeded)
EAGLE_DEFINE_ERROR(NotFoundError, kNotFound)
EAGLE_DEFINE_ERROR(AlreadyExistsError, kAlreadyExists)
EAGLE_DEFINE_ERROR(PermissionDeniedError, kPermissionDenied)
EAGLE_DEFINE_ERROR(ResourceExhaustedError, kResourceExhausted)
EAGLE_DEFINE_ERROR(FailedPreconditionError, kFailedPrecondition)
EAGLE_DEFINE_ERROR(AbortedError, kAborted)
EAGLE_DEFINE_ERROR(OutOfRangeError, kOutOfRange)
EAGLE_DEFINE_ERROR(UnimplementedError, kUnimplemented)
EAGLE_DEFINE_ERROR(InternalError, kInternal)
EAGLE_DEFINE_ERROR(UnavailableError, kUnavailable)
EAGLE_DEFINE_ERROR(DataLossError, kDataLoss)

#undef EAGLE_DEFINE_ERROR

// Python's RuntimeError where TensorFlow raises it rather than a tf.errors class (a second
// gradient() on a non-persistent GradientTape): a call made in a state that forbids it, so its
// code is FAILED_PRECONDITION and `catch (const FailedPreconditionError&)` does not see it.
class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& message)
      : Error(ErrorCode::kFailedPrecondition, message) {}
};

}  // namespace eagle
