// oneDNN's sgemm for eagle's float32 matrix products (Note [Matmul providers] in cpu/matmul.cpp).
// Built only with EAGLE_WITH_ONEDNN.
#pragma once

#include <cstdint>

namespace eagle::cpu::onednn {

// Products below this many multiply-adds (m n k) run on the calling thread alone: waking
// libgomp's sleeping workers (OMP_WAIT_POLICY=PASSIVE) costs about 40 us on the 2-core VM, more
// than a second core saves below ~20 MFLOP (bench/gemm_providers.cpp: [32,784]x[784,256], 6.4M
// multiply-adds, 54 us on one thread and 62 us on two; [256,256]x[256,256], 16.8M, 182 and 89 us).
inline constexpr std::int64_t kMinThreadedMultiplyAdds = 10'000'000;

// C[m, n] = op(A) op(B), row-major; op(A) is [m, k] (A stored [k, m] when ta), op(B) is [k, n]
// (B stored [n, k] when tb). Runs dnnl_sgemm on eagle's intra-op thread count (one thread below
// kMinThreadedMultiplyAdds). Throws InternalError if oneDNN fails.
void sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
           const float* b, float* c);

}  // namespace eagle::cpu::onednn
