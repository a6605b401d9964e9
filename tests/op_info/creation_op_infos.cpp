// OpInfo entries of the ops that make tensors: Const, Fill, Identity, Range and the seeded
// random ops (Note [OpInfo table]).
#include <cmath>
#include <limits>

#include "op_info.hpp"
#include "op_info/error_texts.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Shapes of the random samples.
std::vector<Shape> random_shapes() { return {{}, {0}, {1}, {3}, {7, 33}, {4097}, {65537}}; }

OpInfo constant_info() {
  OpInfo e{opdefs::OpId::kConst};
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      // Host values straight into the device's memory (an asynchronous copy on a real GPU).
      const Tensor host = make(d, shapes[s], Domain::kGeneral, s, true);
      out.push_back({"constant " + shapes[s].to_string(), {}, [host](const Inputs&) {
                       return eagle::visit_dtype(host.dtype(), [&](auto tag) {
                         using T = decltype(tag);
                         return eagle::constant(host.to_vector<T>(), host.shape());
                       });
                     }});
    }
    return out;
  };
  e.errors = [] {
    using eagle::InvalidArgumentError;
    const float data[5] = {};
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::constant({1, 2, 3}, Shape{2, 2});
            },
            "Eager constant of 3 values does not fit shape [2,2], which has 4 elements"),
        raises<InvalidArgumentError>(
            [] {
              eagle::constant({1.0, 2.0}, Shape{});
            },
            "Eager constant of 2 values does not fit shape [], which has 1 elements"),
        raises<InvalidArgumentError>(
            [] { eagle::constant(std::vector<float>{}, Shape{2}); },
            "Eager constant of 0 values does not fit shape [2], which has 2 elements"),
        raises<InvalidArgumentError>(
            [] {
              eagle::constant({true, false}, Shape{0});
            },
            "Eager constant of 2 values does not fit shape [0], which has 0 elements"),
        raises<InvalidArgumentError>(
            [data] {
              eagle::constant_from_buffer(data, 5, DType::kFloat32, Shape{2, 3});
            },
            "Eager constant of 5 values does not fit shape [2,3], which has 6 elements"),
        raises<InvalidArgumentError>(
            [] {
              eagle::constant({{1.0, 2.0}, {3.0}});
            },
            "Can't convert non-rectangular Python sequence to Tensor. In a list, item 1 has "
            "shape (1,) but item 0 has shape (2,)."),
        raises<InvalidArgumentError>([] { eagle::constant({1.5}, std::nullopt, DType::kInt32); },
                                     "Cannot convert 1.5 to EagerTensor of dtype int32"),
        raises<InvalidArgumentError>([] { eagle::constant({kNaN}, std::nullopt, DType::kInt64); },
                                     "Cannot convert nan to EagerTensor of dtype int64"),
        raises<InvalidArgumentError>([] { eagle::constant(1e19, std::nullopt, DType::kInt64); },
                                     "Cannot convert 1e+19 to EagerTensor of dtype int64"),
        // Shapes themselves: rank and negative dimensions.
        raises<InvalidArgumentError>(
            [] {
              eagle::zeros(Shape{1, 1, 1, 1, 1, 1, 1, 1, 1});
            },
            "Shape rank exceeds the maximum of 8 supported by eagle"),
        raises<InvalidArgumentError>(
            [] {
              eagle::zeros(Shape{2, -1});
            },
            "Dimension 1 must be >= 0, got -1"),
        // A C++ number next to a tensor becomes a constant of the tensor's dtype first.
        raises<InvalidArgumentError>([] { Tensor() + 1; },
                                     "input #0 is an undefined tensor [Op:Const]"),
        raises<InvalidArgumentError>([] { 2.0 * Tensor(); },
                                     "input #0 is an undefined tensor [Op:Const]"),
    };
  };
  e.check_undefined_inputs = false;  // no inputs
  return e;
}

OpInfo fill_info() {
  OpInfo e{opdefs::OpId::kFill};
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (double value : {0.0, 1.0, -3.75, 1e10, -1e10, kNaN, kInf, 65519.0, 0.1}) {
      for (const Shape& shape :
           {Shape{}, Shape{0}, Shape{7}, Shape{4097}, Shape{3, 0, 2}, Shape{65537}}) {
        out.push_back({"fill " + shape.to_string() + " with " + show(value),
                       {},
                       [=](const Inputs&) { return eagle::fill(shape, value, d); }});
      }
    }
    out.push_back({"zeros and ones", {}, [d](const Inputs&) {
                     return eagle::concat({eagle::zeros({5}, d), eagle::ones({6}, d)}, 0);
                   }});
    return out;
  };
  e.check_undefined_inputs = false;
  return e;
}

OpInfo identity_info() {
  OpInfo e{opdefs::OpId::kIdentity};
  e.call = [](const Inputs& x) { return eagle::identity(x[0]); };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      out.push_back({"identity " + shapes[s].to_string(),
                     {make(d, shapes[s], Domain::kGeneral, seed_of(s, 1), true)}});
    }
    return out;
  };
  e.gradients = {{"identity", {{Shape{2, 3}}}, e.call}};
  return e;
}

