// OpInfo entries of the linear algebra ops: MatMul, BatchMatMulV2, AddN, Einsum, Softmax
// (Note [OpInfo table]).
#include <cmath>
#include <limits>

#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using V = const Inputs&;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Shape matrix_shape(std::vector<std::int64_t> batch, std::int64_t rows, std::int64_t cols,
                   bool transposed) {
  batch.push_back(transposed ? cols : rows);
  batch.push_back(transposed ? rows : cols);
  return Shape(batch);
}

struct Mkn {
  std::int64_t m, k, n;
};

// One matmul sample: `tf32` switches TensorFlow's TF32 mode on around the call.
Sample matmul_sample(const Tensor& a, const Tensor& b, bool ta, bool tb, bool tf32, DType d) {
  return {a.shape().to_string() + " @ " + b.shape().to_string() + (ta ? " ta" : "") +
              (tb ? " tb" : "") + (tf32 ? " TF32" : ""),
          {a, b},
          [ta, tb, tf32](V x) {
            const Tf32 mode(tf32);
            return eagle::matmul(x[0], x[1], ta, tb);
          },
          matmul_tol(d, tf32, matmul_magnitudes(a, b, ta, tb))};
}

OpInfo matmul_info() {
  OpInfo e{opdefs::OpId::kMatMul};
  e.call = [](V x) { return eagle::matmul(x[0], x[1]); };
  e.samples = [](DType d) {
    const std::vector<Mkn> sizes = {{1, 1, 1},    {1, 7, 1},       {3, 5, 2},    {17, 33, 65},
                                    {64, 64, 64}, {128, 128, 128}, {1, 1025, 1}, {257, 1, 129},
                                    {0, 4, 3},    {3, 0, 4},       {4, 3, 0},    {513, 513, 513}};
    std::vector<Sample> out;
    for (bool tf32 : {false, true}) {
      if (tf32 && d != DType::kFloat32) continue;  // TF32 concerns float32 only
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const Mkn& s = sizes[i];
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          if (s.m == 513 && t != 0 && t != 3) continue;  // the large case: two combinations
          const Tensor a = make(d, matrix_shape({}, s.m, s.k, ta), Domain::kUnit, seed_of(i, t, 1));
          const Tensor b = make(d, matrix_shape({}, s.k, s.n, tb), Domain::kUnit, seed_of(i, t, 2));
          out.push_back(matmul_sample(a, b, ta, tb, tf32, d));
        }
      }
    }
    return out;
  };
  e.errors = [] {
    const Tensor m23 = eagle::zeros({2, 3});
    const Tensor m32 = eagle::zeros({3, 2});
    const Tensor b2 = eagle::constant({true, false, true, false}, Shape{2, 2});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([m32] { eagle::matmul(eagle::zeros({3}), m32); },
                                     "In[0] ndims must be >= 2 [Op:MatMul]"),
        raises<InvalidArgumentError>([m23] { eagle::matmul(m23, eagle::zeros({3})); },
                                     "In[1] ndims must be >= 2 [Op:MatMul]"),
        raises<InvalidArgumentError>(
            [] { eagle::matmul(eagle::constant(1.0), eagle::constant(1.0)); },
            "In[0] ndims must be >= 2 [Op:MatMul]"),
        raises<InvalidArgumentError>(
            [m23] { eagle::matmul(m23, m23); },
            "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]"),
        raises<InvalidArgumentError>(
            [m23, m32] { eagle::matmul(m23, m32, true, false); },
            "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2] [Op:MatMul]"),
        raises<InvalidArgumentError>(
            [m23, m32] { eagle::matmul(m23, m32, false, true); },
            "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2] [Op:MatMul]"),
        raises<InvalidArgumentError>(
            [m23] {
              eagle::matmul(m23, eagle::zeros({3, 2}, DType::kFloat64));
            },
            "cannot compute MatMul as input #1(zero-based) was expected to be a float tensor "
            "but is a double tensor [Op:MatMul]"),
        raises<InvalidArgumentError>([b2] { eagle::matmul(b2, b2); },
                                     not_allowed("MatMul", "bool", kNumericTexts)),
    };
  };
  e.gradients = {
      {"matmul", {{Shape{2, 3}}, {Shape{3, 4}}}, e.call},
      {"matmul transpose_a",
       {{Shape{3, 2}}, {Shape{3, 4}}},
       [](V x) { return eagle::matmul(x[0], x[1], true, false); }},
      {"matmul transpose_b",
       {{Shape{2, 3}}, {Shape{4, 3}}},
       [](V x) { return eagle::matmul(x[0], x[1], false, true); }},
      {"matmul both transposed",
       {{Shape{3, 2}}, {Shape{4, 3}}},
       [](V x) { return eagle::matmul(x[0], x[1], true, true); }},
  };
  return e;
}

