#include "cuda_check.hpp"

#include "eagle/errors.hpp"

namespace eagle::cuda {

std::string cuda_error_message(cudaError_t status, std::string_view call) {
  // Both return a static string, also for a code this runtime does not know.
  const char* name = cudaGetErrorName(status);
  const char* description = cudaGetErrorString(status);
  std::string message(call);
  message += " failed: ";
  message += name != nullptr ? name : "cudaErrorUnknown";
  message += " (";
  message += description != nullptr ? description : "unknown error";
  message += ')';
  return message;
}

void throw_cuda_error(cudaError_t status, std::string_view call) {
  cudaGetLastError();  // the error is reported here; later calls must not see it again
  throw InternalError(cuda_error_message(status, call));
}

}  // namespace eagle::cuda
