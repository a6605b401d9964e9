// OpInfo entries of the elementwise ops: binary arithmetic and comparisons, unary math, Cast and
// the fused activation gradients (Note [OpInfo table]).
#include <cmath>
#include <limits>
#include <map>

#include "autodiff/grad_ops.hpp"
#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using eagle::InvalidArgumentError;
using V = const Inputs&;

// ---- Binary -------------------------------------------------------------------------------------

// Shape pairs of the binary samples: equal shapes, and every broadcasting corner.
std::vector<std::pair<Shape, Shape>> binary_shape_pairs() {
  std::vector<std::pair<Shape, Shape>> pairs;
  for (const Shape& s : elementwise_shapes()) pairs.push_back({s, s});
  for (const auto& p : std::vector<std::pair<Shape, Shape>>{{{3, 1}, {1, 4}},
                                                            {{5, 4}, {4}},
                                                            // Rows of whole 16-byte packs for
                                                            // every dtype, either side (the
                                                            // CUDA row-broadcast kernel).
                                                            {{32}, {6, 32}},
                                                            {{3, 2, 32}, {32}},
                                                            {{}, {2, 3}},
                                                            {{2, 3}, {}},
                                                            {{2, 1, 3}, {4, 1}},
                                                            {{0, 3}, {1, 3}},
                                                            {{4, 1, 5}, {1, 3, 1}},
                                                            {{1}, {7}},
                                                            {{33, 1}, {1, 65}},
                                                            {{1023}, {1}},
                                                            {{2, 1, 4097}, {3, 1}}}) {
    pairs.push_back(p);
  }
  return pairs;
}

enum class BinaryKind { kArithmetic, kComparison, kDivision, kPow, kLogical };

// The errors every binary op raises the same way: incompatible shapes, mismatched dtypes.
std::vector<ErrorCase> binary_errors(opdefs::OpId op, Call call) {
  const std::string name = str(op);
  const std::string suffix = " [Op:" + name + "]";
  const auto run = [call](Tensor x, Tensor y) { return [call, x, y] { call({x, y}); }; };
  const std::string head =
      "cannot compute " + name + " as input #1(zero-based) was expected to be a ";
  const auto z = [](const Shape& s, DType d = DType::kFloat32) { return eagle::zeros(s, d); };
  return {
      raises<InvalidArgumentError>(run(z({2, 3}), z({4})),
                                   "Incompatible shapes: [2,3] vs. [4]" + suffix),
      raises<InvalidArgumentError>(run(z({3, 2}), z({2, 3})),
                                   "Incompatible shapes: [3,2] vs. [2,3]" + suffix),
      raises<InvalidArgumentError>(run(z({0}), z({2})),
                                   "Incompatible shapes: [0] vs. [2]" + suffix),
      raises<InvalidArgumentError>(run(z({2, 1, 3}), z({4, 2})),
                                   "Incompatible shapes: [2,1,3] vs. [4,2]" + suffix),
      raises<InvalidArgumentError>(run(z({2}), z({2}, DType::kInt32)),
                                   head + "float tensor but is a int32 tensor" + suffix),
      raises<InvalidArgumentError>(run(z({2}, DType::kFloat64), z({2}, DType::kFloat16)),
                                   head + "double tensor but is a half tensor" + suffix),
      raises<InvalidArgumentError>(run(z({2}, DType::kInt64), z({2}, DType::kBFloat16)),
                                   head + "int64 tensor but is a bfloat16 tensor" + suffix),
      raises<InvalidArgumentError>(run(z({2}, DType::kBool), z({2}, DType::kInt32)),
                                   head + "bool tensor but is a int32 tensor" + suffix),
      // The dtype check comes before the shape check.
      raises<InvalidArgumentError>(run(z({2, 3}), z({4}, DType::kFloat64)),
                                   head + "float tensor but is a double tensor" + suffix),
  };
}