OpInfo batch_matmul_info() {
  OpInfo e{opdefs::OpId::kBatchMatMulV2};
  e.call = [](V x) { return eagle::matmul(x[0], x[1]); };
  e.samples = [](DType d) {
    struct Batched {
      std::vector<std::int64_t> a, b;
      Mkn mkn;
    };
    const std::vector<Batched> batched = {
        {{2, 1}, {3}, {5, 7, 3}}, {{2, 1}, {3}, {17, 33, 9}}, {{4}, {}, {6, 5, 7}},
        {{}, {4}, {6, 5, 7}},     {{1}, {6}, {8, 16, 4}},     {{2, 3}, {2, 3}, {7, 9, 11}},
        {{0}, {0}, {3, 4, 5}},    {{2}, {2}, {0, 4, 5}},      {{3}, {1}, {33, 65, 17}}};
    std::vector<Sample> out;
    for (bool tf32 : {false, true}) {
      if (tf32 && d != DType::kFloat32) continue;
      for (std::size_t i = 0; i < batched.size(); ++i) {
        const Batched& c = batched[i];
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          const Tensor a =
              make(d, matrix_shape(c.a, c.mkn.m, c.mkn.k, ta), Domain::kUnit, seed_of(i, t, 3));
          const Tensor b =
              make(d, matrix_shape(c.b, c.mkn.k, c.mkn.n, tb), Domain::kUnit, seed_of(i, t, 4));
          out.push_back(matmul_sample(a, b, ta, tb, tf32, d));
        }
      }
    }
    return out;
  };
  e.errors = [] {
    const Tensor m32 = eagle::zeros({3, 2});
    const Tensor b2 = eagle::constant({true, false, true, false}, Shape{2, 2});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::matmul(eagle::zeros({3}), eagle::zeros({2, 3, 4}));
            },
            "In[0] ndims must be >= 2 [Op:BatchMatMulV2]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::matmul(eagle::zeros({2, 2, 3}), eagle::zeros({2, 4, 3}));
            },
            "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,3] [Op:BatchMatMulV2]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::matmul(eagle::zeros({2, 2, 3}), eagle::zeros({3, 3, 4}));
            },
            "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4] "
            "[Op:BatchMatMulV2]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::matmul(eagle::zeros({4, 2, 2, 3}), eagle::zeros({3, 3, 4}));
            },
            "In[0] and In[1] must have compatible batch dimensions: [4,2,2,3] vs. [3,3,4] "
            "[Op:BatchMatMulV2]"),
        raises<InvalidArgumentError>(
            [m32] {
              eagle::matmul(eagle::zeros({1, 2, 3}, DType::kInt32), m32);
            },
            "cannot compute BatchMatMulV2 as input #1(zero-based) was expected to be a int32 "
            "tensor but is a float tensor [Op:BatchMatMulV2]"),
        raises<InvalidArgumentError>(
            [b2] {
              eagle::matmul(eagle::reshape(b2, {1, 2, 2}), b2);
            },
            not_allowed("BatchMatMulV2", "bool", kNumericTexts)),
    };
  };
  e.gradients = {
      {"batch matmul broadcast", {{Shape{2, 2, 3}}, {Shape{3, 2}}}, e.call},
      {"batch matmul size-1 batch", {{Shape{1, 2, 3}}, {Shape{2, 3, 2}}}, e.call},
  };
  return e;
}

