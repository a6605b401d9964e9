// cuDNN, loaded with dlopen when the first convolution or pooling op runs on a CUDA GPU, as
// cuBLAS is (Note [cuBLAS on demand]): eagle loads and runs everything else where cuDNN is not
// installed, and those ops then fail with an UnimplementedError naming the op (Note [cuDNN on
// demand]). The entry points eagle calls, with cuDNN's own signatures (legacy API of cuDNN 9).
#pragma once

#include <cudnn.h>

#include <string_view>

namespace eagle::cuda {

// Note [cuDNN on demand]: the soname (EAGLE_CUDNN_SONAME, libcudnn.so.<major of the headers>)
// is tried first, then the toolkit's library directory. A failed load is not cached: each op
// tries again and reports "DNN library is not found" (TensorFlow's words) with dlerror().
struct CudnnLibrary {
  decltype(&::cudnnCreate) create;
  decltype(&::cudnnDestroy) destroy;
  decltype(&::cudnnSetStream) set_stream;
  decltype(&::cudnnGetErrorString) error_string;
  decltype(&::cudnnCreateTensorDescriptor) create_tensor;
  decltype(&::cudnnSetTensor4dDescriptor) set_tensor_4d;
  decltype(&::cudnnDestroyTensorDescriptor) destroy_tensor;
  decltype(&::cudnnCreateFilterDescriptor) create_filter;
  decltype(&::cudnnSetFilter4dDescriptor) set_filter_4d;
  decltype(&::cudnnDestroyFilterDescriptor) destroy_filter;
  decltype(&::cudnnCreateConvolutionDescriptor) create_convolution;
  decltype(&::cudnnSetConvolution2dDescriptor) set_convolution_2d;
  decltype(&::cudnnSetConvolutionMathType) set_math_type;
  decltype(&::cudnnSetConvolutionGroupCount) set_group_count;
  decltype(&::cudnnDestroyConvolutionDescriptor) destroy_convolution;
  decltype(&::cudnnGetConvolutionForwardAlgorithm_v7) forward_algorithms;
  decltype(&::cudnnConvolutionForward) forward;
  decltype(&::cudnnGetConvolutionBackwardDataAlgorithm_v7) backward_data_algorithms;
  decltype(&::cudnnConvolutionBackwardData) backward_data;
  decltype(&::cudnnGetConvolutionBackwardFilterAlgorithm_v7) backward_filter_algorithms;
  decltype(&::cudnnConvolutionBackwardFilter) backward_filter;
  // Autotuning (EAGLE_CUDNN_AUTOTUNE, Note [cuDNN convolutions]): every algorithm run and timed.
  decltype(&::cudnnFindConvolutionForwardAlgorithmEx) find_forward;
  decltype(&::cudnnFindConvolutionBackwardDataAlgorithmEx) find_backward_data;
  decltype(&::cudnnFindConvolutionBackwardFilterAlgorithmEx) find_backward_filter;
  decltype(&::cudnnCreatePoolingDescriptor) create_pooling;
  decltype(&::cudnnSetPooling2dDescriptor) set_pooling_2d;
  decltype(&::cudnnDestroyPoolingDescriptor) destroy_pooling;
  decltype(&::cudnnPoolingForward) pooling_forward;
  decltype(&::cudnnPoolingBackward) pooling_backward;
};

// Loads cuDNN once (thread-safe); UnimplementedError "DNN library is not found: ... [Op:<op>]"
// when it or one of its entry points is missing.
const CudnnLibrary& cudnn(std::string_view op);

// "<call> failed: CUDNN_STATUS_..." as an InternalError.
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, std::string_view call);
inline void check_cudnn(cudnnStatus_t status, std::string_view call) {
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, call);
}
#define EAGLE_CUDNN_CHECK(expr) ::eagle::cuda::check_cudnn((expr), #expr)

}  // namespace eagle::cuda
