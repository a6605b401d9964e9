// MatMul and BatchMatMulV2 on CUDA devices through cuBLAS (cublasGemmEx and its batched forms),
// transposes folded into the call (matmul_plan.hpp). float32 runs on TF32 tensor cores while
// config::enable_tensor_float_32_execution is on (TensorFlow's default); float16 and bfloat16
// accumulate in float32; float64 in float64.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "cublas_library.hpp"
#include "cuda_kernels.hpp"
#include "eagle/errors.hpp"
#include "index_kernels.hpp"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "matmul_plan.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/flags.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha and beta are double (64F compute), else float
};

template <class T>
GemmTypes gemm_types() {
  if constexpr (std::is_same_v<T, double>) {
    return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
  } else if constexpr (std::is_same_v<T, float>) {
    const bool tf32 = runtime::g_tensor_float_32_execution.load(std::memory_order_relaxed);
    return {CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
  } else if constexpr (std::is_same_v<T, float16>) {
    return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
  } else {
    static_assert(std::is_same_v<T, bfloat16>);
    return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
  }
}

int to_int(std::int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max()) {
    throw InvalidArgumentError(
        fmt::format("matmul on a GPU: {} = {} exceeds cuBLAS's limit of 2^31 - 1", what, v));
  }
  return static_cast<int>(v);
}

}  // namespace

template <class T>
void launch_matmul(const LaunchScope& scope, const T* a_data, const Shape& a_shape, const T* b_data,
                   const Shape& b_shape, bool transpose_a, bool transpose_b, T* out_data,
                   const Shape& out_shape) {
  const MatmulPlan plan = make_matmul_plan(a_shape, b_shape, transpose_a, transpose_b, out_shape);
  if (plan.m == 0 || plan.n == 0 || plan.batch == 0) return;
  if (plan.k == 0) {  // an empty sum: zeros
    EAGLE_CUDA_CHECK(cudaMemsetAsync(out_data, 0,
                                     static_cast<std::size_t>(out_shape.num_elements()) * sizeof(T),
                                     scope.stream()));
    return;
  }
  const GemmTypes types = gemm_types<T>();
  const double alpha64 = 1.0, beta64 = 0.0;
  const float alpha32 = 1.0f, beta32 = 0.0f;
  const void* alpha = types.double_scalars ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = types.double_scalars ? static_cast<const void*>(&beta64) : &beta32;
  const cublasOperation_t op_first = plan.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = plan.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = to_int(plan.n, "n");  // cuBLAS's m, n are the row-major n, m
  const int n = to_int(plan.m, "m");
  const int k = to_int(plan.k, "k");
  const int ld_first = to_int(plan.ld_first, "leading dimension");
  const int ld_second = to_int(plan.ld_second, "leading dimension");
  const int ld_out = to_int(plan.ld_out, "leading dimension");

  CublasHandle& blas = scope.device().cublas();
  // Pointer arrays for irregular batch broadcasting live on the device until the call has run;
  // freed with stream ordering (Note [Stream ordering]) when this function returns.
  std::shared_ptr<runtime::TensorImpl> pointers;
  if (!plan.strided) {
    const auto count = static_cast<std::size_t>(plan.batch);
    std::vector<const void*> host(3 * count);
    for (std::size_t i = 0; i < count; ++i) {
      host[i] = b_data + plan.offsets_b[i];
      host[count + i] = a_data + plan.offsets_a[i];
      host[2 * count + i] = out_data + static_cast<std::int64_t>(i) * plan.stride_out;
    }
    pointers = runtime::allocate_tensor(
        scope.device(), Shape{static_cast<std::int64_t>(host.size() * sizeof(void*))},
        DType::kBool);
    scope.device().copy_from_host(pointers->data(), host.data(), host.size() * sizeof(void*));
  }

  std::lock_guard<std::mutex> lock(blas.mutex());
  if (!plan.strided) {
    auto** device_pointers = pointers->data<void*>();
    const auto count = static_cast<int>(plan.batch);
    EAGLE_CUBLAS_CHECK(cublas().gemm_batched(
        blas.get(), op_first, op_second, m, n, k, alpha, device_pointers, types.data, ld_first,
        device_pointers + count, types.data, ld_second, beta, device_pointers + 2 * count,
        types.data, ld_out, count, types.compute, CUBLAS_GEMM_DEFAULT));
  } else if (plan.batch == 1) {
    EAGLE_CUBLAS_CHECK(cublas().gemm(blas.get(), op_first, op_second, m, n, k, alpha, b_data,
                                     types.data, ld_first, a_data, types.data, ld_second, beta,
                                     out_data, types.data, ld_out, types.compute,
                                     CUBLAS_GEMM_DEFAULT));
  } else {
    // cuBLAS takes the batch count as an int and launches over it in the grid's z dimension:
    // batches of at most 65535 matrices.
    constexpr std::int64_t kMaxBatch = 65535;
    for (std::int64_t first = 0; first < plan.batch; first += kMaxBatch) {
      const int count = static_cast<int>(std::min(kMaxBatch, plan.batch - first));
      EAGLE_CUBLAS_CHECK(cublas().gemm_strided_batched(
          blas.get(), op_first, op_second, m, n, k, alpha, b_data + first * plan.stride_b,
          types.data, ld_first, plan.stride_b, a_data + first * plan.stride_a, types.data,
          ld_second, plan.stride_a, beta, out_data + first * plan.stride_out, types.data, ld_out,
          plan.stride_out, count, types.compute, CUBLAS_GEMM_DEFAULT));
    }
  }
}

template void launch_matmul<float>(const LaunchScope&, const float*, const Shape&, const float*,
                                   const Shape&, bool, bool, float*, const Shape&);
template void launch_matmul<double>(const LaunchScope&, const double*, const Shape&, const double*,
                                    const Shape&, bool, bool, double*, const Shape&);
template void launch_matmul<float16>(const LaunchScope&, const float16*, const Shape&,
                                     const float16*, const Shape&, bool, bool, float16*,
                                     const Shape&);
template void launch_matmul<bfloat16>(const LaunchScope&, const bfloat16*, const Shape&,
                                      const bfloat16*, const Shape&, bool, bool, bfloat16*,
                                      const Shape&);

namespace {

template <class T>
struct MatMulKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::MatMulAttrs>();
    const runtime::TensorImpl& a = ctx.input(0);
    const runtime::TensorImpl& b = ctx.input(1);
    launch_matmul<T>(scope, a.data<const T>(), a.shape(), b.data<const T>(), b.shape(),
                     attrs.transpose_a, attrs.transpose_b, out->data<T>(), ctx.output_shape());
  }
};

}  // namespace

void register_matmul_kernels(runtime::KernelTable& table) {
  // No integer GEMM on the GPU (Note [GPU kernel set]): integer matmuls run on the CPU.
  kernels::register_op<opdefs::OpId::kMatMul, DeviceType::kGPU, MatMulKernel>(table);
  kernels::register_op<opdefs::OpId::kBatchMatMulV2, DeviceType::kGPU, MatMulKernel>(table);
}

}  // namespace eagle::cuda
