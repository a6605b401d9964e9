// Gradients of MatMul and BatchMatMulV2 (TensorFlow's math_grad.py _MatMulGrad and
// _BatchMatMulV2): two matmuls with the transposes chosen so no transpose is materialised.
#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

void matmul_grad(const GradContext& c, Grads& g) {
  const auto& attrs = c.attrs<opdefs::MatMulAttrs>();
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  const Tensor grad = c.grad();
  Tensor ga;
  Tensor gb;
  const bool need_a = c.needs_input_grad(0);
  const bool need_b = c.needs_input_grad(1);
  if (!attrs.transpose_a && !attrs.transpose_b) {
    if (need_a) ga = matmul(grad, b, false, true);
    if (need_b) gb = matmul(a, grad, true, false);
  } else if (!attrs.transpose_a && attrs.transpose_b) {
    if (need_a) ga = matmul(grad, b, false, false);
    if (need_b) gb = matmul(grad, a, true, false);
  } else if (attrs.transpose_a && !attrs.transpose_b) {
    if (need_a) ga = matmul(b, grad, false, true);
    if (need_b) gb = matmul(a, grad, false, false);
  } else {
    if (need_a) ga = matmul(b, grad, true, true);
    if (need_b) gb = matmul(grad, a, true, true);
  }
  // Batch dimensions broadcast (BatchMatMulV2): sum the gradient back to each input's shape.
  if (need_a) g[0] = sum_to(ga, c.input_shape(0));
  if (need_b) g[1] = sum_to(gb, c.input_shape(1));
}

}  // namespace

void register_linalg_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kMatMul, matmul_grad, save(0, 1));
  r.add(opdefs::OpId::kBatchMatMulV2, matmul_grad, save(0, 1));
}

}  // namespace eagle::autodiff