OpInfo binary_info(opdefs::OpId op, BinaryKind kind, Call call) {
  OpInfo e{op};
  e.call = call;
  if (kind == BinaryKind::kComparison || kind == BinaryKind::kLogical) e.tolerance = exact_tol;
  e.samples = [op, kind](DType d) {
    Domain dx = Domain::kGeneral, dy = Domain::kGeneral;
    if (kind == BinaryKind::kComparison) {
      dx = dy = Domain::kSmall;
    } else if (kind == BinaryKind::kPow) {
      dx = eagle::is_floating(d) ? Domain::kPositive : Domain::kUnit;
      dy = Domain::kExponent;
    } else if (kind == BinaryKind::kDivision && !eagle::is_floating(d)) {
      dy = Domain::kPositive;  // [1, 1000], no specials: never 0 (Note [Integer division by zero])
    }
    const auto pairs = binary_shape_pairs();
    std::vector<Sample> out;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto& [sx, sy] = pairs[p];
      out.push_back({sx.to_string() + " and " + sy.to_string(),
                     {make(d, sx, dx, seed_of(static_cast<int>(op), p, 1), true),
                      make(d, sy, dy, seed_of(static_cast<int>(op), p, 2), true)}});
    }
    return out;
  };
  if (kind != BinaryKind::kLogical) {
    e.errors = [op, call] { return binary_errors(op, call); };
  }
  return e;
}

// Adds `more` after the errors `e` already has.
void add_errors(OpInfo& e, std::function<std::vector<ErrorCase>()> more) {
  auto before = e.errors;
  e.errors = [before, more] {
    std::vector<ErrorCase> all = before ? before() : std::vector<ErrorCase>{};
    for (ErrorCase& c : more()) all.push_back(std::move(c));
    return all;
  };
}

// `call` on one input of `dtype` must fail: the op's definition does not allow the dtype.
ErrorCase dtype_not_allowed(opdefs::OpId op, Call call, DType dtype, const std::string& tf_dtype,
                            const std::string& allowed) {
  const Tensor x = eagle::constant(std::vector<double>{1, 2}, Shape{2});
  return raises<InvalidArgumentError>([call, x, dtype] { call({eagle::cast(x, dtype)}); },
                                      not_allowed(str(op), tf_dtype, allowed));
}

