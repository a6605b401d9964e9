// Conv2D forward and both backprops (issue 17 §5): the seed CNN's three convolutions at batch 128
// and a ResNet-style 3x3x64x64 on 56x56, NHWC float32 on the CPU, with whichever provider this
// process chose (EAGLE_CONV_PROVIDER: oneDNN by default, reference). One JSON line per case
// with the median, min and max of --reps runs after a warm-up; bench/conv2d_peers.py times the
// same cases in TensorFlow.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

struct Case {
  const char* name;
  std::int64_t n, h, w, c, k, o;
};

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) reps = 3;
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  const Case cases[] = {{"seed conv1 28x28x1->32", 128, 28, 28, 1, 3, 32},
                        {"seed conv2 13x13x32->64", 128, 13, 13, 32, 3, 64},
                        {"seed conv3 5x5x64->64", 128, 5, 5, 64, 3, 64},
                        {"resnet 56x56x64->64", 128, 56, 56, 64, 3, 64}};
  const char* provider = std::getenv("EAGLE_CONV_PROVIDER");
  for (const Case& c : cases) {
    const eagle::Tensor x =
        eagle::random_uniform({c.n, c.h, c.w, c.c}, -1, 1, eagle::DType::kFloat32, 1);
    const eagle::Tensor f =
        eagle::random_uniform({c.k, c.k, c.c, c.o}, -1, 1, eagle::DType::kFloat32, 2);
    const eagle::Tensor y = eagle::nn::conv2d(x, f);
    const eagle::Tensor dy = eagle::random_uniform(y.shape(), -1, 1, eagle::DType::kFloat32, 3);
    const std::pair<const char*, std::function<void()>> ops[] = {
        {"Conv2D", [&] { (void)eagle::nn::conv2d(x, f); }},
        {"Conv2DBackpropInput", [&] { (void)eagle::nn::conv2d_backprop_input(x.shape(), f, dy); }},
        {"Conv2DBackpropFilter",
         [&] { (void)eagle::nn::conv2d_backprop_filter(x, f.shape(), dy); }}};
    for (const auto& [op, run] : ops) {
      run();  // warm-up: primitive creation, allocator
      std::vector<double> t;
      for (int r = 0; r < reps; ++r) t.push_back(seconds(run));
      std::sort(t.begin(), t.end());
      std::printf(
          "{\"bench\": \"conv2d\", \"case\": \"%s\", \"op\": \"%s\", \"provider\": \"%s\", "
          "\"median_ms\": %.3f, \"min_ms\": %.3f, \"max_ms\": %.3f, \"reps\": %d}\n",
          c.name, op, provider ? provider : "auto", 1e3 * t[t.size() / 2], 1e3 * t.front(),
          1e3 * t.back(), reps);
      std::fflush(stdout);
    }
  }
}