OpInfo add_n_info() {
  OpInfo e{opdefs::OpId::kAddN};
  e.call = [](V x) { return eagle::add_n(x); };
  e.samples = [](DType d) {
    const Domain domain = eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral;
    const auto tol = [d](const Inputs& inputs) {
      std::vector<Tensor> magnitudes;
      for (const Tensor& x : inputs) magnitudes.push_back(abs64(x));
      const Tensor scale = eagle::with_device("/CPU:0", [&] { return eagle::add_n(magnitudes); });
      return sum_tol(d, static_cast<std::int64_t>(inputs.size()), scale);
    };
    std::vector<Sample> out;
    Inputs inputs;
    for (int n = 1; n <= 20; ++n) {
      inputs.push_back(make(d, {33, 31}, domain, seed_of(n, 6)));
      out.push_back({std::to_string(n) + " inputs of [33,31]", inputs, {}, tol(inputs)});
    }
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{7}, Shape{65537}, Shape{2, 0, 3}}) {
      Inputs three;
      for (int i = 0; i < 3; ++i) three.push_back(make(d, shape, domain, seed_of(i, 7), true));
      out.push_back({"3 inputs of " + shape.to_string(), three, {}, tol(three)});
    }
    return out;
  };
  e.errors = [] {
    const Tensor a = eagle::zeros({2});
    const Tensor b = eagle::constant({true, false});
    const Tensor x = eagle::zeros({2, 2});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] { eagle::add_n({}); },
            "List argument 'inputs' to 'AddN' Op with length 0 shorter than minimum length 1 "
            "[Op:AddN]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::add_n({a, eagle::zeros({3})});
            },
            "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3] "
            "[Op:AddN]"),
        // No broadcasting in add_n.
        raises<InvalidArgumentError>(
            [a] {
              eagle::add_n({a, a, eagle::zeros({1})});
            },
            "Shapes of all inputs must match: values[0].shape = [2] != values[2].shape = [1] "
            "[Op:AddN]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::add_n({a, a, eagle::zeros({2}, DType::kInt32)});
            },
            "cannot compute AddN as input #2(zero-based) was expected to be a float tensor but "
            "is a int32 tensor [Op:AddN]"),
        raises<InvalidArgumentError>(
            [b] {
              eagle::add_n({b, b});
            },
            not_allowed("AddN", "bool", kNumberTypesTexts)),
        raises<InvalidArgumentError>(
            [x] {
              eagle::add_n({x, x, Tensor()});
            },
            undefined_input(2, "AddN")),
    };
  };
  e.gradients = {{"add_n", {{Shape{2, 3}}, {Shape{2, 3}}, {Shape{2, 3}}}, e.call}};
  return e;
}

OpInfo softmax_info() {
  OpInfo e{opdefs::OpId::kSoftmax};
  e.call = [](V x) { return eagle::softmax(x[0]); };
  e.samples = [](DType d) {
    struct Case {
      Shape shape;
      double scale;  // logits are kWide values times this
    };
    const std::vector<Case> cases = {
        {{1}, 1},
        {{7, 1}, 1},
        {{5, 33}, 1},
        {{3, 1025}, 1},
        {{4097}, 1},
        {{2, 3, 33}, 1},
        {{0, 5}, 1},
        {{5, 0}, 1},
        {{4, 33}, 1000},
        {{3, 1025}, 500},
        {{2, 7}, 1e-3},
        // Longer than the CUDA kernel keeps in shared memory (44 KB of float or double).
        {{2, 12289}, 1}};
    std::vector<Sample> out;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const Shape& shape = cases[c].shape;
      const Tensor wide = make(d, shape, Domain::kWide, seed_of(c, 8));
      const Tensor x =
          eagle::with_device("/CPU:0", [&] { return wide * make_values(d, {cases[c].scale}, {}); });
      // The row sum adds n positive terms: the length-scaled part of sum_tol, relative to the
      // value itself (the sum of magnitudes of the probabilities is 1).
      Tol tol = float_tol(d);
      const std::int64_t n = shape.rank() ? shape[shape.rank() - 1] : 1;
      tol.rel += accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(n)));
      out.push_back({shape.to_string() + " logits times " + show(cases[c].scale), {x}, {}, tol});
    }
    // Rows: all equal; one -inf; all -inf (NaN row); a NaN (NaN row); a +inf (NaN row, as the
    // CPU computes inf - inf); one huge logit.
    std::vector<double> rows(6 * 33, 0.5);
    rows[1 * 33 + 3] = -kInf;
    for (int i = 0; i < 33; ++i) rows[static_cast<std::size_t>(2 * 33 + i)] = -kInf;
    rows[3 * 33 + 32] = kNaN;
    rows[4 * 33 + 7] = kInf;
    rows[5 * 33 + 20] = 60000;
    out.push_back({"special rows", {make_values(d, rows, {6, 33})}});
    return out;
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::softmax(eagle::constant(1.0)); },
                                     "logits must have >= 1 dimension, got shape [] [Op:Softmax]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::softmax(eagle::constant({1, 2}));
            },
            not_allowed("Softmax", "int32", kSoftmaxTexts)),
    };
  };
  e.gradients = {{"softmax", {{Shape{2, 4}}}, e.call}};
  return e;
}

