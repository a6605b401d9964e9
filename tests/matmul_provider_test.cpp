// The float32 matmul providers (Note [Matmul providers]): OpenBLAS and oneDNN against a float64
// loop and against each other, for every transpose pair, batch dimensions with broadcasting,
// size-0 and size-1 dimensions, products on both sides of oneDNN's threading threshold, the
// half-precision path and inputs that were transposed or sliced first; the choice from
// EAGLE_MATMUL_PROVIDER and its error. ctest runs this binary once per provider, forced by the
// environment variable, and once with auto.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cpu/matmul.hpp"
#include "eagle/eagle.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/onednn/onednn_matmul.hpp"
#endif

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using std::int64_t;

std::vector<float> random_floats(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

// Batch dims of a and b broadcast (NumPy rules); a is [..., m, k] ([..., k, m] when ta).
std::vector<double> reference(const std::vector<float>& a, const Shape& as,
                              const std::vector<float>& b, const Shape& bs, bool ta, bool tb,
                              const Shape& out) {
  const int ro = out.rank();
  const int64_t m = out[ro - 2], n = out[ro - 1];
  const int64_t k = ta ? as[as.rank() - 2] : as[as.rank() - 1];
  const int64_t batch = out.num_elements() / std::max<int64_t>(1, m * n);
  std::vector<double> c(static_cast<std::size_t>(out.num_elements()), 0.0);
  if (m * n == 0) return c;
  auto offset = [&](const Shape& s, int64_t t) {  // the batch offset of output batch t in s
    int64_t off = 0, stride = s[s.rank() - 2] * s[s.rank() - 1], rest = t;
    for (int d = ro - 3, sd = s.rank() - 3; d >= 0; --d, --sd) {
      const int64_t i = rest % out[d];
      rest /= out[d];
      if (sd < 0) continue;
      if (s[sd] != 1) off += i * stride;
      stride *= s[sd];
    }
    return off;
  };
  for (int64_t t = 0; t < batch; ++t) {
    const float* pa = a.data() + offset(as, t);
    const float* pb = b.data() + offset(bs, t);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += static_cast<double>(ta ? pa[p * m + i] : pa[i * k + p]) *
                 static_cast<double>(tb ? pb[j * k + p] : pb[p * n + j]);
        }
        c[static_cast<std::size_t>((t * m + i) * n + j)] = sum;
      }
    }
  }
  return c;
}

void check_close(const std::vector<float>& got, const std::vector<double>& want, int64_t k) {
  REQUIRE(got.size() == want.size());
  // float32 accumulation over k terms of magnitude < 1.
  const double tol = 1e-6 * static_cast<double>(std::max<int64_t>(k, 1)) + 1e-6;
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(static_cast<double>(got[i]) - want[i]) <= tol);
  }
}

struct Case {
  Shape a, b;  // as stored (already transposed where ta / tb)
  bool ta, tb;
  Shape out;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      // [m, k] x [k, n] with m, n, k from {0, 1, 7, 33}, and one above oneDNN's threading
      // threshold.
      for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{{7, 5, 33},
                                                                       {1, 33, 7},
                                                                       {33, 1, 7},
                                                                       {7, 33, 1},
                                                                       {1, 1, 1},
                                                                       {0, 5, 7},
                                                                       {5, 0, 7},
                                                                       {5, 7, 0},
                                                                       {256, 200, 240}}) {
        c.push_back(
            {ta ? Shape{k, m} : Shape{m, k}, tb ? Shape{n, k} : Shape{k, n}, ta, tb, Shape{m, n}});
      }
      // Batches: equal, broadcast on either side, a shared rank-2 operand, size-0 batch.
      const int64_t m = 6, n = 5, k = 4;
      auto sa = [&](std::vector<int64_t> batch) {
        batch.push_back(ta ? k : m);
        batch.push_back(ta ? m : k);
        return Shape(batch);
      };
      auto sb = [&](std::vector<int64_t> batch) {
        batch.push_back(tb ? n : k);
        batch.push_back(tb ? k : n);
        return Shape(batch);
      };
      c.push_back({sa({3}), sb({3}), ta, tb, Shape{3, m, n}});
      c.push_back({sa({2, 1}), sb({3}), ta, tb, Shape{2, 3, m, n}});
      c.push_back({sa({}), sb({2, 3}), ta, tb, Shape{2, 3, m, n}});
      c.push_back({sa({4}), sb({}), ta, tb, Shape{4, m, n}});
      c.push_back({sa({0}), sb({1}), ta, tb, Shape{0, m, n}});
    }
  }
  return c;
}