// IdentityN over two inputs of different dtypes (the kernel key is the first): each output is
// its input; output 1 is the one compared.
OpInfo identity_n_info() {
  OpInfo e{opdefs::OpId::kIdentityN};
  e.call = [](const Inputs& x) { return eagle::identity_n(x).at(1); };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      out.push_back({"identity_n " + shapes[s].to_string(),
                     {make(d, shapes[s], Domain::kGeneral, seed_of(s, 2), true),
                      make(d, shapes[s], Domain::kGeneral, seed_of(s, 3), true)}});
    }
    out.push_back(
        {"identity_n with an int32 second input",
         {make(d, {2, 3}, Domain::kGeneral, 7), make(DType::kInt32, {4}, Domain::kGeneral, 8)}});
    return out;
  };
  e.gradients = {{"identity_n", {{Shape{2, 3}}, {Shape{3}}}, [](const Inputs& x) {
                    const auto outs = eagle::identity_n(x);
                    return outs[0] * eagle::reduce_sum(outs[1]);
                  }}};
  return e;
}

OpInfo range_info() {
  OpInfo e{opdefs::OpId::kRange};
  e.samples = [](DType d) {
    struct Args {
      double start, limit, delta;
    };
    // Fractional starts and deltas only for floating dtypes: for integers start + i * delta is
    // truncated, and a fused multiply-add on the GPU may land on the other side of an integer.
    std::vector<Args> cases = {{0, 10, 1},   {0, 0, 1},     {-5, 100003, 7},    {10, -5, -3},
                               {-3, 7, 0.5}, {0, 65537, 1}, {-1000, 1000, 0.25}};
    if (eagle::is_floating(d)) {
      for (Args a :
           {Args{0.1, 1000.1, 0.3}, Args{-1, 1, 0.1}, Args{3, -2, -0.7}, Args{0, 3000, 1}}) {
        cases.push_back(a);
      }
    }
    std::vector<Sample> out;
    for (const Args& a : cases) {
      Tol tol = float_tol(d);
      // start + i * delta is computed in float64: near 0 its error is absolute (FMA or not).
      tol.abs += tol.rel * (std::fabs(a.start) + std::fabs(a.delta));
      out.push_back({"range(" + show(a.start) + ", " + show(a.limit) + ", " + show(a.delta) + ")",
                     {},
                     [a, d](const Inputs&) { return eagle::range(a.start, a.limit, a.delta, d); },
                     tol});
    }
    if (d == DType::kInt32) {
      out.push_back({"range(limit) and range(start, limit, delta)", {}, [](const Inputs&) {
                       return eagle::concat({eagle::range(17), eagle::range(3, 40, 4)}, 0);
                     }});
    }
    return out;
  };
  e.errors = [] {
    using eagle::InvalidArgumentError;
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::range(0, 5, 0); },
                                     "Requires delta != 0: 0 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.0, 1.0, 0.0); },
                                     "Requires delta != 0: 0 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(5, 1); },
                                     "Requires start <= limit when delta > 0: 5/1 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(-3); },
                                     "Requires start <= limit when delta > 0: 0/-3 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(1, 5, -1); },
                                     "Requires start >= limit when delta < 0: 1/5 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.5, 0.25, 0.1); },
                                     "Requires start <= limit when delta > 0: 0.5/0.25 [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.0, 1e300, 1e-300); },
                                     "Range of inf elements is too large [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.0, 1e17, 1.0); },
                                     "Range of 1e+17 elements is too large [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.0, kNaN, 1.0); },
                                     "Range of nan elements is too large [Op:Range]"),
        raises<InvalidArgumentError>([] { eagle::range(0.0, 3.0, 1.0, DType::kBool); },
                                     not_allowed("Range", "bool", kNumericTexts)),
    };
  };
  e.check_undefined_inputs = false;
  return e;
}

