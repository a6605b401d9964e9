// cuBLAS, loaded when the first cuBLAS handle is made rather than when libeagle is (Note [cuBLAS
// on demand]). The entry points eagle calls, as function pointers with cuBLAS's own signatures.
#pragma once

#include <cublas_v2.h>

namespace eagle::cuda {

// Note [cuBLAS on demand]: libcublasLt's static initialisers take 80-100 ms at process start on
// the 2-core dev machine, whether or not a GPU is there: a third of a CPU-only eagle program's
// cold start, paid by every test process too. TensorFlow's stream executor opens cuBLAS with
// dlopen for the same reason. The soname and the toolkit's library directory are fixed at build
// time (EAGLE_CUBLAS_SONAME, EAGLE_CUBLAS_DIR); the soname is tried first, so an installed
// library found by the loader's usual search wins.
// The GEMM entry points with cublasComputeType_t (cublas_api.h overloads them in C++ with
// wrappers that take the older cudaDataType compute type).
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                        int, int, const void*, const void*, cudaDataType, int,
                                        const void*, cudaDataType, int, const void*, void*,
                                        cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
    cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,
    cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                               int, int, int, const void*, const void* const[],
                                               cudaDataType, int, const void* const[], cudaDataType,
                                               int, const void*, void* const[], cudaDataType, int,
                                               int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasLibrary {
  decltype(&::cublasCreate) create;
  decltype(&::cublasDestroy) destroy;
  decltype(&::cublasSetStream) set_stream;
  decltype(&::cublasSetPointerMode) set_pointer_mode;
  decltype(&::cublasSetWorkspace) set_workspace;
  decltype(&::cublasGetStatusName) status_name;
  decltype(&::cublasGetStatusString) status_string;
  CublasGemmEx gemm;
  CublasGemmStridedBatchedEx gemm_strided_batched;
  CublasGemmBatchedEx gemm_batched;
};

// Loads cuBLAS once (thread-safe); InternalError naming the library and dlerror() when it or one
// of its entry points is missing.
const CublasLibrary& cublas();

}  // namespace eagle::cuda