std::vector<OpInfo> binary_infos() {
  using K = BinaryKind;
  std::vector<OpInfo> out = {
      binary_info(opdefs::OpId::kAddV2, K::kArithmetic, [](V x) { return eagle::add(x[0], x[1]); }),
      binary_info(opdefs::OpId::kSub, K::kArithmetic,
                  [](V x) { return eagle::subtract(x[0], x[1]); }),
      binary_info(opdefs::OpId::kMul, K::kArithmetic,
                  [](V x) { return eagle::multiply(x[0], x[1]); }),
      binary_info(opdefs::OpId::kRealDiv, K::kArithmetic,
                  [](V x) { return eagle::divide(x[0], x[1]); }),
      binary_info(opdefs::OpId::kMaximum, K::kArithmetic,
                  [](V x) { return eagle::maximum(x[0], x[1]); }),
      binary_info(opdefs::OpId::kMinimum, K::kArithmetic,
                  [](V x) { return eagle::minimum(x[0], x[1]); }),
      binary_info(opdefs::OpId::kPow, K::kPow, [](V x) { return eagle::pow(x[0], x[1]); }),
      binary_info(opdefs::OpId::kEqual, K::kComparison,
                  [](V x) { return eagle::equal(x[0], x[1]); }),
      binary_info(opdefs::OpId::kNotEqual, K::kComparison,
                  [](V x) { return eagle::not_equal(x[0], x[1]); }),
      binary_info(opdefs::OpId::kLess, K::kComparison, [](V x) { return eagle::less(x[0], x[1]); }),
      binary_info(opdefs::OpId::kLessEqual, K::kComparison,
                  [](V x) { return eagle::less_equal(x[0], x[1]); }),
      binary_info(opdefs::OpId::kGreater, K::kComparison,
                  [](V x) { return eagle::greater(x[0], x[1]); }),
      binary_info(opdefs::OpId::kGreaterEqual, K::kComparison,
                  [](V x) { return eagle::greater_equal(x[0], x[1]); }),
      binary_info(opdefs::OpId::kFloorDiv, K::kDivision,
                  [](V x) { return eagle::floordiv(x[0], x[1]); }),
      binary_info(opdefs::OpId::kFloorMod, K::kDivision,
                  [](V x) { return eagle::floormod(x[0], x[1]); }),
      binary_info(opdefs::OpId::kTruncateDiv, K::kDivision,
                  [](V x) { return eagle::truncatediv(x[0], x[1]); }),
      binary_info(opdefs::OpId::kTruncateMod, K::kDivision,
                  [](V x) { return eagle::truncatemod(x[0], x[1]); }),
      binary_info(opdefs::OpId::kSquaredDifference, K::kArithmetic,
                  [](V x) { return eagle::squared_difference(x[0], x[1]); }),
      binary_info(opdefs::OpId::kLogicalAnd, K::kLogical,
                  [](V x) { return eagle::logical_and(x[0], x[1]); }),
      binary_info(opdefs::OpId::kLogicalOr, K::kLogical,
                  [](V x) { return eagle::logical_or(x[0], x[1]); }),
  };
  std::map<opdefs::OpId, OpInfo*> by_op;
  for (OpInfo& e : out) by_op[e.op] = &e;
  const auto bool_refused = [](opdefs::OpId op, Call call, const std::string& allowed) {
    return [op, call, allowed] {
      const Tensor b = eagle::constant({true, false});
      return std::vector<ErrorCase>{raises<InvalidArgumentError>(
          [call, b] {
            call({b, b});
          },
          not_allowed(str(op), "bool", allowed))};
    };
  };
  for (opdefs::OpId op :
       {opdefs::OpId::kAddV2, opdefs::OpId::kSub, opdefs::OpId::kMul, opdefs::OpId::kMaximum,
        opdefs::OpId::kMinimum, opdefs::OpId::kPow, opdefs::OpId::kLess, opdefs::OpId::kLessEqual,
        opdefs::OpId::kGreater, opdefs::OpId::kGreaterEqual}) {
    add_errors(*by_op[op], bool_refused(op, by_op[op]->call, kNumericTexts));
  }
  add_errors(
      *by_op[opdefs::OpId::kRealDiv],
      bool_refused(opdefs::OpId::kRealDiv, by_op[opdefs::OpId::kRealDiv]->call, kFloatingTexts));
  // The operators, tensor-scalar forms included, raise under the op's name.
  add_errors(*by_op[opdefs::OpId::kAddV2], [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::zeros({2}) + eagle::zeros({3}); },
                                     "Incompatible shapes: [2] vs. [3] [Op:AddV2]"),
        raises<InvalidArgumentError>([] { eagle::constant({true}) + 1; },
                                     not_allowed("AddV2", "bool", kNumericTexts)),
    };
  });
  add_errors(*by_op[opdefs::OpId::kLess], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::zeros({2}) < eagle::zeros({3}); },
                                     "Incompatible shapes: [2] vs. [3] [Op:Less]"),
        raises<InvalidArgumentError>([b] { b < b; }, not_allowed("Less", "bool", kNumericTexts)),
    };
  });
  add_errors(*by_op[opdefs::OpId::kLessEqual], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [b] { b <= b; }, not_allowed("LessEqual", "bool", kNumericTexts))};
  });
  add_errors(*by_op[opdefs::OpId::kGreater], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [b] { b > b; }, not_allowed("Greater", "bool", kNumericTexts))};
  });
  add_errors(*by_op[opdefs::OpId::kGreaterEqual], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [b] { b >= b; }, not_allowed("GreaterEqual", "bool", kNumericTexts))};
  });
  add_errors(*by_op[opdefs::OpId::kMul], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              -eagle::zeros({2}) * eagle::zeros({3, 1, 5});
            },
            "Incompatible shapes: [2] vs. [3,1,5] [Op:Mul]"),
        raises<InvalidArgumentError>([b] { b* b; }, not_allowed("Mul", "bool", kNumericTexts)),
    };
  });
  add_errors(*by_op[opdefs::OpId::kRealDiv], [] {
    return std::vector<ErrorCase>{
        // Integer division casts first; the shapes are still checked under RealDiv's name.
        raises<InvalidArgumentError>(
            [] {
              eagle::divide(eagle::constant({1, 2}), eagle::constant({1, 2, 3}));
            },
            "Incompatible shapes: [2] vs. [3] [Op:RealDiv]"),
        raises<InvalidArgumentError>([] { eagle::divide(eagle::constant({1}), Tensor()); },
                                     undefined_input(1, "RealDiv")),
    };
  });
  add_errors(*by_op[opdefs::OpId::kPow], [] {
    const std::string text = "Integers to negative integer powers are not allowed [Op:Pow]";
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::pow(eagle::constant({2, 3}), eagle::constant({1, -1}));
            },
            text),
        raises<InvalidArgumentError>(
            [] {
              eagle::pow(eagle::constant({1, 1}), eagle::constant(-2));
            },
            text),
        raises<InvalidArgumentError>(
            [] {
              eagle::pow(eagle::constant(std::vector<std::int64_t>{4}),
                         eagle::constant(std::vector<std::int64_t>{-3}));
            },
            text),
    };
  });

  // Finite differences (float64), broadcasting and size-1 dimensions included.
  const Shape s13{1, 3};
  const Shape s21{2, 1};
  by_op[opdefs::OpId::kAddV2]->gradients = {
      {"add broadcast", {{Shape{2, 3}}, {Shape{3}}}, [](V x) { return x[0] + x[1]; }},
      {"add size-1 broadcast", {{s21}, {s13}}, [](V x) { return x[0] + x[1]; }}};
  by_op[opdefs::OpId::kSub]->gradients = {
      {"sub broadcast", {{Shape{3}}, {Shape{2, 3}}}, [](V x) { return x[0] - x[1]; }}};
  by_op[opdefs::OpId::kMul]->gradients = {
      {"mul broadcast", {{Shape{2, 3}}, {s21}}, [](V x) { return x[0] * x[1]; }},
      {"size-0 dimension", {{Shape{0, 3}}, {Shape{3}}}, [](V x) { return x[0] * x[1]; }}};
  by_op[opdefs::OpId::kRealDiv]->gradients = {
      {"div broadcast", {{Shape{2, 3}}, {Shape{3}, GradDomain::kAwayFromZero}}, [](V x) {
         return x[0] / x[1];
       }}};
  by_op[opdefs::OpId::kMaximum]->gradients = {
      {"maximum", {{Shape{2, 3}}, {Shape{2, 3}}}, [](V x) { return eagle::maximum(x[0], x[1]); }}};
  by_op[opdefs::OpId::kMinimum]->gradients = {{"minimum broadcast",
                                               {{Shape{2, 3}}, {Shape{3}}},
                                               [](V x) { return eagle::minimum(x[0], x[1]); }}};
  by_op[opdefs::OpId::kPow]->gradients = {{"pow",
                                           {{Shape{2, 3}, GradDomain::kPositive}, {Shape{2, 3}}},
                                           [](V x) { return eagle::pow(x[0], x[1]); }}};
  by_op[opdefs::OpId::kFloorMod]->gradients = {
      {"floormod", {{Shape{2, 3}}, {Shape{2, 3}, GradDomain::kAwayFromZero}}, [](V x) {
         return eagle::floormod(x[0], x[1]);
       }}};
  by_op[opdefs::OpId::kSquaredDifference]->gradients = {
      {"squared_difference", {{Shape{2, 3}}, {Shape{3}}}, [](V x) {
         return eagle::squared_difference(x[0], x[1]);
       }}};
  return out;
}