OpInfo random_uniform_info() {
  OpInfo e{opdefs::OpId::kRandomUniform};
  e.samples = [](DType d) {
    // The CPU computes minval + u * (maxval - minval) in float64 from a 24- or 53-bit u. With
    // these ranges the product is exact, so a GPU fused multiply-add gives the same value:
    // float32, the 16-bit floats and the integers must match bit for bit.
    struct Range {
      double lo, hi;
    };
    // Made, not assigned, by dtype: GCC 13 warns (-Wnonnull, a false positive) on assigning an
    // initializer list to an empty vector.
    const std::vector<Range> ranges =
        d == DType::kInt32
            ? std::vector<Range>{{-100, 100}, {0, 2147483647.0}, {-2147483648.0, 2147483647.0}}
        : d == DType::kInt64
            ? std::vector<Range>{{-100, 100}, {-1099511627776.0, 1099511627776.0}, {0, 9.2e18}}
            : std::vector<Range>{{0, 1}, {-3, 5}, {-1000, 1000}};
    const std::vector<Shape> shapes = random_shapes();
    std::vector<Sample> out;
    for (const Range& r : ranges) {
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        Tol tol = exact();
        if (d == DType::kFloat64) {  // float64 uses all 53 bits: allow FMA-level differences
          tol = float_tol(d);
          tol.abs += tol.rel * (std::fabs(r.lo) + std::fabs(r.hi));
        }
        const Shape shape = shapes[s];
        const std::uint64_t seed = seed_of(s, 7);
        out.push_back(
            {"random_uniform " + shape.to_string() + " in [" + show(r.lo) + ", " + show(r.hi) + ")",
             {},
             [=](const Inputs&) { return eagle::random_uniform(shape, r.lo, r.hi, d, seed); },
             tol});
      }
    }
    return out;
  };
  e.errors = [] {
    using eagle::InvalidArgumentError;
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::random_uniform({2}, 0, 1, DType::kBool, 1); },
                                     not_allowed("RandomUniform", "bool", kNumericTexts)),
        raises<InvalidArgumentError>([] { eagle::random_uniform({3}, 5, 5, DType::kInt32); },
                                     "Need minval < maxval: 5 >= 5 [Op:RandomUniform]"),
        raises<InvalidArgumentError>([] { eagle::random_uniform({3}, 2, 1, DType::kInt64, 7); },
                                     "Need minval < maxval: 2 >= 1 [Op:RandomUniform]"),
        raises<InvalidArgumentError>(
            [] { eagle::random_uniform(Shape{4}, 0, 1e10, eagle::int32, 1); },
            "minval 0 and maxval 10000000000 must lie within the range of int32 "
            "[Op:RandomUniform]"),
        // Found by tests/fuzz/constant_fuzzer: [-0.5, 0.5) truncated to the empty [0, 0) and the
        // kernel divided by its size; a maxval of 2^63 overflowed the int64 arithmetic.
        raises<InvalidArgumentError>(
            [] { eagle::random_uniform(Shape{3}, -0.5, 0.5, eagle::int32, 1); },
            "Cannot convert -0.5 to EagerTensor of dtype int32 [Op:RandomUniform]"),
        raises<InvalidArgumentError>(
            [] { eagle::random_uniform(Shape{3}, 0, 2.5, eagle::int64, 1); },
            "Cannot convert 2.5 to EagerTensor of dtype int64 [Op:RandomUniform]"),
        raises<InvalidArgumentError>(
            [] { eagle::random_uniform(Shape{3}, 0, 9223372036854775808.0, eagle::int64, 1); },
            "minval 0 and maxval 9.223372036854776e+18 must lie within the range of int64 "
            "[Op:RandomUniform]"),
    };
  };
  e.check_undefined_inputs = false;
  return e;
}

// Box-Muller: sqrt(-2 log(1 - u1)) * cos(2 pi u2). The CPU evaluates it in float64; a GPU may use
// float32 sin/cos/log. The error of cos(2 pi u2) is absolute (about 1 ulp of 2 pi), so near a
// zero of the cosine a relative bound fails: allow rel * (|value| + stddev).
OpInfo normal_info(opdefs::OpId op) {
  OpInfo e{op};
  e.samples = [op](DType d) {
    struct MeanStd {
      double mean, stddev;
    };
    const bool truncated = op == opdefs::OpId::kTruncatedNormal;
    const std::vector<MeanStd> params = truncated
                                            ? std::vector<MeanStd>{{0, 1}, {-1, 0.05}}
                                            : std::vector<MeanStd>{{0, 1}, {3, 0.5}, {-100, 10}};
    const std::vector<Shape> shapes = random_shapes();
    std::vector<Sample> out;
    for (const MeanStd& ms : params) {
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        Tol tol = float_tol(d);
        tol.abs += tol.rel * ms.stddev;
        const Shape shape = shapes[s];
        const std::uint64_t seed = seed_of(s, truncated ? 11 : 9);
        out.push_back(
            {std::string(truncated ? "truncated_normal " : "random_normal ") + shape.to_string() +
                 " mean " + show(ms.mean) + " stddev " + show(ms.stddev),
             {},
             [=](const Inputs&) {
               return truncated ? eagle::truncated_normal(shape, ms.mean, ms.stddev, d, seed)
                                : eagle::random_normal(shape, ms.mean, ms.stddev, d, seed);
             },
             tol});
      }
    }
    return out;
  };
  if (op == opdefs::OpId::kRandomStandardNormal) {
    e.errors = [] {
      using eagle::InvalidArgumentError;
      return std::vector<ErrorCase>{
          raises<InvalidArgumentError>(
              [] { eagle::random_normal({2}, 0, 1, DType::kInt32, 1); },
              not_allowed("RandomStandardNormal", "int32", kFloatingTexts)),
          raises<InvalidArgumentError>([] { eagle::random_normal({2}, 0, 1, DType::kBool); },
                                       not_allowed("RandomStandardNormal", "bool", kFloatingTexts)),
      };
    };
  }
  e.check_undefined_inputs = false;
  return e;
}

}  // namespace

std::vector<OpInfo> creation_op_infos() {
  return {constant_info(),
          fill_info(),
          identity_info(),
          identity_n_info(),
          range_info(),
          random_uniform_info(),
          normal_info(opdefs::OpId::kRandomStandardNormal),
          normal_info(opdefs::OpId::kTruncatedNormal)};
}

}  // namespace eagle_test
