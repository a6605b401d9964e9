// Typed errors. Every failure a user can cause is one of these; nothing aborts.
#pragma once

#include <exception>
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

// One class per code, named as tf.errors names them: the list that defines them and that
// throw_error's switch is made from.
#define EAGLE_ERROR_CLASSES(X)                    \
  X(CancelledError, kCancelled)                   \
  X(UnknownError, kUnknown)                       \
  X(InvalidArgumentError, kInvalidArgument)       \
  X(DeadlineExceededError, kDeadlineExceeded)     \
  X(NotFoundError, kNotFound)                     \
  X(AlreadyExistsError, kAlreadyExists)           \
  X(PermissionDeniedError, kPermissionDenied)     \
  X(ResourceExhaustedError, kResourceExhausted)   \
  X(FailedPreconditionError, kFailedPrecondition) \
  X(AbortedError, kAborted)                       \
  X(OutOfRangeError, kOutOfRange)                 \
  X(UnimplementedError, kUnimplemented)           \
  X(InternalError, kInternal)                     \
  X(UnavailableError, kUnavailable)               \
  X(DataLossError, kDataLoss)

#define EAGLE_DEFINE_ERROR(Name, Code)                                             \
  class Name : public Error {                                                      \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(ErrorCode::Code, message) {} \
  };
EAGLE_ERROR_CLASSES(EAGLE_DEFINE_ERROR)
#undef EAGLE_DEFINE_ERROR

// Python's RuntimeError where TensorFlow raises it rather than a tf.errors class (a second
// gradient() on a non-persistent GradientTape): a call made in a state that forbids it, so its
// code is FAILED_PRECONDITION and `catch (const FailedPreconditionError&)` does not see it.
class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& message)
      : Error(ErrorCode::kFailedPrecondition, message) {}
};

// Throws the class of `code` with `message` (UnknownError for a value that is not an ErrorCode):
// how an error that crossed a thread or a process boundary as a code and a text is raised again
// as what it was.
[[noreturn]] inline void throw_error(ErrorCode code, const std::string& message) {
  switch (code) {
#define EAGLE_THROW_ERROR(Name, Code) \
  case ErrorCode::Code:               \
    throw Name(message);
    EAGLE_ERROR_CLASSES(EAGLE_THROW_ERROR)
#undef EAGLE_THROW_ERROR
  }
  throw UnknownError(message);
}

// The same for an eagle error whose message changed on the way: its class again (RuntimeError
// included), with `message`.
[[noreturn]] inline void throw_like(const Error& error, const std::string& message) {
  if (dynamic_cast<const RuntimeError*>(&error) != nullptr) throw RuntimeError(message);
  throw_error(error.code(), message);
}

// The same as throw_like, the exception being handled nested in the new one
// (std::throw_with_nested, for std::rethrow_if_nested). Call only inside a handler.
[[noreturn]] inline void throw_like_nested(const Error& error, const std::string& message) {
  if (dynamic_cast<const RuntimeError*>(&error) != nullptr) {
    std::throw_with_nested(RuntimeError(message));
  }
  switch (error.code()) {
#define EAGLE_THROW_NESTED(Name, Code) \
  case ErrorCode::Code:                \
    std::throw_with_nested(Name(message));
    EAGLE_ERROR_CLASSES(EAGLE_THROW_NESTED)
#undef EAGLE_THROW_NESTED
  }
  std::throw_with_nested(UnknownError(message));
}

}  // namespace eagle