// ---- Unary --------------------------------------------------------------------------------------

OpInfo unary_info(opdefs::OpId op, Call call, Domain domain = Domain::kGeneral,
                  bool exact = false) {
  OpInfo e{op};
  e.call = call;
  if (exact) e.tolerance = exact_tol;
  e.samples = [op, domain](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      out.push_back({shapes[s].to_string(),
                     {make(d, shapes[s], domain, seed_of(static_cast<int>(op), s, 3), true)}});
    }
    return out;
  };
  return e;
}

std::vector<OpInfo> unary_infos() {
  const Domain wide = Domain::kWide, positive = Domain::kPositive, general = Domain::kGeneral;
  std::vector<OpInfo> out = {
      unary_info(opdefs::OpId::kNeg, [](V x) { return eagle::negative(x[0]); }),
      unary_info(opdefs::OpId::kAbs, [](V x) { return eagle::abs(x[0]); }),
      unary_info(
          opdefs::OpId::kExp, [](V x) { return eagle::exp(x[0]); }, wide),
      unary_info(
          opdefs::OpId::kLog, [](V x) { return eagle::log(x[0]); }, positive),
      unary_info(
          opdefs::OpId::kSqrt, [](V x) { return eagle::sqrt(x[0]); }, positive),
      unary_info(opdefs::OpId::kSquare, [](V x) { return eagle::square(x[0]); }),
      unary_info(opdefs::OpId::kRelu, [](V x) { return eagle::relu(x[0]); }),
      unary_info(
          opdefs::OpId::kSigmoid, [](V x) { return eagle::sigmoid(x[0]); }, wide),
      unary_info(
          opdefs::OpId::kTanh, [](V x) { return eagle::tanh(x[0]); }, wide),
      unary_info(opdefs::OpId::kFloor, [](V x) { return eagle::floor(x[0]); }),
      unary_info(opdefs::OpId::kCeil, [](V x) { return eagle::ceil(x[0]); }),
      unary_info(opdefs::OpId::kRound, [](V x) { return eagle::round(x[0]); }),
      unary_info(opdefs::OpId::kSign, [](V x) { return eagle::sign(x[0]); }),
      unary_info(
          opdefs::OpId::kRsqrt, [](V x) { return eagle::rsqrt(x[0]); }, positive),
      unary_info(opdefs::OpId::kReciprocal, [](V x) { return eagle::reciprocal(x[0]); }),
      unary_info(
          opdefs::OpId::kLog1p, [](V x) { return eagle::log1p(x[0]); }, positive),
      unary_info(
          opdefs::OpId::kErf, [](V x) { return eagle::erf(x[0]); }, wide),
      unary_info(
          opdefs::OpId::kSin, [](V x) { return eagle::sin(x[0]); }, wide),
      unary_info(
          opdefs::OpId::kCos, [](V x) { return eagle::cos(x[0]); }, wide),
      unary_info(
          opdefs::OpId::kIsNan, [](V x) { return eagle::is_nan(x[0]); }, general, true),
      unary_info(
          opdefs::OpId::kIsInf, [](V x) { return eagle::is_inf(x[0]); }, general, true),
      unary_info(
          opdefs::OpId::kIsFinite, [](V x) { return eagle::is_finite(x[0]); }, general, true),
      unary_info(
          opdefs::OpId::kLogicalNot, [](V x) { return eagle::logical_not(x[0]); }, general, true),
  };
  std::map<opdefs::OpId, OpInfo*> by_op;
  for (OpInfo& e : out) by_op[e.op] = &e;
  // Dtypes the op's definition does not allow.
  const auto refuses = [&](opdefs::OpId op, std::vector<std::pair<DType, std::string>> dtypes,
                           const std::string& allowed) {
    const Call call = by_op[op]->call;
    by_op[op]->errors = [op, call, dtypes, allowed] {
      std::vector<ErrorCase> cases;
      for (const auto& [d, tf_name] : dtypes) {
        cases.push_back(dtype_not_allowed(op, call, d, tf_name, allowed));
      }
      return cases;
    };
  };
  refuses(opdefs::OpId::kExp, {{DType::kInt32, "int32"}, {DType::kBool, "bool"}}, kFloatingTexts);
  refuses(opdefs::OpId::kLog, {{DType::kInt64, "int64"}}, kFloatingTexts);
  refuses(opdefs::OpId::kSqrt, {{DType::kBool, "bool"}, {DType::kInt32, "int32"}}, kFloatingTexts);
  refuses(opdefs::OpId::kSigmoid, {{DType::kInt32, "int32"}}, kFloatingTexts);
  refuses(opdefs::OpId::kTanh, {{DType::kInt64, "int64"}}, kFloatingTexts);
  refuses(opdefs::OpId::kNeg, {{DType::kBool, "bool"}}, kNumericTexts);
  refuses(opdefs::OpId::kAbs, {{DType::kBool, "bool"}}, kNumericTexts);
  refuses(opdefs::OpId::kSquare, {{DType::kBool, "bool"}}, kNumericTexts);
  refuses(opdefs::OpId::kRelu, {{DType::kBool, "bool"}}, kNumberTypesTexts);
  add_errors(*by_op[opdefs::OpId::kNeg], [] {
    const Tensor b = eagle::constant({true, false});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([b] { -b; }, not_allowed("Neg", "bool", kNumericTexts))};
  });

  const auto grad = [&](opdefs::OpId op, GradDomain domain) {
    const Call call = by_op[op]->call;
    by_op[op]->gradients = {{str(op), {{Shape{2, 3}, domain}}, call}};
  };
  grad(opdefs::OpId::kNeg, GradDomain::kAny);
  grad(opdefs::OpId::kAbs, GradDomain::kAwayFromZero);
  grad(opdefs::OpId::kExp, GradDomain::kAny);
  grad(opdefs::OpId::kLog, GradDomain::kPositive);
  grad(opdefs::OpId::kSqrt, GradDomain::kPositive);
  grad(opdefs::OpId::kSquare, GradDomain::kAny);
  grad(opdefs::OpId::kRelu, GradDomain::kAwayFromZero);
  grad(opdefs::OpId::kSigmoid, GradDomain::kAny);
  grad(opdefs::OpId::kTanh, GradDomain::kAny);
  grad(opdefs::OpId::kSign, GradDomain::kAwayFromZero);  // zero, away from the jump
  grad(opdefs::OpId::kRsqrt, GradDomain::kPositive);
  grad(opdefs::OpId::kReciprocal, GradDomain::kAwayFromZero);
  grad(opdefs::OpId::kLog1p, GradDomain::kUnit);
  grad(opdefs::OpId::kErf, GradDomain::kAny);
  grad(opdefs::OpId::kSin, GradDomain::kAny);
  grad(opdefs::OpId::kCos, GradDomain::kAny);
  return out;
}