Tensor product(const Case& c, const std::vector<float>& a, const std::vector<float>& b) {
  return eagle::matmul(eagle::constant(a, c.a), eagle::constant(b, c.b), c.ta, c.tb);
}

// Restores the process's provider when a test that switches it ends.
struct ProviderScope {
  std::string saved = eagle::cpu::active_matmul_provider();
  ~ProviderScope() { eagle::cpu::set_matmul_provider(saved); }
};

}  // namespace

TEST_CASE("the matmul provider is the one asked for") {
  (void)eagle::zeros({1}, DType::kFloat32);  // the runtime registers its kernels
  const char* env = std::getenv("EAGLE_MATMUL_PROVIDER");
  const std::vector<std::string> built = eagle::cpu::built_matmul_providers();
  const std::string expected =
      env != nullptr && *env != '\0' && std::string(env) != "auto" ? env : built.back();
  CHECK(eagle::cpu::active_matmul_provider() == expected);
#if defined(EAGLE_WITH_ONEDNN)
  CHECK(built == std::vector<std::string>{"openblas", "onednn"});
#else
  CHECK(built == std::vector<std::string>{"openblas"});
#endif
}

TEST_CASE("EAGLE_MATMUL_PROVIDER names a built provider or auto") {
  const char* env = std::getenv("EAGLE_MATMUL_PROVIDER");
  const std::string saved = env != nullptr ? env : "";
  ::setenv("EAGLE_MATMUL_PROVIDER", "mkl", 1);
#if defined(EAGLE_WITH_ONEDNN)
  const std::string message =
      "EAGLE_MATMUL_PROVIDER=mkl: this build of eagle has the matmul providers openblas, onednn "
      "(or auto)";
#else
  const std::string message =
      "EAGLE_MATMUL_PROVIDER=mkl: this build of eagle has the matmul providers openblas (or auto)";
#endif
  CHECK_THROWS_MATCHES(eagle::cpu::choose_matmul_provider(), eagle::InvalidArgumentError,
                       Catch::Message(message));
  ::setenv("EAGLE_MATMUL_PROVIDER", "auto", 1);
  CHECK(eagle::cpu::choose_matmul_provider() == eagle::cpu::built_matmul_providers().back());
  ::setenv("EAGLE_MATMUL_PROVIDER", "openblas", 1);
  CHECK(eagle::cpu::choose_matmul_provider() == "openblas");
  if (env != nullptr) {
    ::setenv("EAGLE_MATMUL_PROVIDER", saved.c_str(), 1);
  } else {
    ::unsetenv("EAGLE_MATMUL_PROVIDER");
  }
  CHECK_THROWS_MATCHES(eagle::cpu::set_matmul_provider("mkl"), eagle::InvalidArgumentError,
                       Catch::Message("no matmul provider mkl in this build"));
}

TEST_CASE("float32 matmul matches a float64 loop for every transpose, batch and size") {
  auto scope = eagle::device("/CPU:0");
  unsigned seed = 1;
  for (const Case& c : cases()) {
    INFO("a " << c.a.to_string() << " b " << c.b.to_string() << " ta " << c.ta << " tb " << c.tb);
    const auto a = random_floats(c.a.num_elements(), seed++);
    const auto b = random_floats(c.b.num_elements(), seed++);
    const Tensor got = product(c, a, b);
    CHECK(got.shape() == c.out);
    const int64_t k = c.ta ? c.a[c.a.rank() - 2] : c.a[c.a.rank() - 1];
    check_close(got.to_vector<float>(), reference(a, c.a, b, c.b, c.ta, c.tb, c.out), k);
  }
}