OpInfo einsum_info() {
  OpInfo e{opdefs::OpId::kEinsum};
  e.call = [](V x) { return eagle::einsum("ij,jk->ik", x); };
  e.samples = [](DType d) {
    const Tol tol = d == DType::kFloat32   ? within(1e-5, 1e-5)
                    : d == DType::kFloat64 ? within(1e-12, 1e-12)
                    : d == DType::kFloat16 ? within(4e-3, 4e-3)
                                           : within(3e-2, 3e-2);
    const Tensor a = make(d, {4, 5, 6}, Domain::kUnit, 37);
    const Tensor b = make(d, {4, 6, 3}, Domain::kUnit, 38);
    const Tensor m = make(d, {6, 6}, Domain::kUnit, 39);
    const Tensor v = make(d, {2, 1, 5, 6}, Domain::kUnit, 40);
    const Tensor bt = eagle::with_device("/CPU:0", [&] { return eagle::transpose(b, {0, 2, 1}); });
    const Tensor m0 = eagle::with_device("/CPU:0", [&] { return m[0]; });
    const Tensor m1 = eagle::with_device("/CPU:0", [&] { return m[1]; });
    const std::vector<std::pair<std::string, Inputs>> cases = {{"ij,jk->ik", {m, m}},
                                                               {"bij,bjk->bik", {a, b}},
                                                               {"bij,bkj->bki", {a, bt}},
                                                               {"bij,bjk->kib", {a, b}},
                                                               {"ijk->kji", {a}},
                                                               {"ijk->j", {a}},
                                                               {"ii->i", {m}},
                                                               {"ii", {m}},
                                                               {"bij,jk->bik", {a, m}},
                                                               {"...ij,bjk->...bik", {v, b}},
                                                               {"ij,ij->", {m, m}},
                                                               {"bij,bij->bi", {a, a}},
                                                               {"i,j->ij", {m0, m1}}};
    std::vector<Sample> out;
    for (const auto& [eq, ins] : cases) {
      const std::string equation = eq;
      out.push_back({eq, ins, [equation](V x) { return eagle::einsum(equation, x); }, tol});
    }
    return out;
  };
  e.gradients = {
      {"einsum matmul", {{Shape{2, 3}}, {Shape{3, 4}}}, e.call},
      {"einsum outer summed label",
       {{Shape{2, 3}}, {Shape{4}}},
       [](V x) { return eagle::einsum("ij,k->k", x); }},
      {"einsum ellipsis broadcast",
       {{Shape{2, 1, 2, 3}}, {Shape{5, 3, 2}}},
       [](V x) { return eagle::einsum("...ij,...jk->...ik", x); }},
      {"einsum transpose", {{Shape{2, 3, 4}}}, [](V x) { return eagle::einsum("abc->cb", x); }},
  };
  return e;
}

}  // namespace

std::vector<OpInfo> linalg_op_infos() {
  return {matmul_info(), batch_matmul_info(), add_n_info(), einsum_info(), softmax_info()};
}

}  // namespace eagle_test
