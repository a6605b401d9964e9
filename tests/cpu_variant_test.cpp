// Each CPU kernel variant computes the baseline's bits (Note [CPU kernel variants]). One process
// per variant, as the variant is chosen once per process: `cpu_variant_test write FILE` under
// EAGLE_CPU_VARIANT=baseline records every case's output bytes; `cpu_variant_test compare FILE`
// under another variant checks them. Exits 77 (skipped) when this CPU lacks the variant.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_variant.hpp"
#include "eagle/eagle.hpp"

namespace {

// Inputs with signs, magnitudes from 1e-3 to 1e3, zeros, and NaN/inf at a few places.
std::vector<float> inputs(std::int64_t n, std::uint32_t seed, bool specials) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    const float u = static_cast<float>(s >> 8) / 16777216.0f;  // [0, 1)
    x = (u - 0.5f) * static_cast<float>(1 << ((s >> 3) % 11)) / 8.0f;
  }
  if (specials && n > 40) {
    v[3] = 0.0f;
    v[17] = -0.0f;
    v[29] = std::numeric_limits<float>::infinity();
    v[31] = std::numeric_limits<float>::quiet_NaN();
  }
  return v;
}

struct Case {
  std::string name;
  eagle::Tensor value;
};

std::vector<Case> cases() {
  using eagle::Shape;
  using eagle::Tensor;
  std::vector<Case> out;
  // Sizes with vector tails; 70000 elements cross the intra-op split.
  for (std::int64_t n : {1, 7, 33, 1031, 70001}) {
    const Tensor a = eagle::constant(inputs(n, 1, true), Shape{n});
    const Tensor b = eagle::constant(inputs(n, 2, false), Shape{n});
    const Tensor pos = eagle::abs(b) + eagle::constant(0.5f);
    const std::string s = std::to_string(n);
    out.push_back({"add" + s, a + b});
    out.push_back({"axpy" + s, eagle::constant(1.75f) * a + b});
    out.push_back({"sub" + s, a - b});
    out.push_back({"mul" + s, a * b});
    out.push_back({"div" + s, a / pos});
    out.push_back({"max" + s, eagle::maximum(a, b)});
    out.push_back({"exp" + s, eagle::exp(b)});
    out.push_back({"log" + s, eagle::log(pos)});
    out.push_back({"sqrt" + s, eagle::sqrt(pos)});
    out.push_back({"tanh" + s, eagle::tanh(b)});
    out.push_back({"sigmoid" + s, eagle::sigmoid(b)});
    out.push_back({"less" + s, eagle::less(a, b)});
    out.push_back({"sum" + s, eagle::reduce_sum(a)});
    out.push_back({"sum_b" + s, eagle::reduce_sum(b)});
    out.push_back({"mean" + s, eagle::reduce_mean(b)});
    out.push_back({"reduce_max" + s, eagle::reduce_max(a)});
    out.push_back({"argmax" + s, eagle::argmax(b, 0)});
    out.push_back({"f64_add" + s, eagle::cast(a, eagle::DType::kFloat64) *
                                      eagle::cast(b, eagle::DType::kFloat64)});
    out.push_back(
        {"i32_add" + s, eagle::cast(b * eagle::constant(100.0f), eagle::DType::kInt32) +
                            eagle::cast(a * eagle::constant(7.0f), eagle::DType::kInt32)});
    out.push_back({"f16_mul" + s, eagle::cast(a, eagle::DType::kFloat16) *
                                      eagle::cast(b, eagle::DType::kFloat16)});
    out.push_back({"bf16_sum" + s, eagle::reduce_sum(eagle::cast(b, eagle::DType::kBFloat16))});
  }
  // Matrices: broadcasting, reductions over either axis, softmax over rows.
  for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{3, 5}, {64, 129}, {300, 1000}}) {
    const Tensor m = eagle::constant(inputs(r * c, 3, false), Shape{r, c});
    const Tensor row = eagle::constant(inputs(c, 4, false), Shape{c});
    const Tensor col = eagle::constant(inputs(r, 5, false), Shape{r, 1});
    const std::string s = std::to_string(r) + "x" + std::to_string(c);
    out.push_back({"bcast_row" + s, m + row});
    out.push_back({"bcast_col" + s, m * col});
    out.push_back({"sum0_" + s, eagle::reduce_sum(m, 0)});
    out.push_back({"sum1_" + s, eagle::reduce_sum(m, 1)});
    out.push_back({"mean1_" + s, eagle::reduce_mean(m, 1)});
    out.push_back({"min0_" + s, eagle::reduce_min(m, 0)});
    out.push_back({"softmax" + s, eagle::softmax(m)});
    out.push_back({"softmax64_" + s, eagle::softmax(eagle::cast(m, eagle::DType::kFloat64))});
    out.push_back({"softmax_f16_" + s, eagle::softmax(eagle::cast(m, eagle::DType::kFloat16))});
  }
  // Narrow convolutions (Note [Narrow convolutions]): whole and partial vectors of channels.
  for (auto [c, o] : {std::pair<std::int64_t, std::int64_t>{1, 32}, {3, 20}}) {
    const Shape xs{2, 11, 10, c}, fs{3, 3, c, o};
    const Tensor x = eagle::constant(inputs(xs.num_elements(), 8, false), xs);
    const Tensor f = eagle::constant(inputs(fs.num_elements(), 9, false), fs);
    const eagle::nn::Conv2DOptions same{{1, 1}, "SAME"};
    const Tensor dy = eagle::constant(inputs(2 * 11 * 10 * o, 10, false), Shape{2, 11, 10, o});
    const std::string s = std::to_string(c) + "x" + std::to_string(o);
    out.push_back({"conv2d" + s, eagle::nn::conv2d(x, f, same)});
    out.push_back({"conv2d_dx" + s, eagle::nn::conv2d_backprop_input(xs, f, dy, same)});
    out.push_back({"conv2d_df" + s, eagle::nn::conv2d_backprop_filter(x, fs, dy, same)});
  }
  // Max pooling (Note [Direct max pooling]): disjoint and overlapping windows, whole and partial
  // vectors of channels.
  for (std::int64_t c : {32, 20}) {
    const Shape xs{2, 11, 10, c};
    const Tensor x = eagle::constant(inputs(xs.num_elements(), 11, true), xs);
    const eagle::nn::Pool2DOptions disjoint{{2, 2}}, overlapping{{3, 3}, {{2, 1}}, "SAME"};
    for (const auto& [name, pool] :
         {std::pair<std::string, eagle::nn::Pool2DOptions>{"max_pool2x2_", disjoint},
          {"max_pool3x3_", overlapping}}) {
      const Tensor y = eagle::nn::max_pool2d(x, pool);
      const Tensor dy = eagle::constant(inputs(y.num_elements(), 12, true), y.shape());
      out.push_back({name + std::to_string(c), y});
      out.push_back({name + "grad" + std::to_string(c), eagle::nn::max_pool_grad(x, y, dy, pool)});
    }
  }
  // The optimizers' fused updates (Keras 3's _Keras*, and TensorFlow's ResourceApply* through the
  // legacy classes): three steps each, the variable's value after.
  for (std::int64_t n : {7, 1031, 70001}) {
    const Tensor start = eagle::constant(inputs(n, 6, false), Shape{n});
    const Tensor grad = eagle::constant(inputs(n, 7, false), Shape{n});
    namespace opt = eagle::optimizers;
    opt::AdamOptions amsgrad;
    amsgrad.amsgrad = true;
    opt::RMSpropOptions centered;
    centered.momentum = 0.5;
    centered.centered = true;
    opt::SGDOptions nesterov;
    nesterov.momentum = 0.9;
    nesterov.nesterov = true;
    const std::vector<std::pair<std::string, std::shared_ptr<opt::Optimizer>>> optimizers = {
        {"adam", std::make_shared<opt::Adam>()},
        {"amsgrad", std::make_shared<opt::Adam>(amsgrad)},
        {"rmsprop", std::make_shared<opt::RMSprop>(centered)},
        {"sgd", std::make_shared<opt::SGD>(nesterov)},
        {"adagrad", std::make_shared<opt::Adagrad>()},
        {"legacy_adam", std::make_shared<opt::legacy::Adam>()},
        {"legacy_amsgrad", std::make_shared<opt::legacy::Adam>(amsgrad)},
        {"legacy_rmsprop", std::make_shared<opt::legacy::RMSprop>(centered)},
        {"legacy_adagrad", std::make_shared<opt::legacy::Adagrad>()}};
    for (auto& [name, optimizer] : optimizers) {
      eagle::Variable v(start);
      for (int step = 1; step <= 3; ++step) {
        optimizer->apply_gradients({{grad * eagle::constant(static_cast<float>(step)), v}});
      }
      out.push_back({name + std::to_string(n), v.read_value()});
    }
  }
  return out;
}