TEST_CASE("every built matmul provider gives the float64 loop's values") {
  auto scope = eagle::device("/CPU:0");
  ProviderScope restore;
  for (const std::string& provider : eagle::cpu::built_matmul_providers()) {
    INFO("provider " << provider);
    eagle::cpu::set_matmul_provider(provider);
    CHECK(eagle::cpu::active_matmul_provider() == provider);
    unsigned seed = 100;
    for (const Case& c : cases()) {
      INFO("a " << c.a.to_string() << " b " << c.b.to_string() << " ta " << c.ta << " tb " << c.tb);
      const auto a = random_floats(c.a.num_elements(), seed++);
      const auto b = random_floats(c.b.num_elements(), seed++);
      const int64_t k = c.ta ? c.a[c.a.rank() - 2] : c.a[c.a.rank() - 1];
      check_close(product(c, a, b).to_vector<float>(), reference(a, c.a, b, c.b, c.ta, c.tb, c.out),
                  k);
    }
  }
}

TEST_CASE("matmul of transposed and sliced inputs and in half precision on every provider") {
  auto scope = eagle::device("/CPU:0");
  ProviderScope restore;
  const auto av = random_floats(9 * 12, 7);
  const auto bv = random_floats(10 * 9, 8);
  const Tensor a = eagle::constant(av, Shape{9, 12});
  const Tensor b = eagle::constant(bv, Shape{10, 9});
  // op(A) = A^T [12, 9] sliced to its first 8 rows; op(B) = B^T [9, 10].
  const Tensor a_t = eagle::slice(eagle::transpose(a), {0, 0}, {8, 9});
  const Tensor b_t = eagle::transpose(b);
  std::vector<float> a_dense(8 * 9), b_dense(9 * 10);
  for (int i = 0; i < 8; ++i)
    for (int p = 0; p < 9; ++p) a_dense[i * 9 + p] = av[p * 12 + i];
  for (int p = 0; p < 9; ++p)
    for (int j = 0; j < 10; ++j) b_dense[p * 10 + j] = bv[j * 9 + p];
  const std::vector<double> want =
      reference(a_dense, Shape{8, 9}, b_dense, Shape{9, 10}, false, false, Shape{8, 10});
  for (const std::string& provider : eagle::cpu::built_matmul_providers()) {
    INFO("provider " << provider);
    eagle::cpu::set_matmul_provider(provider);
    check_close(eagle::matmul(a_t, b_t).to_vector<float>(), want, 9);
    // float16 goes through the float32 GEMM and rounds once.
    const Tensor h =
        eagle::matmul(eagle::cast(a_t, DType::kFloat16), eagle::cast(b_t, DType::kFloat16));
    CHECK(h.dtype() == DType::kFloat16);
    const std::vector<float> hf = eagle::cast(h, DType::kFloat32).to_vector<float>();
    for (std::size_t i = 0; i < hf.size(); ++i) {
      INFO("element " << i);
      CHECK(std::abs(hf[i] - want[i]) <= 2e-2);  // float16 inputs and output
    }
  }
}

#if defined(EAGLE_WITH_ONEDNN)
TEST_CASE("oneDNN sgemm equals OpenBLAS on both sides of its threading threshold") {
  // Direct calls, every transpose pair: the small product runs on one thread, the large one on
  // eagle's intra-op threads.
  for (const int64_t size : {int64_t{20}, int64_t{240}}) {
    const int64_t m = size, n = size + 3, k = size + 5;
    REQUIRE((size == 20) == (m * n * k < eagle::cpu::onednn::kMinThreadedMultiplyAdds));
    const auto a = random_floats(m * k, 11);
    const auto b = random_floats(k * n, 12);
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        INFO("size " << size << " ta " << ta << " tb " << tb);
        std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
        eagle::cpu::onednn::sgemm(ta, tb, m, n, k, a.data(), b.data(), c.data());
        const Shape as = ta ? Shape{k, m} : Shape{m, k};
        const Shape bs = tb ? Shape{n, k} : Shape{k, n};
        check_close(c, reference(a, as, b, bs, ta, tb, Shape{m, n}), k);
      }
    }
  }
}
#endif
