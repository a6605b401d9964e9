// Gradients of the convolution and pooling ops (TensorFlow's nn_grad.py): Conv2D's are its two
// backprops (and _FusedConv2D's theirs, after ReluGrad and with BiasAddGrad), the backprops' are
// convolutions again (so second derivatives work), MaxPool's is MaxPoolGrad and AvgPool's
// AvgPoolGrad, whose own gradient is an AvgPool.
#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

nn::Conv2DOptions conv_options(const opdefs::Conv2DAttrs& a) {
  return {{a.stride_h, a.stride_w}, a.same ? "SAME" : "VALID", {a.dilation_h, a.dilation_w}};
}

Shape input_shape(const opdefs::Conv2DAttrs& a) {
  return Shape{a.batch, a.in_height, a.in_width, a.in_channels};
}

// A grouped convolution's filter has in_channels / groups input channels, and the backprops infer
// the same groups from these shapes (Note [Grouped convolution]).
Shape filter_shape(const opdefs::Conv2DAttrs& a) {
  return Shape{a.filter_height, a.filter_width, a.group_in_channels(), a.out_channels};
}

nn::Pool2DOptions pool_options(const opdefs::Pool2DAttrs& a) {
  return {{a.window_h, a.window_w},
          std::array<std::int64_t, 2>{a.stride_h, a.stride_w},
          a.same ? "SAME" : "VALID"};
}

// Conv2D(input, filter): dinput = Conv2DBackpropInput(filter, dy), dfilter =
// Conv2DBackpropFilter(input, dy).
void conv2d_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Conv2DAttrs>();
  const nn::Conv2DOptions options = conv_options(a);
  const Tensor dy = c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = nn::conv2d_backprop_input(input_shape(a), c.input(1), dy, options);
  }
  if (c.needs_input_grad(1)) {
    g[1] = nn::conv2d_backprop_filter(c.input(0), filter_shape(a), dy, options);
  }
}

// Conv2DBackpropInput(filter, dy) is linear in each: its gradient g (input-shaped) gives
// dfilter = Conv2DBackpropFilter(g, dy) and ddy = Conv2D(g, filter).
void conv2d_backprop_input_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Conv2DAttrs>();
  const nn::Conv2DOptions options = conv_options(a);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = nn::conv2d_backprop_filter(grad, filter_shape(a), c.input(1), options);
  }
  if (c.needs_input_grad(1)) g[1] = nn::conv2d(grad, c.input(0), options);
}

// Conv2DBackpropFilter(input, dy): its gradient g (filter-shaped) gives dinput =
// Conv2DBackpropInput(g, dy) and ddy = Conv2D(input, g).
void conv2d_backprop_filter_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Conv2DAttrs>();
  const nn::Conv2DOptions options = conv_options(a);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = nn::conv2d_backprop_input(input_shape(a), grad, c.input(1), options);
  }
  if (c.needs_input_grad(1)) g[1] = nn::conv2d(c.input(0), grad, options);
}

// _FusedConv2D(input, filter, bias) with output y (Note [Fused convolutions]): dz = ReluGrad(dy,
// y) (dy itself without Relu), then the gradients of BiasAdd and Conv2D of dz.
void fused_conv2d_grad(const GradContext& c, Grads& g) {
  const auto& f = c.attrs<opdefs::FusedConv2DAttrs>();
  const nn::Conv2DOptions options = conv_options(f.conv);
  const Tensor dz = f.relu ? relu_grad(c.grad(), c.output()) : c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = nn::conv2d_backprop_input(input_shape(f.conv), c.input(1), dz, options);
  }
  if (c.needs_input_grad(1)) {
    g[1] = nn::conv2d_backprop_filter(c.input(0), filter_shape(f.conv), dz, options);
  }
  if (c.needs_input_grad(2)) g[2] = bias_add_grad(dz);
}

void max_pool_grad_fn(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Pool2DAttrs>();
  g[0] = nn::max_pool_grad(c.input(0), c.output(), c.grad(), pool_options(a));
}

void avg_pool_grad_fn(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Pool2DAttrs>();
  g[0] = nn::avg_pool_grad(c.input_shape(0), c.grad(), pool_options(a));
}

// AvgPoolGrad is linear in its gradient input, the transpose of AvgPool: its gradient is AvgPool.
void avg_pool_grad_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::Pool2DAttrs>();
  g[0] = nn::avg_pool2d(c.grad(), pool_options(a));
}

}  // namespace

void register_conv_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kConv2D, conv2d_grad, save(0, 1));
  r.add(opdefs::OpId::k_FusedConv2D, fused_conv2d_grad, save(0, 1), save(0));
  r.add(opdefs::OpId::kConv2DBackpropInput, conv2d_backprop_input_grad, save(0, 1));
  r.add(opdefs::OpId::kConv2DBackpropFilter, conv2d_backprop_filter_grad, save(0, 1));
  r.add(opdefs::OpId::kMaxPool, max_pool_grad_fn, save(0), save(0));
  r.add(opdefs::OpId::kAvgPool, avg_pool_grad_fn);
  r.add(opdefs::OpId::kAvgPoolGrad, avg_pool_grad_grad);
}

}  // namespace eagle::autodiff
