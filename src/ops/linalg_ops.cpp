// matmul (MatMul / BatchMatMulV2), add_n and softmax.
#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const Shape& sa = a.defined() ? a.shape() : Shape{};
  const Shape& sb = b.defined() ? b.shape() : Shape{};
  const bool batched = sa.rank() > 2 || sb.rank() > 2;
  const opdefs::OpId op = batched ? opdefs::OpId::kBatchMatMulV2 : opdefs::OpId::kMatMul;
  const Tensor inputs[2] = {a, b};
  ops::check_same_dtype(op, inputs, 2);
  for (int i = 0; i < 2; ++i) {
    const Shape& s = inputs[i].shape();
    if (s.rank() < 2) {
      ops::throw_invalid(op, fmt::format("In[{}] ndims must be >= 2", i));
    }
  }
  const std::int64_t m = transpose_a ? sa[sa.rank() - 1] : sa[sa.rank() - 2];
  const std::int64_t ka = transpose_a ? sa[sa.rank() - 2] : sa[sa.rank() - 1];
  const std::int64_t kb = transpose_b ? sb[sb.rank() - 1] : sb[sb.rank() - 2];
  const std::int64_t n = transpose_b ? sb[sb.rank() - 2] : sb[sb.rank() - 1];
  if (ka != kb) {
    ops::throw_invalid(op, fmt::format("Matrix size-incompatible: In[0]: {}, In[1]: {}",
                                       sa.to_string(), sb.to_string()));
  }
  // Batch dimensions broadcast (NumPy rules) over everything but the last two axes.
  Shape batch_a, batch_b;
  for (int i = 0; i < sa.rank() - 2; ++i) batch_a.push_back(sa[i]);
  for (int i = 0; i < sb.rank() - 2; ++i) batch_b.push_back(sb[i]);
  Shape out;
  if (batch_a != batch_b) {
    const int rank = std::max(batch_a.rank(), batch_b.rank());
    for (int i = 0; i < rank; ++i) {
      const int ia = batch_a.rank() - rank + i, ib = batch_b.rank() - rank + i;
      const std::int64_t da = ia >= 0 ? batch_a[ia] : 1, db = ib >= 0 ? batch_b[ib] : 1;
      if (da != db && da != 1 && db != 1) {
        ops::throw_invalid(op, fmt::format("In[0] and In[1] must have compatible batch "
                                           "dimensions: {} vs. {}",
                                           sa.to_string(), sb.to_string()));
      }
      out.push_back(da == 1 ? db : da);
    }
  } else {
    out = batch_a;
  }
  out.push_back(m);
  out.push_back(n);
  return runtime::execute1(op, a.dtype(), inputs, 2, out, a.dtype(),
                           opdefs::OpAttrs{opdefs::MatMulAttrs{transpose_a, transpose_b}});
}

Tensor add_n(const std::vector<Tensor>& inputs) {
  if (inputs.empty()) {
    ops::throw_invalid(opdefs::OpId::kAddN,
                       "List argument 'inputs' to 'AddN' Op with length 0 shorter "
                       "than minimum length 1");
  }
  const int n = static_cast<int>(inputs.size());
  ops::check_same_dtype(opdefs::OpId::kAddN, inputs.data(), n);
  for (int i = 1; i < n; ++i) {
    if (inputs[i].shape() != inputs[0].shape()) {
      ops::throw_invalid(
          opdefs::OpId::kAddN,
          fmt::format("Shapes of all inputs must match: values[0].shape = {} != "
                      "values[{}].shape = {}",
                      inputs[0].shape().to_string(), i, inputs[i].shape().to_string()));
    }
  }
  return runtime::execute1(opdefs::OpId::kAddN, inputs[0].dtype(), inputs.data(), n,
                           inputs[0].shape(), inputs[0].dtype());
}

Tensor softmax(const Tensor& logits) {
  ops::check_defined(logits, opdefs::OpId::kSoftmax);
  if (logits.rank() < 1) {
    ops::throw_invalid(
        opdefs::OpId::kSoftmax,
        fmt::format("logits must have >= 1 dimension, got shape {}", logits.shape().to_string()));
  }
  return ops::run_unary(opdefs::OpId::kSoftmax, logits, logits.shape(), logits.dtype());
}

}  // namespace eagle
