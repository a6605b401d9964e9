// The direct kernels for convolutions of 1 to 4 input channels (Note [Narrow convolutions]):
// against the reference kernels on random geometries, the same bits on any thread count, and the
// kernel table's routing of such convolutions (ctest runs this binary with the default provider
// and with EAGLE_CONV_PROVIDER=reference).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "conv_test_support.hpp"
#include "cpu/conv_kernels.hpp"
#include "cpu/conv_narrow.hpp"
#include "cpu/conv_reference.hpp"
#include "cpu/intra_op_pool.hpp"
#include "eagle/eagle.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::Tensor;
using eagle::opdefs::Conv2DAttrs;
using eagle_test::close;

std::vector<float> random_values(std::mt19937& rng, std::int64_t n) {
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = value(rng);
  return v;
}

struct Results {
  std::vector<float> y, dx, df;
};

template <class Conv, class BackpropInput, class BackpropFilter>
Results compute(const opdefs::Conv2DAttrs& a, const std::vector<float>& x,
                const std::vector<float>& f, const std::vector<float>& dy, Conv conv,
                BackpropInput backprop_input, BackpropFilter backprop_filter) {
  Results r{std::vector<float>(dy.size()), std::vector<float>(x.size()),
            std::vector<float>(f.size())};
  conv(a, x.data(), f.data(), r.y.data());
  backprop_input(a, f.data(), dy.data(), r.dx.data());
  backprop_filter(a, x.data(), dy.data(), r.df.data());
  return r;
}

Results reference(const opdefs::Conv2DAttrs& a, const std::vector<float>& x,
                  const std::vector<float>& f, const std::vector<float>& dy) {
  namespace ref = eagle::cpu::reference;
  return compute(a, x, f, dy, ref::conv2d<float>, ref::conv2d_backprop_input<float>,
                 ref::conv2d_backprop_filter<float>);
}

Results narrow(const opdefs::Conv2DAttrs& a, const std::vector<float>& x,
               const std::vector<float>& f, const std::vector<float>& dy) {
  const eagle::cpu::NarrowConvKernels& k = eagle::cpu::narrow_conv_kernels();
  const auto conv2d = [&k](const opdefs::Conv2DAttrs& g, const float* input, const float* filter,
                           float* output) { k.conv2d(g, input, filter, {}, output); };
  return compute(a, x, f, dy, conv2d, k.backprop_input, k.backprop_filter);
}

// The geometry with its output size, as Conv2D's front end computes it.
opdefs::Conv2DAttrs geometry(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c,
                             std::int64_t kh, std::int64_t kw, std::int64_t o,
                             const eagle::nn::Conv2DOptions& options) {
  const Tensor y =
      eagle::nn::conv2d(eagle::zeros({n, h, w, c}), eagle::zeros({kh, kw, c, o}), options);
  return eagle_test::with_padding(opdefs::Conv2DAttrs{
      n, h, w, c, kh, kw, o, y.shape()[1], y.shape()[2], options.strides[0], options.strides[1],
      options.dilations[0], options.dilations[1], 0, 0, 0, 0, options.padding == "SAME"});
}

struct RestoreThreads {
  ~RestoreThreads() { eagle::cpu::set_intra_op_threads(0); }
};

}  // namespace

TEST_CASE("narrow convolutions are those of 1 to 4 input channels without groups") {
  opdefs::Conv2DAttrs a{1, 5, 5, 1, 3, 3, 8, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, false};
  for (std::int64_t c : {1, 2, 3, 4}) {
    a.in_channels = c;
    CHECK(eagle::cpu::is_narrow_conv(a));
  }
  a.in_channels = 5;
  CHECK_FALSE(eagle::cpu::is_narrow_conv(a));
  a.in_channels = 4;
  a.groups = 2;
  CHECK_FALSE(eagle::cpu::is_narrow_conv(a));
}