template <class T>
std::string bytes_as(const eagle::Tensor& t) {
  const std::vector<T> v = t.to_vector<T>();
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string bytes_of(const eagle::Tensor& t) {
  switch (t.dtype()) {
    case eagle::DType::kFloat32:
      return bytes_as<float>(t);
    case eagle::DType::kFloat64:
      return bytes_as<double>(t);
    case eagle::DType::kInt32:
      return bytes_as<std::int32_t>(t);
    case eagle::DType::kInt64:
      return bytes_as<std::int64_t>(t);
    case eagle::DType::kFloat16:
      return bytes_as<eagle::float16>(t);
    case eagle::DType::kBFloat16:
      return bytes_as<eagle::bfloat16>(t);
    case eagle::DType::kBool: {
      std::string b;
      for (bool x : t.to_vector<bool>()) b.push_back(x ? 1 : 0);
      return b;
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "write") != 0 && std::strcmp(argv[1], "compare") != 0 &&
                    std::strcmp(argv[1], "expect-error") != 0)) {
    std::cerr << "usage: cpu_variant_test write|compare|expect-error FILE|MESSAGE\n";
    return 2;
  }
  const std::string mode = argv[1];
  const char* env = std::getenv("EAGLE_CPU_VARIANT");
  const std::string want = env ? env : "";
  if (mode == "expect-error") {  // a bad EAGLE_CPU_VARIANT fails the first op, saying why
    try {
      (void)(eagle::constant(1.0f) + eagle::constant(2.0f));
    } catch (const eagle::InvalidArgumentError& e) {
      if (std::string(e.what()).find(argv[2]) != std::string::npos) return 0;
      std::cerr << "unexpected message: " << e.what() << "\n";
      return 1;
    }
    std::cerr << "EAGLE_CPU_VARIANT=" << want << " did not fail\n";
    return 1;
  }
  if (!want.empty() && !eagle::cpu::cpu_supports_variant(want)) {
    std::cout << "this CPU cannot run the " << want << " variant: skipped\n";
    return 77;
  }
  const std::vector<Case> all = cases();
  const std::string active = eagle::cpu::active_cpu_variant();
  if (!want.empty() && active != want) {
    std::cerr << "EAGLE_CPU_VARIANT=" << want << " but the " << active << " kernels run\n";
    return 1;
  }
  if (mode == "write") {
    std::ofstream f(argv[2], std::ios::binary);
    for (const Case& c : all) {
      const std::string b = bytes_of(c.value);
      const std::uint64_t size = b.size();
      f.write(reinterpret_cast<const char*>(&size), sizeof size);
      f.write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    std::cout << all.size() << " cases written by the " << active << " kernels\n";
    return f.good() ? 0 : 1;
  }
  std::ifstream f(argv[2], std::ios::binary);
  if (!f) {
    std::cerr << "cannot read " << argv[2] << "\n";
    return 1;
  }
  int failures = 0;
  for (const Case& c : all) {
    std::uint64_t size = 0;
    f.read(reinterpret_cast<char*>(&size), sizeof size);
    std::string expected(size, '\0');
    f.read(expected.data(), static_cast<std::streamsize>(size));
    if (!f || bytes_of(c.value) != expected) {
      std::cerr << c.name << ": the " << active << " kernels differ from the baseline\n";
      ++failures;
    }
  }
  std::cout << all.size() - failures << "/" << all.size() << " cases bit-identical (" << active
            << " vs baseline)\n";
  return failures == 0 ? 0 : 1;
}
