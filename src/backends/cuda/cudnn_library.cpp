#include "cudnn_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <string>

#include "eagle/errors.hpp"

namespace eagle::cuda {
namespace {

struct LoadError {
  std::string what;
};

void* open_library() {
  void* handle = ::dlopen(EAGLE_CUDNN_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle) return handle;
  const std::string first_error = ::dlerror();
  const std::string fallback = std::string(EAGLE_CUDNN_DIR) + "/" + EAGLE_CUDNN_SONAME;
  handle = ::dlopen(fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle) return handle;
  throw LoadError{fmt::format("{}; {}", first_error, ::dlerror())};
}

template <class F>
void resolve(void* library, F& entry, const char* symbol) {
  entry = reinterpret_cast<F>(::dlsym(library, symbol));
  if (!entry) throw LoadError{fmt::format("{} has no entry point {}", EAGLE_CUDNN_SONAME, symbol)};
}

#define EAGLE_RESOLVE(field, symbol) resolve(library, api.field, #symbol)

CudnnLibrary load() {
  void* library = open_library();
  CudnnLibrary api{};
  EAGLE_RESOLVE(create, cudnnCreate);
  EAGLE_RESOLVE(destroy, cudnnDestroy);
  EAGLE_RESOLVE(set_stream, cudnnSetStream);
  EAGLE_RESOLVE(error_string, cudnnGetErrorString);
  EAGLE_RESOLVE(create_tensor, cudnnCreateTensorDescriptor);
  EAGLE_RESOLVE(set_tensor_4d, cudnnSetTensor4dDescriptor);
  EAGLE_RESOLVE(destroy_tensor, cudnnDestroyTensorDescriptor);
  EAGLE_RESOLVE(create_filter, cudnnCreateFilterDescriptor);
  EAGLE_RESOLVE(set_filter_4d, cudnnSetFilter4dDescriptor);
  EAGLE_RESOLVE(destroy_filter, cudnnDestroyFilterDescriptor);
  EAGLE_RESOLVE(create_convolution, cudnnCreateConvolutionDescriptor);
  EAGLE_RESOLVE(set_convolution_2d, cudnnSetConvolution2dDescriptor);
  EAGLE_RESOLVE(set_math_type, cudnnSetConvolutionMathType);
  EAGLE_RESOLVE(set_group_count, cudnnSetConvolutionGroupCount);
  EAGLE_RESOLVE(destroy_convolution, cudnnDestroyConvolutionDescriptor);
  EAGLE_RESOLVE(forward_algorithms, cudnnGetConvolutionForwardAlgorithm_v7);
  EAGLE_RESOLVE(forward, cudnnConvolutionForward);
  EAGLE_RESOLVE(backward_data_algorithms, cudnnGetConvolutionBackwardDataAlgorithm_v7);
  EAGLE_RESOLVE(backward_data, cudnnConvolutionBackwardData);
  EAGLE_RESOLVE(backward_filter_algorithms, cudnnGetConvolutionBackwardFilterAlgorithm_v7);
  EAGLE_RESOLVE(backward_filter, cudnnConvolutionBackwardFilter);
  EAGLE_RESOLVE(find_forward, cudnnFindConvolutionForwardAlgorithmEx);
  EAGLE_RESOLVE(find_backward_data, cudnnFindConvolutionBackwardDataAlgorithmEx);
  EAGLE_RESOLVE(find_backward_filter, cudnnFindConvolutionBackwardFilterAlgorithmEx);
  EAGLE_RESOLVE(create_pooling, cudnnCreatePoolingDescriptor);
  EAGLE_RESOLVE(set_pooling_2d, cudnnSetPooling2dDescriptor);
  EAGLE_RESOLVE(destroy_pooling, cudnnDestroyPoolingDescriptor);
  EAGLE_RESOLVE(pooling_forward, cudnnPoolingForward);
  EAGLE_RESOLVE(pooling_backward, cudnnPoolingBackward);
  return api;  // the library stays loaded for the life of the process
}

#undef EAGLE_RESOLVE

}  // namespace

const CudnnLibrary& cudnn(std::string_view op) {
  static std::atomic<bool> loaded{false};
  static std::mutex mutex;
  static CudnnLibrary api{};
  if (!loaded.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!loaded.load(std::memory_order_relaxed)) {
      try {
        api = load();
      } catch (const LoadError& e) {
        throw UnimplementedError(
            fmt::format("DNN library is not found: {} has no GPU kernel without cuDNN ({}) [Op:{}]",
                        op, e.what, op));
      }
      loaded.store(true, std::memory_order_release);
    }
  }
  return api;
}

void throw_cudnn_error(cudnnStatus_t status, std::string_view call) {
  throw InternalError(fmt::format("{} failed: {}", call, cudnn("cuDNN").error_string(status)));
}

}  // namespace eagle::cuda