// ---- Cast ---------------------------------------------------------------------------------------

OpInfo cast_info() {
  OpInfo e{opdefs::OpId::kCast};
  e.call = [](V x) { return eagle::cast(x[0], DType::kInt32); };
  e.samples = [](DType from) {
    // Edge values: NaN and infinities, ties, the integer limits and just past them, float16
    // overflow and underflow, bfloat16's top. Float -> integer: NaN and out of range give the
    // lowest value (the CPU's rule, Note [Float to integer casts]). (No value lies between a
    // float32 rounding boundary and a float16 one: the CPU converts float64 -> float16 through
    // float32, a GPU may round once.)
    const std::vector<double> float_edges = {kNaN,
                                             kInf,
                                             -kInf,
                                             0.0,
                                             -0.0,
                                             0.5,
                                             -0.5,
                                             1.5,
                                             -1.5,
                                             2.5,
                                             -2.5,
                                             0.9999,
                                             255.0,
                                             256.0,
                                             -129.0,
                                             1e-8,
                                             3e-8,
                                             1e-5,
                                             65504.0,
                                             65519.0,
                                             65520.0,
                                             1e5,
                                             -65504.0,
                                             2147483520.0,
                                             2147483648.0,
                                             -2147483648.0,
                                             -2147483904.0,
                                             3e9,
                                             -3e9,
                                             9007199254740993.0,
                                             9.2233720368547758e18,
                                             -9.2233720368547758e18,
                                             1e19,
                                             -1e19,
                                             3.3e38,
                                             3.4e38,
                                             1e-40,
                                             123456.789};
    std::vector<Tensor> inputs;
    if (eagle::is_floating(from)) {
      inputs.push_back(
          make_values(from, float_edges, Shape{static_cast<std::int64_t>(float_edges.size())}));
      inputs.push_back(make(from, {4097}, Domain::kWide, seed_of(1, static_cast<int>(from))));
    } else if (from == DType::kBool) {
      inputs.push_back(make(from, {1023}, Domain::kGeneral, 5));
    } else {
      // Integers over their whole range, and moderate ones (|v| < 2^24 convert exactly to
      // float32, so int -> 16-bit float rounds once either way).
      inputs.push_back(
          make(from, {4097}, Domain::kGeneral, seed_of(2, static_cast<int>(from)), true));
      inputs.push_back(make(from, {1023}, Domain::kWide, seed_of(3, static_cast<int>(from))));
    }
    inputs.push_back(make(from, {3, 0}, Domain::kUnit, 1));
    inputs.push_back(make(from, {}, Domain::kUnit, 2));
    std::vector<Sample> out;
    for (DType to : all_dtypes()) {
      if (to == from) continue;
      for (const Tensor& x : inputs) {
        // Integer and bool outputs exactly; floating outputs within one unit in the last place
        // (int64 -> float16 and float64 -> float16 round twice on the CPU, maybe once on a GPU).
        out.push_back({"cast " + x.shape().to_string() + " to " + str(to),
                       {x},
                       [to](V in) { return eagle::cast(in[0], to); },
                       eagle::is_floating(to) ? float_tol(to) : exact()});
      }
    }
    return out;
  };
  e.no_gradient_check =
      "float64 -> float32 -> float64 loses the finite difference's step; gradient_tape_test "
      "checks Cast's gradient (cast passes the gradient between floating types, none to or "
      "from integers)";
  return e;
}