TEST_CASE("narrow kernels agree with the reference kernels on random geometries") {
  // Output depths below, at and between whole vectors of 16 lanes (the whole-vector kernels take
  // 16, 32 and 48); strides, dilations and SAME's padding put taps in the padding.
  std::mt19937 rng(41);
  std::uniform_int_distribution<int> depth(1, 4), batch(1, 3), size(1, 13), kernel(1, 5),
      stride(1, 3);
  const std::int64_t out_depths[] = {1, 3, 16, 17, 32, 40, 48};
  int run = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const std::int64_t n = batch(rng), c = depth(rng), o = out_depths[trial % 7];
    const std::int64_t h = size(rng), w = size(rng), kh = kernel(rng), kw = kernel(rng);
    const eagle::nn::Conv2DOptions options{{stride(rng), stride(rng)},
                                           trial % 2 ? "SAME" : "VALID",
                                           {trial % 3 ? 1 : 2, trial % 5 ? 1 : 2}};
    if (options.padding == "VALID" &&
        ((kh - 1) * options.dilations[0] + 1 > h || (kw - 1) * options.dilations[1] + 1 > w)) {
      continue;
    }
    ++run;
    const opdefs::Conv2DAttrs a = geometry(n, h, w, c, kh, kw, o, options);
    INFO("trial " << trial << ": x [" << n << "," << h << "," << w << "," << c << "], filter ["
                  << kh << "," << kw << "," << c << "," << o << "], strides " << a.stride_h << "x"
                  << a.stride_w << " " << options.padding << " dilations " << a.dilation_h << "x"
                  << a.dilation_w);
    const std::vector<float> x = random_values(rng, n * h * w * c);
    const std::vector<float> f = random_values(rng, kh * kw * c * o);
    const std::vector<float> dy = random_values(rng, n * a.out_height * a.out_width * o);
    const Results want = reference(a, x, f, dy);
    const Results got = narrow(a, x, f, dy);
    CHECK(close(got.y, want.y));
    CHECK(close(got.dx, want.dx));
    CHECK(close(got.df, want.df));
  }
  CHECK(run >= 50);
}

TEST_CASE("narrow kernels give the same bits on any thread count") {
  // The seed CNN's first layer at batch 37 (its filter gradient sums blocks of rows) and an RGB
  // layer with strides and padding whose output depth is not whole vectors.
  RestoreThreads restore;
  std::mt19937 rng(43);
  const opdefs::Conv2DAttrs geometries[] = {
      geometry(37, 28, 28, 1, 3, 3, 32, {{1, 1}, "VALID"}),
      geometry(5, 31, 29, 3, 5, 5, 20, {{2, 2}, "SAME"}),
  };
  for (const opdefs::Conv2DAttrs& a : geometries) {
    INFO("x [" << a.batch << "," << a.in_height << "," << a.in_width << "," << a.in_channels
               << "], " << a.out_channels << " filters");
    const std::vector<float> x =
        random_values(rng, a.batch * a.in_height * a.in_width * a.in_channels);
    const std::vector<float> f =
        random_values(rng, a.filter_height * a.filter_width * a.in_channels * a.out_channels);
    const std::vector<float> dy =
        random_values(rng, a.batch * a.out_height * a.out_width * a.out_channels);
    eagle::cpu::set_intra_op_threads(1);
    const Results one = narrow(a, x, f, dy);
    const Results want = reference(a, x, f, dy);
    CHECK(close(one.y, want.y));
    CHECK(close(one.dx, want.dx));
    CHECK(close(one.df, want.df));
    for (int threads : {2, 3}) {
      INFO(threads << " threads");
      eagle::cpu::set_intra_op_threads(threads);
      const Results got = narrow(a, x, f, dy);
      CHECK(got.y == one.y);
      CHECK(got.dx == one.dx);
      CHECK(got.df == one.df);
    }
  }
}

TEST_CASE("the kernel table runs narrow float32 convolutions on the provider's kernels") {
  // The oneDNN provider runs them on the narrow kernels, the reference provider on im2col + GEMM.
  std::mt19937 rng(47);
  const eagle::nn::Conv2DOptions options{{1, 1}, "SAME"};
  const opdefs::Conv2DAttrs a = geometry(2, 9, 8, 3, 3, 3, 16, options);
  const std::vector<float> x = random_values(rng, 2 * 9 * 8 * 3), f = random_values(rng, 432);
  const std::vector<float> dy = random_values(rng, 2 * 9 * 8 * 16);
  const Tensor xt = eagle::constant(x, {2, 9, 8, 3}), ft = eagle::constant(f, {3, 3, 3, 16});
  const Tensor dyt = eagle::constant(dy, {2, 9, 8, 16});
  const Results want =
      eagle::cpu::active_conv_provider() == "onednn" ? narrow(a, x, f, dy) : reference(a, x, f, dy);
  INFO("provider " << eagle::cpu::active_conv_provider());
  CHECK(eagle::nn::conv2d(xt, ft, options).to_vector<float>() == want.y);
  CHECK(eagle::nn::conv2d_backprop_input(xt.shape(), ft, dyt, options).to_vector<float>() ==
        want.dx);
  CHECK(eagle::nn::conv2d_backprop_filter(xt, ft.shape(), dyt, options).to_vector<float>() ==
        want.df);
}
