// The direct max-pooling kernels (Note [Direct max pooling]): the reference kernels' bits on
// random geometries with ties, NaN and signed zeros, on any thread count, and a few values worked
// out by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "conv_test_support.hpp"
#include "cpu/conv_reference.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/max_pool_direct.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::opdefs::Pool2DAttrs;

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

// The geometry with its output size and padding, as the MaxPool front end computes them.
opdefs::Pool2DAttrs geometry(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c,
                             std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw,
                             bool same) {
  opdefs::Pool2DAttrs a{n, h, w, c, kh, kw, 0, 0, sh, sw, 0, 0, 0, 0, same};
  a.out_height = same ? (h + sh - 1) / sh : (h - kh) / sh + 1;
  a.out_width = same ? (w + sw - 1) / sw : (w - kw) / sw + 1;
  std::tie(a.pad_top, a.pad_bottom) = eagle_test::pads(same, h, a.out_height, sh, kh);
  std::tie(a.pad_left, a.pad_right) = eagle_test::pads(same, w, a.out_width, sw, kw);
  return a;
}

std::int64_t input_size(const opdefs::Pool2DAttrs& a) {
  return a.batch * a.in_height * a.in_width * a.channels;
}
std::int64_t output_size(const opdefs::Pool2DAttrs& a) {
  return a.batch * a.out_height * a.out_width * a.channels;
}

struct Results {
  std::vector<float> pooled, grad;
};

Results reference(const opdefs::Pool2DAttrs& a, const std::vector<float>& x,
                  const std::vector<float>& dy) {
  Results r{std::vector<float>(output_size(a)), std::vector<float>(input_size(a))};
  eagle::cpu::reference::max_pool(a, x.data(), r.pooled.data());
  eagle::cpu::reference::max_pool_grad(a, x.data(), dy.data(), r.grad.data());
  return r;
}

Results direct(const opdefs::Pool2DAttrs& a, const std::vector<float>& x,
               const std::vector<float>& dy) {
  // Filled with a marker: every element must be written.
  Results r{std::vector<float>(output_size(a), 7.0f), std::vector<float>(input_size(a), 7.0f)};
  const eagle::cpu::MaxPoolKernels& k = eagle::cpu::direct_max_pool_kernels();
  k.max_pool(a, x.data(), r.pooled.data());
  k.max_pool_grad(a, x.data(), dy.data(), r.grad.data());
  return r;
}

// Values from a few halves (so windows tie), a NaN or a signed zero now and then.
std::vector<float> tied_values(std::mt19937& rng, std::int64_t n) {
  std::uniform_int_distribution<int> half(-4, 4), special(0, 49);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) {
    const int s = special(rng);
    x = s == 0 ? NAN : s == 1 ? -0.0f : 0.5f * static_cast<float>(half(rng));
  }
  return v;
}

struct RestoreThreads {
  ~RestoreThreads() { eagle::cpu::set_intra_op_threads(0); }
};

}  // namespace

TEST_CASE("direct max pooling gives the reference's bits on random geometries") {
  std::mt19937 rng(41);
  std::uniform_int_distribution<int> small(1, 3), size(1, 13), window(1, 4), stride(1, 4);
  const std::int64_t depths[] = {1, 3, 5, 16, 17, 20, 32, 33, 64};
  std::uniform_int_distribution<int> depth(0, 8);
  int disjoint = 0, overlapping = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const bool same = trial % 2 == 1;
    const std::int64_t n = small(rng), h = size(rng), w = size(rng), c = depths[depth(rng)];
    const std::int64_t kh = window(rng), kw = window(rng), sh = stride(rng), sw = stride(rng);
    if (!same && (kh > h || kw > w)) continue;
    const opdefs::Pool2DAttrs a = geometry(n, h, w, c, kh, kw, sh, sw, same);
    INFO("trial " << trial << ": [" << n << "," << h << "," << w << "," << c << "], window " << kh
                  << "x" << kw << ", strides " << sh << "x" << sw << (same ? " SAME" : " VALID"));
    (sh >= kh && sw >= kw ? disjoint : overlapping) += 1;
    const std::vector<float> x = tied_values(rng, input_size(a));
    const std::vector<float> dy = tied_values(rng, output_size(a));
    const Results want = reference(a, x, dy);
    const Results got = direct(a, x, dy);
    CHECK(bits(got.pooled) == bits(want.pooled));
    CHECK(bits(got.grad) == bits(want.grad));
  }
  CHECK(disjoint >= 15);
  CHECK(overlapping >= 40);
}

TEST_CASE("direct max pooling gives the same bits on 1 to 3 threads") {
  RestoreThreads restore;
  std::mt19937 rng(43);
  // The seed CNN's first pooling at batch 37, a SAME pooling whose windows do not cover the input,
  // and overlapping windows.
  const opdefs::Pool2DAttrs geometries[] = {geometry(37, 26, 26, 32, 2, 2, 2, 2, false),
                                            geometry(37, 11, 11, 64, 2, 2, 3, 3, true),
                                            geometry(37, 12, 9, 20, 3, 3, 2, 1, true)};
  for (const opdefs::Pool2DAttrs& a : geometries) {
    const std::vector<float> x = tied_values(rng, input_size(a));
    const std::vector<float> dy = tied_values(rng, output_size(a));
    const Results want = reference(a, x, dy);
    for (int threads : {1, 2, 3}) {
      INFO(a.in_height << "x" << a.in_width << "x" << a.channels << " on " << threads
                       << " threads");
      eagle::cpu::set_intra_op_threads(threads);
      const Results got = direct(a, x, dy);
      CHECK(bits(got.pooled) == bits(want.pooled));
      CHECK(bits(got.grad) == bits(want.grad));
    }
  }
}

TEST_CASE("direct MaxPoolGrad routes to the first maximum or the first NaN of a window") {
  // One image 2x4, one channel, 2x2 windows with stride 2: windows {1, 3, 3, 0} and
  // {NaN, 2, NaN, 5}.
  const opdefs::Pool2DAttrs a = geometry(1, 2, 4, 1, 2, 2, 2, 2, false);
  const std::vector<float> x = {1, 3, NAN, 2, 3, 0, NAN, 5};
  const std::vector<float> dy = {-0.0f, 4};
  const Results got = direct(a, x, dy);
  CHECK(got.pooled[0] == 3);
  CHECK(std::isnan(got.pooled[1]));
  // The tie at 3 goes to the first; -0 arrives as +0 (the reference adds it to a zeroed output);
  // the first NaN takes the gradient.
  CHECK(bits(got.grad) == bits(std::vector<float>{0, 0, 4, 0, 0, 0, 0, 0}));
  CHECK_FALSE(std::signbit(got.grad[1]));
}

TEST_CASE("direct MaxPoolGrad adds the gradients of overlapping windows") {
  // 1x3 input, windows of 2 with stride 1: both windows pick the middle element.
  const opdefs::Pool2DAttrs a = geometry(1, 1, 3, 1, 1, 2, 1, 1, false);
  const std::vector<float> x = {1, 5, 2};
  const Results got = direct(a, x, {0.25f, 0.5f});
  CHECK(got.pooled == std::vector<float>{5, 5});
  CHECK(got.grad == std::vector<float>{0, 0.75f, 0});
}