// ---- The activation gradients -------------------------------------------------------------------

// Inputs in the op's order; `positive`: input 0 (y or x of SqrtGrad, RsqrtGrad) in kPositive.
OpInfo activation_grad_info(opdefs::OpId op, Call call, bool positive,
                            GradSample second_derivative) {
  OpInfo e{op};
  e.call = call;
  e.samples = [op, positive](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      // ReluGrad takes (gradients, features), the others (y, dy).
      const Tensor a = make(d, shapes[s], positive ? Domain::kPositive : Domain::kGeneral,
                            seed_of(static_cast<int>(op), s, 5), true);
      const Tensor b =
          make(d, shapes[s], Domain::kGeneral, seed_of(static_cast<int>(op), s, 6), true);
      out.push_back(
          {shapes[s].to_string(), op == opdefs::OpId::kReluGrad ? Inputs{b, a} : Inputs{a, b}});
    }
    return out;
  };
  e.gradients = {std::move(second_derivative)};
  return e;
}

// The gradient of sum(f(x)) as a function of x: its gradient runs f's gradient op's gradient.
Call second_derivative(std::function<Tensor(const Tensor&)> f) {
  return [f](V x) {
    eagle::GradientTape inner;
    inner.watch(x[0]);
    const Tensor y = eagle::reduce_sum(f(x[0]));
    return *inner.gradient(y, {x[0]})[0];
  };
}

