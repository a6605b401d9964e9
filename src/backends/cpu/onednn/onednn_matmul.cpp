#include "cpu/onednn/onednn_matmul.hpp"

#include <omp.h>

#include <algorithm>

#include <dnnl.h>
#include <fmt/format.h>

#include "cpu/intra_op_pool.hpp"
#include "eagle/errors.hpp"

namespace eagle::cpu::onednn {

void sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
           const float* b, float* c) {
  // dnnl_sgemm threads over the calling thread's OpenMP team (Note [oneDNN primitives]).
  const bool threaded = m * n * k >= kMinThreadedMultiplyAdds;
  omp_set_num_threads(threaded ? intra_op_threads() : 1);
  const dnnl_status_t status = dnnl_sgemm(
      ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, std::max<std::int64_t>(1, ta ? m : k), b,
      std::max<std::int64_t>(1, tb ? k : n), 0.0f, c, std::max<std::int64_t>(1, n));
  if (status != dnnl_success) {
    throw InternalError(fmt::format("oneDNN sgemm of [{}, {}] x [{}, {}] failed (status {})", m, k,
                                    k, n, static_cast<int>(status)));
  }
}

}  // namespace eagle::cpu::onednn