std::vector<OpInfo> activation_grad_infos() {
  namespace ad = eagle::autodiff;
  const GradDomain pos = GradDomain::kPositive;
  return {
      activation_grad_info(
          opdefs::OpId::kReluGrad, [](V x) { return ad::relu_grad(x[0], x[1]); }, false,
          {"relu grad twice",
           {{Shape{2, 3}, GradDomain::kAwayFromZero}},
           second_derivative([](const Tensor& t) { return eagle::square(eagle::relu(t)); })}),
      activation_grad_info(
          opdefs::OpId::kSigmoidGrad, [](V x) { return ad::sigmoid_grad(x[0], x[1]); }, false,
          {"sigmoid second derivative", {{Shape{2, 3}}}, second_derivative([](const Tensor& t) {
             return eagle::sigmoid(t);
           })}),
      activation_grad_info(
          opdefs::OpId::kTanhGrad, [](V x) { return ad::tanh_grad(x[0], x[1]); }, false,
          {"tanh second derivative", {{Shape{2, 3}}}, second_derivative([](const Tensor& t) {
             return eagle::tanh(t);
           })}),
      activation_grad_info(
          opdefs::OpId::kSqrtGrad, [](V x) { return ad::sqrt_grad(x[0], x[1]); }, true,
          {"sqrt second derivative", {{Shape{2, 3}, pos}}, second_derivative([](const Tensor& t) {
             return eagle::sqrt(t);
           })}),
      activation_grad_info(
          opdefs::OpId::kRsqrtGrad, [](V x) { return ad::rsqrt_grad(x[0], x[1]); }, true,
          {"rsqrt second derivative", {{Shape{2, 3}, pos}}, second_derivative([](const Tensor& t) {
             return eagle::rsqrt(t);
           })}),
      activation_grad_info(
          opdefs::OpId::kReciprocalGrad, [](V x) { return ad::reciprocal_grad(x[0], x[1]); }, false,
          {"reciprocal second derivative",
           {{Shape{2, 3}, pos}},
           second_derivative([](const Tensor& t) { return eagle::reciprocal(t); })}),
  };
}

}  // namespace

std::vector<OpInfo> math_op_infos() {
  std::vector<OpInfo> out = binary_infos();
  for (OpInfo& e : unary_infos()) out.push_back(std::move(e));
  out.push_back(cast_info());
  for (OpInfo& e : activation_grad_infos()) out.push_back(std::move(e));
  return out;
}

}  // namespace eagle_test
