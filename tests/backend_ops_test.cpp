// One op suite for every GPU backend: each op of the eager core, for every dtype the GPU kernel
// set declares (runtime::gpu_implements), computed under /GPU:0 and under /CPU:0 with soft
// placement off (so the GPU run really runs there) and compared with the CPU as the reference.
//
// The same source runs in two registrations (tests/CMakeLists.txt):
//   - simulated GPUs (EAGLE_SIMULATED_GPUS=2, label "cpu"): checks the suite itself, everywhere;
//   - `--require-cuda` (label "gpu"): exits 77 ("Not Run") unless GPU:0 is a real CUDA device.
//     With one real GPU, main() splits it into two logical GPUs before the runtime initializes,
//     so the two-device tests run too.
//
// How results are compared (see `Tol` and `mismatches`):
//   - integer and bool outputs, shape ops, casts to integers, max/min reductions, argmax and
//     seeded random_uniform of float32/16-bit floats/integers: exactly (NaN matches NaN, and
//     -0 matches +0);
//   - floating outputs: |gpu - cpu| <= rel * |cpu| + abs, with rel = 1e-5 (float32), 1e-12
//     (float64), 1e-3 (float16), 1e-2 (bfloat16) and abs = rel * 1e-3 (numpy.allclose's
//     rtol/atol ratio). rel alone fails near 0 for results whose error is absolute rather than
//     relative: a transcendental function computed another way (log near 1, tanh near 0, a fast
//     exp whose error is absolute), denormals that one backend flushes to zero. The 16-bit
//     tolerances admit one unit in the last place (2^-10, 2^-7), never two;
//   - results that sum many terms get an extra term scaled by what cancellation cannot hide: the
//     sum of magnitudes S (reductions, add_n) or |A||B| (matmul), both computed on the CPU in
//     float64. See `sum_tol` and `matmul_tol` for the bounds.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "autodiff/grad_ops.hpp"
#include "eagle/eagle.hpp"
#include "ops/op_defs.hpp"
#include "real_gpu.hpp"
#include "runtime/context.hpp"
#include "test_support.hpp"

namespace {

using eagle::Axes;
using eagle::bfloat16;
using eagle::DType;
using eagle::float16;
using eagle::Shape;
using eagle::Tensor;
using eagle::runtime::gpu_implements;
using eagle::runtime::OpId;
using eagle_test::from_d;
using eagle_test::kIsFloat;
using eagle_test::to_d;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kGpu0 = "/GPU:0";
constexpr const char* kGpu1 = "/GPU:1";
constexpr const char* kCpu0 = "/CPU:0";

constexpr DType kAllDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,   DType::kInt64,
                                DType::kBool,    DType::kFloat16, DType::kBFloat16};
constexpr DType kFloatDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                  DType::kBFloat16};

std::string str(DType d) { return std::string(eagle::dtype_name(d)); }
std::string str(OpId op) { return std::string(eagle::runtime::op_name(op)); }

// The dtypes the GPU kernel set declares for `op`.
std::vector<DType> gpu_dtypes(OpId op) {
  std::vector<DType> out;
  for (DType d : kAllDTypes) {
    if (gpu_implements(op, d)) out.push_back(d);
  }
  return out;
}

// Every test runs with soft placement off: an op under /GPU:0 runs there or throws.
class HardPlacement {
 public:
  HardPlacement() { eagle::config::set_soft_device_placement(false); }
  ~HardPlacement() { eagle::config::set_soft_device_placement(true); }
  HardPlacement(const HardPlacement&) = delete;
  HardPlacement& operator=(const HardPlacement&) = delete;
};

class Tf32 {
 public:
  explicit Tf32(bool enabled) : saved_(eagle::config::tensor_float_32_execution_enabled()) {
    eagle::config::enable_tensor_float_32_execution(enabled);
  }
  ~Tf32() { eagle::config::enable_tensor_float_32_execution(saved_); }
  Tf32(const Tf32&) = delete;
  Tf32& operator=(const Tf32&) = delete;

 private:
  bool saved_;
};

std::size_t logical_gpu_count() { return eagle::config::list_logical_devices("GPU").size(); }

// ---- Inputs -------------------------------------------------------------------------------------

enum class Domain {
  kGeneral,   // floats in [-2, 2]; integers over their whole range (arithmetic wraps)
  kSmall,     // whole numbers in [-2, 2]: many ties (comparisons, argmax)
  kPositive,  // floats in [0.01, 10]; integers in [1, 1000]
  kUnit,      // floats in [-1, 1]; integers in [-10, 10]
  kWide,      // floats in [-20, 20]; integers in [-1000, 1000]
  kExponent,  // floats in [-3, 3]; integers in [0, 20]
};

std::pair<double, double> float_range(Domain d) {
  switch (d) {
    case Domain::kGeneral:
    case Domain::kSmall:
      return {-2, 2};
    case Domain::kPositive:
      return {0.01, 10};
    case Domain::kUnit:
      return {-1, 1};
    case Domain::kWide:
      return {-20, 20};
    case Domain::kExponent:
      break;
  }
  return {-3, 3};
}

std::pair<long long, long long> int_range(Domain d) {
  switch (d) {
    case Domain::kGeneral:  // not used: whole range
    case Domain::kSmall:
      return {-2, 2};
    case Domain::kPositive:
      return {1, 1000};
    case Domain::kUnit:
      return {-10, 10};
    case Domain::kWide:
      return {-1000, 1000};
    case Domain::kExponent:
      break;
  }
  return {0, 20};
}

// `n` values of T drawn from `domain` with a fixed seed. With `specials`, some elements (spread
// over the tensor, the last one included) are replaced by NaN, +-inf, +-0 and +-1 (floats) or
// the extremes, 0 and +-1 (integers, except for exponents and positive domains).
template <class T>
std::vector<T> draw(std::int64_t n, Domain domain, std::uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v[static_cast<std::size_t>(i)] = (rng() >> 17) & 1;
    } else if constexpr (std::is_integral_v<T>) {
      if (domain == Domain::kGeneral) {
        const std::uint64_t bits = rng();
        T t;
        std::memcpy(&t, &bits, sizeof t);
        v[static_cast<std::size_t>(i)] = t;
      } else {
        const auto [lo, hi] = int_range(domain);
        v[static_cast<std::size_t>(i)] =
            static_cast<T>(std::uniform_int_distribution<long long>(lo, hi)(rng));
      }
    } else {
      const auto [lo, hi] = float_range(domain);
      double x = std::uniform_real_distribution<double>(lo, hi)(rng);
      if (domain == Domain::kSmall) x = std::round(x);
      v[static_cast<std::size_t>(i)] = from_d<T>(x);
    }
  }
  if (!specials || n == 0) return v;
  std::vector<T> extra;
  if constexpr (kIsFloat<T>) {
    for (double s : {kNaN, kInf, -kInf, 0.0, -0.0, 1.0, -1.0}) extra.push_back(from_d<T>(s));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (domain == Domain::kExponent || domain == Domain::kPositive) return v;
    extra = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(-1), T(1)};
  } else {
    return v;
  }
  const auto count = static_cast<std::int64_t>(extra.size());
  for (std::int64_t k = 0; k < std::min(n, count); ++k) {
    // Spread over the tensor (index n - 1 included); rotated by the seed for small tensors.
    const std::int64_t at = n >= count ? (n - 1) * k / (count - 1) : k;
    v[static_cast<std::size_t>(at)] = extra[static_cast<std::size_t>((k + seed) % count)];
  }
  return v;
}

// A host (CPU:0) tensor of `dtype` and `shape`. Must be called outside device scopes.
Tensor make(DType dtype, const Shape& shape, Domain domain, std::uint64_t seed,
            bool specials = false) {
  return eagle::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return eagle::constant(draw<T>(shape.num_elements(), domain, seed, specials), shape);
  });
}

// A host tensor of `dtype` holding `values` (as T stores them).
Tensor make_values(DType dtype, const std::vector<double>& values, const Shape& shape) {
  return eagle::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> typed;
    for (double v : values) {
      if constexpr (std::is_same_v<T, bool>) {
        typed.push_back(v != 0);
      } else {
        typed.push_back(from_d<T>(v));
      }
    }
    return eagle::constant(typed, shape);
  });
}

std::uint64_t seed_of(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  return (a * 1000003u + b) * 1000003u + c + 12345;
}

// ---- Comparison ---------------------------------------------------------------------------------

// |gpu - cpu| <= rel * |cpu| + abs + scale_rel * scale[i]; exact when all are zero.
struct Tol {
  double rel = 0;
  double abs = 0;
  Tensor scale;  // float64 with the output's shape, or undefined
  double scale_rel = 0;
};

Tol exact() { return Tol{}; }

Tol within(double rel, double abs) {
  Tol t;
  t.rel = rel;
  t.abs = abs;
  return t;
}

// The elementwise tolerance of a floating dtype (exact for the others); see the file comment.
Tol float_tol(DType d) {
  switch (d) {
    case DType::kFloat32:
      return within(1e-5, 1e-8);
    case DType::kFloat64:
      return within(1e-12, 1e-15);
    case DType::kFloat16:
      return within(1e-3, 1e-6);
    case DType::kBFloat16:
      return within(1e-2, 1e-5);
    default:
      return exact();
  }
}

// Unit roundoff of the accumulator: float32 for float32 and for the 16-bit floats (which both
// backends widen to float32, Note [Half precision on the CPU]), float64 for float64.
double accumulation_eps(DType d) { return d == DType::kFloat64 ? 0x1p-53 : 0x1p-24; }

// A sum of n terms: the rounding error of a sequential loop is bounded by n*u*S and of a tree by
// log2(n)*u*S (u: accumulation_eps, S: the sum of the magnitudes of the terms). Relative to the
// result itself no bound exists (cancellation: |sum| << S). Rounding errors of real summation
// orders behave like random walks, so (4 + 2*sqrt(n))*u*S is generous for any order while it still
// catches an accumulator of the wrong type (a float16 one is ~2^13 times worse) or a lost term.
// Added to the elementwise tolerance of the output dtype (its own final rounding).
Tol sum_tol(DType d, std::int64_t n, Tensor magnitudes) {
  Tol t = float_tol(d);
  if (!eagle::is_floating(d)) return t;
  t.scale = std::move(magnitudes);
  t.scale_rel = accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(n)));
  return t;
}

// Float32 values of order 1 after a chain of tens to hundreds of ops: each op may round
// differently on the two backends (transcendentals by a few ulp), so the differences add up,
// and the chain may end near 0 (x - mean). 1e-4 relative, 1e-6 absolute.
Tol chain_of_ops_tol() { return within(1e-4, 1e-6); }

// `x` as float64 magnitudes, on the CPU.
Tensor abs64(const Tensor& x) {
  return eagle::with_device(kCpu0, [&] { return eagle::abs(eagle::cast(x, DType::kFloat64)); });
}

template <class T>
std::string show(T v) {
  std::ostringstream out;
  if constexpr (kIsFloat<T>) {
    out.precision(std::is_same_v<T, double> ? 17 : 9);
    out << to_d(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    out << (v ? "true" : "false");
  } else {
    out << static_cast<long long>(v);
  }
  return out.str();
}

// "" when `gpu` matches `cpu` within `tol`, else what differs (the first few elements).
std::string mismatches(const Tensor& gpu, const Tensor& cpu, const Tol& tol) {
  std::ostringstream out;
  if (gpu.dtype() != cpu.dtype()) {
    out << "dtype " << str(gpu.dtype()) << " on the GPU, " << str(cpu.dtype()) << " on the CPU";
    return out.str();
  }
  if (gpu.shape() != cpu.shape()) {
    out << "shape " << gpu.shape().to_string() << " on the GPU, " << cpu.shape().to_string()
        << " on the CPU";
    return out.str();
  }
  const std::int64_t n = cpu.num_elements();
  std::int64_t bad = 0;
  std::ostringstream first;
  double worst = 0;
  eagle::visit_dtype(cpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> g = gpu.to_vector<T>();
    const std::vector<T> c = cpu.to_vector<T>();
    std::vector<double> scale;
    if (tol.scale.defined()) {
      REQUIRE(tol.scale.shape() == cpu.shape());
      scale = tol.scale.to_vector<double>();
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      double allowed = 0;
      if constexpr (kIsFloat<T>) {
        const double gv = to_d<T>(g[k]);
        const double cv = to_d<T>(c[k]);
        if (gv == cv || (std::isnan(gv) && std::isnan(cv))) continue;
        allowed =
            tol.rel * std::fabs(cv) + tol.abs + (scale.empty() ? 0 : tol.scale_rel * scale[k]);
        if (std::isfinite(gv) && std::isfinite(cv)) {
          const double diff = std::fabs(gv - cv);
          if (diff <= allowed) continue;
          worst = std::max(worst, allowed > 0 ? diff / allowed : kInf);
        } else {
          worst = kInf;
        }
      } else {
        if (g[k] == c[k]) continue;
      }
      if (bad++ < 6) {
        first << "\n  [" << i << "] gpu " << show<T>(g[k]) << ", cpu " << show<T>(c[k]);
        if (allowed > 0) first << " (allowed difference " << allowed << ")";
      }
    }
    return 0;
  });
  if (bad == 0) return "";
  out << bad << " of " << n << " elements of " << cpu.shape().to_string() << " " << str(cpu.dtype())
      << " differ";
  if (worst > 0) out << " (worst: " << worst << " times the tolerance)";
  out << ":" << first.str();
  return out.str();
}

bool on_device(const Tensor& t, const char* name) {
  const std::string suffix = std::string("device:") + (name[0] == '/' ? name + 1 : name);
  const std::string& d = t.device();
  return d.size() >= suffix.size() &&
         d.compare(d.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void expect_match(const Tensor& gpu, const Tensor& cpu, const Tol& tol, const char* gpu_name) {
  INFO("GPU result on " << gpu.device());
  CHECK(on_device(gpu, gpu_name));
  CHECK(on_device(cpu, kCpu0));
  CHECK(mismatches(gpu, cpu, tol) == "");
}

// The (op, dtype) pairs a test has compared; check() fails for a declared pair it has not.
class Coverage {
 public:
  explicit Coverage(std::vector<OpId> ops) : ops_(std::move(ops)) {}
  void hit(OpId op, DType d) { hits_.insert({op, d}); }
  void check() const {
    std::string missing;
    for (OpId op : ops_) {
      for (DType d : gpu_dtypes(op)) {
        if (!hits_.count({op, d})) missing += " " + str(op) + "/" + str(d);
      }
    }
    INFO("declared GPU kernels this test did not compare:" << missing);
    CHECK(missing.empty());
  }

 private:
  std::vector<OpId> ops_;
  std::set<std::pair<OpId, DType>> hits_;
};

// Runs fn() under /CPU:0, then twice under `gpu` (the second run reads the GPU copies the first
// one made of host inputs, so a kernel that wrote into an input shows), and compares. An
// exception is a failed check, not the end of the test: one missing kernel hides nothing else.
template <class Fn>
void compare_op(Coverage* coverage, OpId op, DType dtype, const std::string& what, Fn&& fn,
                const Tol& tol, const char* gpu = kGpu0) {
  if (coverage) coverage->hit(op, dtype);
  INFO(str(op) << " " << str(dtype) << ": " << what);
  Tensor cpu, first, second;
  try {
    cpu = eagle::with_device(kCpu0, fn);
    first = eagle::with_device(gpu, fn);
    second = eagle::with_device(gpu, fn);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
    return;
  }
  expect_match(first, cpu, tol, gpu);
  INFO("second run");
  CHECK(mismatches(second, cpu, tol) == "");
}

std::string shapes_str(const Shape& a, const Shape& b) {
  return a.to_string() + " and " + b.to_string();
}

// ---- Op tables ----------------------------------------------------------------------------------

const std::vector<OpId> kCreationOps = {OpId::kConst, OpId::kFill, OpId::kIdentity};
const std::vector<OpId> kRangeOps = {OpId::kRange};
const std::vector<OpId> kRandomOps = {OpId::kRandomUniform, OpId::kRandomStandardNormal,
                                      OpId::kTruncatedNormal};
const std::vector<OpId> kCastOps = {OpId::kCast};
const std::vector<OpId> kBinaryOps = {
    OpId::kAddV2,        OpId::kSub,         OpId::kMul,
    OpId::kRealDiv,      OpId::kMaximum,     OpId::kMinimum,
    OpId::kPow,          OpId::kEqual,       OpId::kNotEqual,
    OpId::kLess,         OpId::kLessEqual,   OpId::kGreater,
    OpId::kGreaterEqual, OpId::kFloorDiv,    OpId::kFloorMod,
    OpId::kTruncateDiv,  OpId::kTruncateMod, OpId::kSquaredDifference,
    OpId::kLogicalAnd,   OpId::kLogicalOr};
// Ops whose result is bool: compared exactly.
const std::set<OpId> kPredicateOps = {OpId::kEqual,      OpId::kNotEqual,  OpId::kLess,
                                      OpId::kLessEqual,  OpId::kGreater,   OpId::kGreaterEqual,
                                      OpId::kLogicalAnd, OpId::kLogicalOr, OpId::kIsNan,
                                      OpId::kIsInf,      OpId::kIsFinite,  OpId::kLogicalNot};
// Integer divisors must not be zero (Note [Integer division by zero]).
const std::set<OpId> kDivisionOps = {OpId::kFloorDiv, OpId::kFloorMod, OpId::kTruncateDiv,
                                     OpId::kTruncateMod};
const std::vector<OpId> kUnaryOps = {
    OpId::kNeg,    OpId::kAbs,      OpId::kExp,       OpId::kLog,   OpId::kSqrt,
    OpId::kSquare, OpId::kRelu,     OpId::kSigmoid,   OpId::kTanh,  OpId::kFloor,
    OpId::kCeil,   OpId::kRound,    OpId::kSign,      OpId::kRsqrt, OpId::kReciprocal,
    OpId::kLog1p,  OpId::kErf,      OpId::kSin,       OpId::kCos,   OpId::kIsNan,
    OpId::kIsInf,  OpId::kIsFinite, OpId::kLogicalNot};
const std::vector<OpId> kGradOps = {OpId::kReluGrad, OpId::kSigmoidGrad, OpId::kTanhGrad,
                                    OpId::kSqrtGrad, OpId::kRsqrtGrad,   OpId::kReciprocalGrad};
const std::vector<OpId> kVariableOps = {OpId::kVarHandleOp, OpId::kReadVariableOp,
                                        OpId::kAssignVariableOp, OpId::kAssignAddVariableOp,
                                        OpId::kAssignSubVariableOp};
const std::vector<OpId> kSegmentAndCheckOps = {OpId::kUnsortedSegmentSum, OpId::kCheckNumerics};
const std::vector<OpId> kOptimizerOps = {OpId::kResourceApplyGradientDescent,
                                         OpId::kResourceApplyKerasMomentum,
                                         OpId::kResourceApplyAdam,
                                         OpId::kResourceApplyAdamWithAmsgrad,
                                         OpId::kResourceApplyRMSProp,
                                         OpId::kResourceApplyCenteredRMSProp,
                                         OpId::kResourceApplyAdagradV2};
const std::vector<OpId> kReduceOps = {OpId::kSum,  OpId::kMean, OpId::kMax, OpId::kMin,
                                      OpId::kProd, OpId::kAny,  OpId::kAll};
const std::vector<OpId> kArgMaxOps = {OpId::kArgMax, OpId::kArgMin};
const std::vector<OpId> kMatMulOps = {OpId::kMatMul, OpId::kBatchMatMulV2};
const std::vector<OpId> kAddNOps = {OpId::kAddN};
const std::vector<OpId> kSoftmaxOps = {OpId::kSoftmax};
const std::vector<OpId> kShapeOps = {OpId::kReshape, OpId::kTranspose, OpId::kExpandDims,
                                     OpId::kSqueeze, OpId::kConcatV2,  OpId::kSlice};
const std::vector<OpId> kArrayOps = {OpId::kTile,      OpId::kPad,       OpId::kPadV2,
                                     OpId::kMirrorPad, OpId::kReverseV2, OpId::kSplit,
                                     OpId::kSplitV,    OpId::kPack,      OpId::kUnpack};
const std::vector<OpId> kScanOps = {OpId::kCumsum, OpId::kCumprod};
const std::vector<OpId> kSortOps = {OpId::kTopKV2};
const std::vector<OpId> kIndexOps = {OpId::kGatherV2, OpId::kGatherNd,     OpId::kWhere,
                                     OpId::kSelectV2, OpId::kStridedSlice, OpId::kEinsum};

Tensor apply_binary(OpId op, const Tensor& x, const Tensor& y) {
  switch (op) {
    case OpId::kAddV2:
      return eagle::add(x, y);
    case OpId::kSub:
      return eagle::subtract(x, y);
    case OpId::kMul:
      return eagle::multiply(x, y);
    case OpId::kRealDiv:
      return eagle::divide(x, y);
    case OpId::kMaximum:
      return eagle::maximum(x, y);
    case OpId::kMinimum:
      return eagle::minimum(x, y);
    case OpId::kPow:
      return eagle::pow(x, y);
    case OpId::kEqual:
      return eagle::equal(x, y);
    case OpId::kNotEqual:
      return eagle::not_equal(x, y);
    case OpId::kLess:
      return eagle::less(x, y);
    case OpId::kLessEqual:
      return eagle::less_equal(x, y);
    case OpId::kGreater:
      return eagle::greater(x, y);
    case OpId::kGreaterEqual:
      return eagle::greater_equal(x, y);
    case OpId::kFloorDiv:
      return eagle::floordiv(x, y);
    case OpId::kFloorMod:
      return eagle::floormod(x, y);
    case OpId::kTruncateDiv:
      return eagle::truncatediv(x, y);
    case OpId::kTruncateMod:
      return eagle::truncatemod(x, y);
    case OpId::kSquaredDifference:
      return eagle::squared_difference(x, y);
    case OpId::kLogicalAnd:
      return eagle::logical_and(x, y);
    case OpId::kLogicalOr:
      return eagle::logical_or(x, y);
    default:
      break;
  }
  throw std::logic_error("not a binary op: " + str(op));
}

Tensor apply_unary(OpId op, const Tensor& x) {
  switch (op) {
    case OpId::kNeg:
      return eagle::negative(x);
    case OpId::kAbs:
      return eagle::abs(x);
    case OpId::kExp:
      return eagle::exp(x);
    case OpId::kLog:
      return eagle::log(x);
    case OpId::kSqrt:
      return eagle::sqrt(x);
    case OpId::kSquare:
      return eagle::square(x);
    case OpId::kRelu:
      return eagle::relu(x);
    case OpId::kSigmoid:
      return eagle::sigmoid(x);
    case OpId::kTanh:
      return eagle::tanh(x);
    case OpId::kFloor:
      return eagle::floor(x);
    case OpId::kCeil:
      return eagle::ceil(x);
    case OpId::kRound:
      return eagle::round(x);
    case OpId::kSign:
      return eagle::sign(x);
    case OpId::kRsqrt:
      return eagle::rsqrt(x);
    case OpId::kReciprocal:
      return eagle::reciprocal(x);
    case OpId::kLog1p:
      return eagle::log1p(x);
    case OpId::kErf:
      return eagle::erf(x);
    case OpId::kSin:
      return eagle::sin(x);
    case OpId::kCos:
      return eagle::cos(x);
    case OpId::kIsNan:
      return eagle::is_nan(x);
    case OpId::kIsInf:
      return eagle::is_inf(x);
    case OpId::kIsFinite:
      return eagle::is_finite(x);
    case OpId::kLogicalNot:
      return eagle::logical_not(x);
    default:
      break;
  }
  throw std::logic_error("not a unary op: " + str(op));
}

Tensor apply_reduce(OpId op, const Tensor& x, const Axes& axes, bool keepdims) {
  switch (op) {
    case OpId::kSum:
      return eagle::reduce_sum(x, axes, keepdims);
    case OpId::kMean:
      return eagle::reduce_mean(x, axes, keepdims);
    case OpId::kMax:
      return eagle::reduce_max(x, axes, keepdims);
    case OpId::kMin:
      return eagle::reduce_min(x, axes, keepdims);
    case OpId::kProd:
      return eagle::reduce_prod(x, axes, keepdims);
    case OpId::kAny:
      return eagle::reduce_any(x, axes, keepdims);
    case OpId::kAll:
      return eagle::reduce_all(x, axes, keepdims);
    default:
      break;
  }
  throw std::logic_error("not a reduction: " + str(op));
}

const std::vector<Shape> kElementwiseShapes = {{},     {0},    {1},     {3},       {7},      {33},
                                               {1023}, {4097}, {65537}, {2, 0, 3}, {5, 7, 9}};

}  // namespace

// ---- The suite covers the kernel set ------------------------------------------------------------

TEST_CASE("the suite compares every op the GPU kernel set declares") {
  std::set<OpId> suite;
  for (const auto* ops :
       {&kCreationOps, &kRangeOps,  &kRandomOps,   &kCastOps,      &kBinaryOps,
        &kUnaryOps,    &kReduceOps, &kArgMaxOps,   &kMatMulOps,    &kAddNOps,
        &kSoftmaxOps,  &kShapeOps,  &kArrayOps,    &kScanOps,      &kSortOps,
        &kIndexOps,    &kGradOps,   &kVariableOps, &kOptimizerOps, &kSegmentAndCheckOps}) {
    suite.insert(ops->begin(), ops->end());
  }
  std::string missing;
  int declared = 0;
  for (int i = 0; i < eagle::runtime::kNumOps; ++i) {
    const auto op = static_cast<OpId>(i);
    const auto dtypes = gpu_dtypes(op);
    declared += static_cast<int>(dtypes.size());
    if (!dtypes.empty() && !suite.count(op)) missing += " " + str(op);
  }
  INFO("ops with GPU kernels that no test of this suite compares:" << missing);
  CHECK(missing.empty());
  CHECK(declared > 100);
}

TEST_CASE("the running GPU backend registers exactly the declared kernel set") {
  const auto& table = eagle::runtime::Context::get().kernels();
  std::string missing, extra;
  for (int i = 0; i < eagle::runtime::kNumOps; ++i) {
    const auto op = static_cast<OpId>(i);
    for (DType d : kAllDTypes) {
      const bool registered = table.find(op, eagle::runtime::DeviceType::kGPU, d) != nullptr;
      if (gpu_implements(op, d) && !registered) missing += " " + str(op) + "/" + str(d);
      if (!gpu_implements(op, d) && registered) extra += " " + str(op) + "/" + str(d);
    }
  }
  INFO("declared but not registered:" << missing);
  CHECK(missing.empty());
  INFO("registered but not declared:" << extra);
  CHECK(extra.empty());
  // And the placer agrees: an op without a GPU kernel for its dtype is refused under /GPU:0.
  HardPlacement hard;
  const Tensor a = make(DType::kInt32, {2, 2}, Domain::kUnit, 1);
  auto scope = eagle::device(kGpu0);
  CHECK_THROWS_AS(eagle::matmul(a, a), eagle::InvalidArgumentError);
}

// ---- Creation -----------------------------------------------------------------------------------

TEST_CASE("constant, fill and identity make the same tensors on the GPU") {
  HardPlacement hard;
  Coverage coverage(kCreationOps);
  for (DType d : gpu_dtypes(OpId::kConst)) {
    for (std::size_t s = 0; s < kElementwiseShapes.size(); ++s) {
      const Shape& shape = kElementwiseShapes[s];
      // Constant: host values straight into GPU memory (an asynchronous copy on a real GPU).
      compare_op(
          &coverage, OpId::kConst, d, "constant " + shape.to_string(),
          [&] {
            return eagle::visit_dtype(d, [&](auto tag) {
              using T = decltype(tag);
              return eagle::constant(draw<T>(shape.num_elements(), Domain::kGeneral, s, true),
                                     shape);
            });
          },
          exact());
    }
  }
  for (DType d : gpu_dtypes(OpId::kFill)) {
    for (double value : {0.0, 1.0, -3.75, 1e10, -1e10, kNaN, kInf, 65519.0, 0.1}) {
      for (const Shape& shape :
           {Shape{}, Shape{0}, Shape{7}, Shape{4097}, Shape{3, 0, 2}, Shape{65537}}) {
        compare_op(
            &coverage, OpId::kFill, d, "fill " + shape.to_string() + " with " + show(value),
            [&] { return eagle::fill(shape, value, d); }, exact());
      }
    }
    compare_op(
        &coverage, OpId::kFill, d, "zeros and ones",
        [&] {
          return eagle::concat({eagle::zeros({5}, d), eagle::ones({6}, d)}, 0);
        },
        exact());
  }
  for (DType d : gpu_dtypes(OpId::kIdentity)) {
    for (std::size_t s = 0; s < kElementwiseShapes.size(); ++s) {
      const Tensor x = make(d, kElementwiseShapes[s], Domain::kGeneral, seed_of(s, 1), true);
      compare_op(
          &coverage, OpId::kIdentity, d, "identity " + x.shape().to_string(),
          [&] { return eagle::identity(x); }, exact());
    }
  }
  coverage.check();
}

TEST_CASE("range gives the same values on the GPU") {
  HardPlacement hard;
  Coverage coverage(kRangeOps);
  struct Args {
    double start, limit, delta;
  };
  // Fractional starts and deltas only for floating dtypes: for integers start + i * delta is
  // truncated, and a fused multiply-add on the GPU may land on the other side of an integer.
  const std::vector<Args> integral = {{0, 10, 1},   {0, 0, 1},     {-5, 100003, 7},    {10, -5, -3},
                                      {-3, 7, 0.5}, {0, 65537, 1}, {-1000, 1000, 0.25}};
  const std::vector<Args> fractional = {
      {0.1, 1000.1, 0.3}, {-1, 1, 0.1}, {3, -2, -0.7}, {0, 3000, 1}};
  for (DType d : gpu_dtypes(OpId::kRange)) {
    std::vector<Args> cases = integral;
    if (eagle::is_floating(d)) cases.insert(cases.end(), fractional.begin(), fractional.end());
    for (const Args& a : cases) {
      Tol tol = float_tol(d);
      // start + i * delta is computed in float64: near 0 its error is absolute (FMA or not).
      tol.abs += tol.rel * (std::fabs(a.start) + std::fabs(a.delta));
      compare_op(
          &coverage, OpId::kRange, d,
          "range(" + show(a.start) + ", " + show(a.limit) + ", " + show(a.delta) + ")",
          [&] { return eagle::range(a.start, a.limit, a.delta, d); }, tol);
    }
  }
  compare_op(
      &coverage, OpId::kRange, DType::kInt32, "range(limit) and range(start, limit, delta)",
      [] {
        return eagle::concat({eagle::range(17), eagle::range(3, 40, 4)}, 0);
      },
      exact());
  coverage.check();
}

TEST_CASE("random_uniform and random_normal with a seed give the CPU's values") {
  HardPlacement hard;
  Coverage coverage(kRandomOps);
  const std::vector<Shape> shapes = {{}, {0}, {1}, {3}, {7, 33}, {4097}, {65537}};
  // The CPU computes minval + u * (maxval - minval) in float64 from a 24- or 53-bit u. With
  // these ranges the product is exact, so a GPU fused multiply-add gives the same value: float32,
  // the 16-bit floats and the integers must match bit for bit.
  struct Range {
    double lo, hi;
  };
  for (DType d : gpu_dtypes(OpId::kRandomUniform)) {
    std::vector<Range> ranges;
    if (d == DType::kInt32) {
      ranges = {{-100, 100}, {0, 2147483647.0}, {-2147483648.0, 2147483647.0}};
    } else if (d == DType::kInt64) {
      ranges = {{-100, 100}, {-1099511627776.0, 1099511627776.0}, {0, 9.2e18}};
    } else {
      ranges = {{0, 1}, {-3, 5}, {-1000, 1000}};
    }
    for (const Range& r : ranges) {
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        Tol tol = exact();
        if (d == DType::kFloat64) {  // float64 uses all 53 bits: allow FMA-level differences
          tol = float_tol(d);
          tol.abs += tol.rel * (std::fabs(r.lo) + std::fabs(r.hi));
        }
        compare_op(
            &coverage, OpId::kRandomUniform, d,
            "random_uniform " + shapes[s].to_string() + " in [" + show(r.lo) + ", " + show(r.hi) +
                ")",
            [&] { return eagle::random_uniform(shapes[s], r.lo, r.hi, d, seed_of(s, 7)); }, tol);
      }
    }
  }
  // Box-Muller: sqrt(-2 log(1 - u1)) * cos(2 pi u2). The CPU evaluates it in float64; a GPU may
  // use float32 sin/cos/log. The error of cos(2 pi u2) is absolute (about 1 ulp of 2 pi), so
  // near a zero of the cosine a relative bound fails: allow rel * (|value| + stddev).
  for (DType d : gpu_dtypes(OpId::kRandomStandardNormal)) {
    for (const Range& ms : {Range{0, 1}, Range{3, 0.5}, Range{-100, 10}}) {
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        Tol tol = float_tol(d);
        tol.abs += tol.rel * ms.hi;
        compare_op(
            &coverage, OpId::kRandomStandardNormal, d,
            "random_normal " + shapes[s].to_string() + " mean " + show(ms.lo) + " stddev " +
                show(ms.hi),
            [&] { return eagle::random_normal(shapes[s], ms.lo, ms.hi, d, seed_of(s, 9)); }, tol);
      }
    }
  }
  for (DType d : gpu_dtypes(OpId::kTruncatedNormal)) {
    for (const Range& ms : {Range{0, 1}, Range{-1, 0.05}}) {
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        Tol tol = float_tol(d);
        tol.abs += tol.rel * ms.hi;
        compare_op(
            &coverage, OpId::kTruncatedNormal, d,
            "truncated_normal " + shapes[s].to_string() + " mean " + show(ms.lo) + " stddev " +
                show(ms.hi),
            [&] { return eagle::truncated_normal(shapes[s], ms.lo, ms.hi, d, seed_of(s, 11)); },
            tol);
      }
    }
  }
  // Different seeds give different values on the GPU too.
  auto scope = eagle::device(kGpu0);
  const auto a = eagle::random_uniform({64}, 0, 1, DType::kFloat32, 1).to_vector<float>();
  const auto b = eagle::random_uniform({64}, 0, 1, DType::kFloat32, 2).to_vector<float>();
  CHECK(a != b);
  coverage.check();
}

TEST_CASE("cast between every pair of dtypes") {
  HardPlacement hard;
  Coverage coverage(kCastOps);
  // Edge values: NaN and infinities, ties, the integer limits and just past them, float16
  // overflow and underflow, bfloat16's top. Float -> integer: NaN and out of range give the
  // lowest value (the CPU's rule, Note [Float to integer casts]). (No value lies between a float32
  // rounding boundary and a float16 one: the CPU converts float64 -> float16 through float32, a GPU
  // may round once.)
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
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      if (from == to || !gpu_implements(OpId::kCast, from)) continue;
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
      for (const Tensor& x : inputs) {
        // Integer and bool outputs exactly; floating outputs within one unit in the last place
        // (int64 -> float16 and float64 -> float16 round twice on the CPU, maybe once on a GPU).
        const Tol tol = eagle::is_floating(to) ? float_tol(to) : exact();
        compare_op(
            &coverage, OpId::kCast, from, "cast " + x.shape().to_string() + " to " + str(to),
            [&] { return eagle::cast(x, to); }, tol);
      }
    }
  }
  coverage.check();
}

// ---- Elementwise --------------------------------------------------------------------------------

TEST_CASE("elementwise binary ops on every shape and broadcasting corner") {
  HardPlacement hard;
  Coverage coverage(kBinaryOps);
  std::vector<std::pair<Shape, Shape>> pairs;
  for (const Shape& s : kElementwiseShapes) pairs.push_back({s, s});
  for (const auto& p : std::vector<std::pair<Shape, Shape>>{{{3, 1}, {1, 4}},
                                                            {{5, 4}, {4}},
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
  for (OpId op : kBinaryOps) {
    const bool comparison = kPredicateOps.count(op) != 0;
    for (DType d : gpu_dtypes(op)) {
      Domain dx = Domain::kGeneral, dy = Domain::kGeneral;
      if (comparison) {
        dx = dy = Domain::kSmall;
      } else if (op == OpId::kPow) {
        dx = eagle::is_floating(d) ? Domain::kPositive : Domain::kUnit;
        dy = Domain::kExponent;
      } else if (kDivisionOps.count(op) && !eagle::is_floating(d)) {
        dy = Domain::kPositive;  // [1, 1000], no specials: never 0
      }
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto& [sx, sy] = pairs[p];
        const Tensor x = make(d, sx, dx, seed_of(static_cast<int>(op), p, 1), true);
        const Tensor y = make(d, sy, dy, seed_of(static_cast<int>(op), p, 2), true);
        compare_op(
            &coverage, op, d, shapes_str(sx, sy), [&] { return apply_binary(op, x, y); },
            comparison ? exact() : float_tol(d));
      }
    }
  }
  coverage.check();
}

TEST_CASE("elementwise unary ops on every shape") {
  HardPlacement hard;
  Coverage coverage(kUnaryOps);
  for (OpId op : kUnaryOps) {
    Domain domain = Domain::kGeneral;
    if (op == OpId::kExp || op == OpId::kSigmoid || op == OpId::kTanh || op == OpId::kErf ||
        op == OpId::kSin || op == OpId::kCos) {
      domain = Domain::kWide;
    }
    if (op == OpId::kLog || op == OpId::kSqrt || op == OpId::kLog1p || op == OpId::kRsqrt) {
      domain = Domain::kPositive;
    }
    for (DType d : gpu_dtypes(op)) {
      for (std::size_t s = 0; s < kElementwiseShapes.size(); ++s) {
        const Tensor x =
            make(d, kElementwiseShapes[s], domain, seed_of(static_cast<int>(op), s, 3), true);
        compare_op(
            &coverage, op, d, x.shape().to_string(), [&] { return apply_unary(op, x); },
            kPredicateOps.count(op) ? exact() : float_tol(d));
      }
    }
  }
  coverage.check();
}

TEST_CASE("the fused activation gradients (ReluGrad, SigmoidGrad, ...) match the CPU") {
  HardPlacement hard;
  Coverage coverage(kGradOps);
  for (OpId op : kGradOps) {
    for (DType d : gpu_dtypes(op)) {
      for (std::size_t s = 0; s < kElementwiseShapes.size(); ++s) {
        const bool positive = op == OpId::kSqrtGrad || op == OpId::kRsqrtGrad;
        const Tensor a =
            make(d, kElementwiseShapes[s], positive ? Domain::kPositive : Domain::kGeneral,
                 seed_of(static_cast<int>(op), s, 5), true);
        const Tensor b = make(d, kElementwiseShapes[s], Domain::kGeneral,
                              seed_of(static_cast<int>(op), s, 6), true);
        compare_op(
            &coverage, op, d, a.shape().to_string(),
            [&] {
              switch (op) {
                case OpId::kReluGrad:
                  return eagle::autodiff::relu_grad(b, a);
                case OpId::kSigmoidGrad:
                  return eagle::autodiff::sigmoid_grad(a, b);
                case OpId::kTanhGrad:
                  return eagle::autodiff::tanh_grad(a, b);
                case OpId::kSqrtGrad:
                  return eagle::autodiff::sqrt_grad(a, b);
                case OpId::kRsqrtGrad:
                  return eagle::autodiff::rsqrt_grad(a, b);
                default:
                  return eagle::autodiff::reciprocal_grad(a, b);
              }
            },
            float_tol(d));
      }
    }
  }
  coverage.check();
}

TEST_CASE("optimizer updates (ResourceApply*) match the CPU over three steps") {
  HardPlacement hard;
  Coverage coverage(kOptimizerOps);
  namespace opt = eagle::optimizers;
  const auto run = [](const std::function<std::unique_ptr<opt::Optimizer>()>& make,
                      const Tensor& init, const Tensor& grad) {
    auto optimizer = make();
    eagle::Variable v(init);
    for (int step = 0; step < 3; ++step) optimizer->apply_gradients({{grad, v}});
    return v.read_value();
  };
  const std::vector<std::pair<OpId, std::function<std::unique_ptr<opt::Optimizer>()>>> cases = {
      {OpId::kResourceApplyGradientDescent, [] { return std::make_unique<opt::SGD>(); }},
      {OpId::kResourceApplyKerasMomentum,
       [] {
         return std::make_unique<opt::SGD>(opt::SGDOptions{0.1, 0.9, true});
       }},
      {OpId::kResourceApplyAdam, [] { return std::make_unique<opt::Adam>(); }},
      {OpId::kResourceApplyAdamWithAmsgrad,
       [] {
         return std::make_unique<opt::Adam>(opt::AdamOptions{0.1, 0.9, 0.999, 1e-7, true});
       }},
      {OpId::kResourceApplyRMSProp,
       [] {
         return std::make_unique<opt::RMSprop>(opt::RMSpropOptions{0.01, 0.9, 0.5});
       }},
      {OpId::kResourceApplyCenteredRMSProp,
       [] {
         return std::make_unique<opt::RMSprop>(opt::RMSpropOptions{0.01, 0.9, 0.5, 1e-7, true});
       }},
      {OpId::kResourceApplyAdagradV2, [] { return std::make_unique<opt::Adagrad>(); }},
  };
  for (const auto& [op, make_optimizer] : cases) {
    for (DType d : gpu_dtypes(op)) {
      const Tensor init = make(d, {5, 7}, Domain::kGeneral, 71, true);
      const Tensor grad = make(d, {5, 7}, Domain::kGeneral, 72, true);
      compare_op(
          &coverage, op, d, "[5,7] three steps", [&] { return run(make_optimizer, init, grad); },
          float_tol(d));
    }
  }
  coverage.check();
}

TEST_CASE("variables: create, read, assign, assign_add and assign_sub on the GPU") {
  HardPlacement hard;
  Coverage coverage(kVariableOps);
  for (OpId op : kVariableOps) {
    for (DType d : gpu_dtypes(op)) {
      const Tensor init = make(d, {3, 5}, Domain::kSmall, 61, true);
      const Tensor delta = make(d, {3, 5}, Domain::kSmall, 62, true);
      compare_op(
          &coverage, op, d, "[3,5]",
          [&] {
            eagle::Variable v(init);
            const Tensor before = v.read_value();
            if (op == OpId::kAssignAddVariableOp) v.assign_add(delta);
            if (op == OpId::kAssignSubVariableOp) v.assign_sub(delta);
            if (op == OpId::kAssignVariableOp) v.assign(delta);
            // The value read first must not have changed (copy on write).
            return eagle::concat({before, v.read_value()}, 0);
          },
          exact());
    }
  }
  coverage.check();
}

namespace {

template <class T>
Tensor integer_extremes() {
  using L = std::numeric_limits<T>;
  return eagle::constant(std::vector<T>{L::lowest(), L::max(), L::lowest(), L::max(), 0, -1, 1,
                                        T(65536), T(46341), T(3037000500LL % L::max()), -7, 7},
                         Shape{12});
}

template <class T>
Tensor integer_pair() {
  return eagle::constant(std::vector<T>{std::numeric_limits<T>::max(), 1, -7, 0}, Shape{2, 2});
}

}  // namespace

TEST_CASE("integer arithmetic wraps on the GPU as on the CPU") {
  HardPlacement hard;
  for (DType d : {DType::kInt32, DType::kInt64}) {
    if (!gpu_implements(OpId::kAddV2, d)) continue;
    const bool is32 = d == DType::kInt32;
    const Tensor extremes =
        is32 ? integer_extremes<std::int32_t>() : integer_extremes<std::int64_t>();
    const Tensor ones = make_values(d, std::vector<double>(12, 1.0), {12});
    const Tensor minus = make_values(d, std::vector<double>(12, -1.0), {12});
    const Tensor small = make_values(d, {2, 2, 3, -3, 0, -2, 0, 5, 7, 2, 2, 0}, {12});
    const Tensor exps = make_values(d, {31, 63, 40, 2, 1, 0, 0, 2, 2, 3, 1, 5}, {12});
    // {INT_MAX, 1, -7, 0}: row sums wrap (INT_MIN) or are odd (-7), so means truncate.
    const Tensor pair = is32 ? integer_pair<std::int32_t>() : integer_pair<std::int64_t>();
    struct Case {
      OpId op;
      const char* what;
      std::function<Tensor()> run;
    };
    const std::vector<Case> cases = {
        {OpId::kSub, "INT_MIN - 1 == INT_MAX", [&] { return extremes - ones; }},
        {OpId::kAddV2, "INT_MAX + 1 == INT_MIN", [&] { return extremes + ones; }},
        {OpId::kMul, "INT_MIN * -1 == INT_MIN", [&] { return extremes * minus; }},
        {OpId::kMul, "x * x", [&] { return extremes * extremes; }},
        {OpId::kNeg, "-INT_MIN == INT_MIN", [&] { return -extremes; }},
        {OpId::kAbs, "abs(INT_MIN) == INT_MIN", [&] { return eagle::abs(extremes); }},
        {OpId::kSquare, "square wraps", [&] { return eagle::square(extremes); }},
        {OpId::kRelu, "relu of the extremes", [&] { return eagle::relu(extremes); }},
        {OpId::kPow, "pow wraps (2^31, 2^63, 3^40)", [&] { return eagle::pow(small, exps); }},
        {OpId::kPow, "pow of the extremes", [&] { return eagle::pow(extremes, exps); }},
        {OpId::kMaximum, "maximum", [&] { return eagle::maximum(extremes, small); }},
        {OpId::kMinimum, "minimum", [&] { return eagle::minimum(extremes, small); }},
        {OpId::kSum, "sum wraps", [&] { return eagle::reduce_sum(extremes); }},
        {OpId::kSum, "sum of INT_MAX and 1 wraps", [&] { return eagle::reduce_sum(pair, {1}); }},
        {OpId::kMean, "mean = wrapped sum / n, truncated toward zero",
         [&] { return eagle::reduce_mean(pair, {1}); }},
        {OpId::kMean, "mean over axis 0", [&] { return eagle::reduce_mean(pair, {0}); }},
        {OpId::kMean, "mean of the extremes", [&] { return eagle::reduce_mean(extremes); }},
        {OpId::kAddN, "add_n wraps",
         [&] {
           return eagle::add_n({extremes, extremes, ones});
         }},
        {OpId::kRealDiv, "true division: casts to float64, INT_MIN / -1",
         [&] { return eagle::divide(extremes, minus); }},
        {OpId::kRealDiv, "true division by 0: inf and NaN",
         [&] { return eagle::divide(extremes, small); }},
        {OpId::kFloorDiv, "INT_MIN // -1 wraps, floor toward -inf",
         [&] { return eagle::floordiv(extremes, minus); }},
        {OpId::kFloorMod, "x % -1 == 0, the divisor's sign",
         [&] { return eagle::floormod(extremes, minus); }},
        {OpId::kFloorDiv, "negative operands",
         [&] { return eagle::floordiv(small, eagle::abs(small) + ones); }},
        {OpId::kTruncateDiv, "INT_MIN / -1 wraps",
         [&] { return eagle::truncatediv(extremes, minus); }},
        {OpId::kTruncateMod, "remainders of the extremes",
         [&] { return eagle::truncatemod(extremes, eagle::abs(small) + ones); }},
        {OpId::kSquaredDifference, "squared difference wraps",
         [&] { return eagle::squared_difference(extremes, small); }},
        {OpId::kCast, "int64 -> int32 and back wraps",
         [&] { return eagle::cast(eagle::cast(extremes * small, DType::kInt32), d); }},
    };
    for (const Case& c : cases) {
      // Integer true division runs as two Casts and a float64 RealDiv.
      if (c.op == OpId::kRealDiv) {
        compare_op(nullptr, c.op, DType::kFloat64, c.what, c.run, float_tol(DType::kFloat64));
      } else if (gpu_implements(c.op, d)) {
        compare_op(nullptr, c.op, d, c.what, c.run, exact());
      }
    }
    // The hand-computed values on the GPU, not only agreement with the CPU.
    auto scope = eagle::device(kGpu0);
    eagle::visit_dtype(d, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        using L = std::numeric_limits<T>;
        CHECK((extremes - ones).to_vector<T>()[0] == L::max());
        CHECK((extremes + ones).to_vector<T>()[1] == L::lowest());
        CHECK((-extremes).to_vector<T>()[0] == L::lowest());
        CHECK(eagle::abs(extremes).to_vector<T>()[0] == L::lowest());
        CHECK((extremes * minus).to_vector<T>()[0] == L::lowest());
      }
      return 0;
    });
    if (is32) {
      CHECK(eagle::reduce_mean(pair, {1}).to_vector<std::int32_t>() ==
            std::vector<std::int32_t>{-1073741824, -3});
    }
  }
}

TEST_CASE("integer pow with a negative exponent is refused on the GPU too") {
  HardPlacement hard;
  for (DType d : {DType::kInt32, DType::kInt64}) {
    if (!gpu_implements(OpId::kPow, d)) continue;
    INFO(str(d));
    const auto message =
        Catch::Message("Integers to negative integer powers are not allowed [Op:Pow]");
    const Tensor base = make_values(d, {2, 3, 4}, {3});
    const Tensor host_exponents = make_values(d, {1, -1, 2}, {3});
    std::vector<double> long_exponents(65537, 2.0);
    long_exponents.back() = -1;  // only the last element, in the tail of a vector loop
    const Tensor long_base = make(d, {65537}, Domain::kUnit, 4);
    const Tensor long_exp = make_values(d, long_exponents, {65537});
    auto scope = eagle::device(kGpu0);
    CHECK_THROWS_MATCHES(eagle::pow(base, host_exponents), eagle::InvalidArgumentError, message);
    // Exponents already in GPU memory, maybe still being written by a queued kernel.
    const Tensor gpu_exponents = eagle::identity(host_exponents) * make_values(d, {1}, {});
    CHECK_THROWS_MATCHES(eagle::pow(base, gpu_exponents), eagle::InvalidArgumentError, message);
    CHECK_THROWS_MATCHES(eagle::pow(base, make_values(d, {-1}, {})), eagle::InvalidArgumentError,
                         message);
    CHECK_THROWS_MATCHES(eagle::pow(long_base, long_exp), eagle::InvalidArgumentError, message);
    // The device is still usable, and nothing was left queued to fail later.
    const Tensor ok = eagle::pow(base, make_values(d, {1, 0, 2}, {3}));
    CHECK(on_device(ok, kGpu0));
    CHECK(eagle::cast(ok, DType::kInt64).to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{2, 1, 16});
    CHECK_NOTHROW(eagle::sync_devices());
  }
}

TEST_CASE("NaN propagates through maximum, minimum, relu, reduce_max, reduce_min and argmax") {
  HardPlacement hard;
  for (DType d : kFloatDTypes) {
    if (!gpu_implements(OpId::kMaximum, d)) continue;
    INFO(str(d));
    const Tensor x = make_values(d, {kNaN, 1, kNaN, -kInf, 2, 3, kNaN, 0, -0.0}, {9});
    const Tensor y = make_values(d, {1, kNaN, kNaN, kNaN, kInf, -kInf, 0, kNaN, 0}, {9});
    compare_op(
        nullptr, OpId::kMaximum, d, "maximum", [&] { return eagle::maximum(x, y); }, exact());
    compare_op(
        nullptr, OpId::kMinimum, d, "minimum", [&] { return eagle::minimum(x, y); }, exact());
    compare_op(
        nullptr, OpId::kRelu, d, "relu", [&] { return eagle::relu(x); }, exact());
    {
      // fmax/fmin return the number, not the NaN: the GPU must not.
      auto scope = eagle::device(kGpu0);
      const auto m = eagle::cast(eagle::maximum(x, y), DType::kFloat64).to_vector<double>();
      for (int i : {0, 1, 2, 3, 6, 7}) CHECK(std::isnan(m[static_cast<std::size_t>(i)]));
    }
    // A NaN in row r at column r * 5 (the first, the middle, the last of 33, and a row of
    // NaN only); rows 0 and 7 have none. Columns then have NaNs in some rows only.
    std::vector<double> grid = [&] {
      std::mt19937_64 rng(11);
      std::vector<double> v(8 * 33);
      for (double& e : v) e = std::uniform_real_distribution<double>(-2, 2)(rng);
      return v;
    }();
    for (int r = 1; r < 7; ++r) grid[static_cast<std::size_t>(r * 33 + std::min(32, r * 6))] = kNaN;
    grid[2 * 33 + 32] = kNaN;  // a second NaN in row 2
    for (int c = 0; c < 33; ++c) grid[static_cast<std::size_t>(5 * 33 + c)] = kNaN;
    const Tensor g = make_values(d, grid, {8, 33});
    std::vector<double> long_row(4097, 1.0);
    long_row[4096] = kNaN;
    const Tensor tail = make_values(d, long_row, {4097});
    for (OpId op : {OpId::kMax, OpId::kMin}) {
      for (const Axes& axes : {Axes{1}, Axes{0}, Axes{}}) {
        compare_op(
            nullptr, op, d, "rows with NaN", [&] { return apply_reduce(op, g, axes, false); },
            exact());
      }
      compare_op(
          nullptr, op, d, "NaN last of 4097", [&] { return apply_reduce(op, tail, {}, false); },
          exact());
    }
    for (int axis : {0, 1}) {
      compare_op(
          nullptr, OpId::kArgMax, d, "argmax with NaN, axis " + std::to_string(axis),
          [&] { return eagle::argmax(g, axis); }, exact());
      compare_op(
          nullptr, OpId::kArgMin, d, "argmin with NaN, axis " + std::to_string(axis),
          [&] { return eagle::argmin(g, axis); }, exact());
    }
    compare_op(
        nullptr, OpId::kArgMax, d, "argmax, NaN last of 4097",
        [&] { return eagle::argmax(tail, 0); }, exact());
    // The hand-computed answers on the GPU: NaN is passed over (Note [ArgMax and NaN]), a row
    // of NaN gives 0.
    auto scope = eagle::device(kGpu0);
    CHECK(std::isnan(eagle::cast(eagle::reduce_max(tail), DType::kFloat64).item<double>()));
    CHECK(eagle::argmax(tail, 0).item<std::int64_t>() == 0);
    const auto rows = eagle::argmax(g, 1).to_vector<std::int64_t>();
    CHECK(rows[5] == 0);
    for (int r = 1; r < 7; ++r) {
      if (r != 5) CHECK(rows[static_cast<std::size_t>(r)] != std::min(32, r * 6));
    }
  }
}

// ---- Reductions ---------------------------------------------------------------------------------

TEST_CASE("reductions over every axis subset, keepdims, empty and long axes") {
  HardPlacement hard;
  Coverage coverage(kReduceOps);
  struct Case {
    Shape shape;
    std::vector<std::vector<int>> axes;  // {-99}: Axes() (all); {}: Axes::none()
  };
  std::vector<std::vector<int>> every_subset;
  for (int mask = 0; mask < 8; ++mask) {
    std::vector<int> a;
    for (int i = 0; i < 3; ++i) {
      if (mask & (1 << i)) a.push_back(i);
    }
    every_subset.push_back(a);
  }
  every_subset.push_back({-99});
  every_subset.push_back({-1});
  every_subset.push_back({0, -1});
  const std::vector<Case> cases = {
      {{5, 7, 9}, every_subset},
      {{4, 33, 65}, {{0}, {1}, {2}, {0, 2}, {-99}}},
      {{3, 1, 4097}, {{0}, {2}, {0, 2}, {1}}},
      {{2, 3, 0}, every_subset},
      {{}, {{-99}, {}}},
      {{0}, {{-99}, {0}}},
      {{1}, {{-99}}},
      {{1023}, {{-99}}},
      {{65537}, {{-99}}},
      {{2, 70001}, {{1}, {0}}},
      {{70001, 3}, {{0}}},
      {{257, 1025}, {{0}, {1}}},
  };
  for (OpId op : kReduceOps) {
    for (DType d : gpu_dtypes(op)) {
      for (std::size_t c = 0; c < cases.size(); ++c) {
        // Floats in [-1, 1] (sums cancel); integers over their whole range (sums wrap).
        const Tensor x =
            make(d, cases[c].shape, eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral,
                 seed_of(static_cast<int>(op), c, 4));
        for (const auto& list : cases[c].axes) {
          const bool all = list.size() == 1 && list[0] == -99;
          const Axes axes = all ? Axes() : list.empty() ? Axes::none() : Axes(list);
          for (bool keepdims : {false, true}) {
            std::string what = x.shape().to_string() + " axes ";
            if (all) {
              what += "all";
            } else {
              what += "{";
              for (int a : list) what += std::to_string(a) + " ";
              what += "}";
            }
            if (keepdims) what += " keepdims";
            Tol tol = exact();
            if ((op == OpId::kSum || op == OpId::kMean) && eagle::is_floating(d)) {
              const Tensor magnitudes = eagle::with_device(kCpu0, [&] {
                return op == OpId::kSum ? eagle::reduce_sum(abs64(x), axes, keepdims)
                                        : eagle::reduce_mean(abs64(x), axes, keepdims);
              });
              const std::int64_t out = magnitudes.num_elements();
              const std::int64_t n = out == 0 ? 0 : x.num_elements() / out;
              tol = sum_tol(d, n, magnitudes);
            }
            compare_op(
                &coverage, op, d, what, [&] { return apply_reduce(op, x, axes, keepdims); }, tol);
          }
        }
      }
    }
  }
  coverage.check();
}

TEST_CASE("argmax and argmin on each axis, with ties (the first wins)") {
  HardPlacement hard;
  Coverage coverage(kArgMaxOps);
  struct Case {
    Shape shape;
    std::vector<int> axes;
  };
  const std::vector<Case> cases = {{{5, 7, 9}, {0, 1, 2, -1}}, {{4097}, {0}},   {{65537}, {0}},
                                   {{33, 1025}, {0, 1}},       {{1}, {0}},      {{3, 0}, {0}},
                                   {{1023, 3}, {0, 1}},        {{2, 1, 3}, {1}}};
  for (DType d : gpu_dtypes(OpId::kArgMax)) {
    for (std::size_t c = 0; c < cases.size(); ++c) {
      // Whole numbers in [-2, 2]: every row has ties for the maximum.
      const Tensor x = make(d, cases[c].shape, Domain::kSmall, seed_of(c, 5));
      for (int axis : cases[c].axes) {
        compare_op(
            &coverage, OpId::kArgMax, d, x.shape().to_string() + " axis " + std::to_string(axis),
            [&] { return eagle::argmax(x, axis); }, exact());
        compare_op(
            &coverage, OpId::kArgMin, d, x.shape().to_string() + " axis " + std::to_string(axis),
            [&] { return eagle::argmin(x, axis); }, exact());
      }
    }
    if (eagle::is_floating(d)) {  // random values: no ties, max anywhere (also the tail)
      const Tensor x = make(d, {7, 1023}, Domain::kWide, 6);
      for (int axis : {0, 1}) {
        compare_op(
            &coverage, OpId::kArgMax, d, "[7,1023] random axis " + std::to_string(axis),
            [&] { return eagle::argmax(x, axis); }, exact());
      }
    }
  }
  coverage.check();
}

// ---- Linear algebra -----------------------------------------------------------------------------

namespace {

// |A||B| (float64, on the CPU): the scale of a matmul's rounding error. Each element of A @ B
// is a dot product of length k whose error is bounded by about k*u*(|a_i| . |b_j|) (u the unit
// roundoff of the accumulation, or of the inputs' rounding to TF32), whatever the cancellation
// in the result.
Tensor matmul_magnitudes(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return eagle::with_device(kCpu0, [&] { return eagle::matmul(abs64(a), abs64(b), ta, tb); });
}

// Float32: 1e-5 of |A||B| (about 170 units of roundoff: generous for any summation order up to
// k ~ 10^4); TF32 rounds each input to 10 mantissa bits (relative error <= 2^-11 each, so
// <= 2^-10 per product): 1e-3 of |A||B|. Float64: 1e-12. The 16-bit floats: products are exact
// in float32 and accumulated there, then the result rounds once: their own tolerance.
Tol matmul_tol(DType d, bool tf32, Tensor magnitudes) {
  Tol t = float_tol(d);
  t.scale = std::move(magnitudes);
  t.scale_rel = d == DType::kFloat32 ? (tf32 ? 1e-3 : 1e-5) : t.rel;
  return t;
}

Shape matrix_shape(std::vector<std::int64_t> batch, std::int64_t rows, std::int64_t cols,
                   bool transposed) {
  batch.push_back(transposed ? cols : rows);
  batch.push_back(transposed ? rows : cols);
  return Shape(batch);
}

}  // namespace

TEST_CASE("matmul and batched matmul: transposes, broadcast batches, odd sizes, TF32 off and on") {
  HardPlacement hard;
  Coverage coverage(kMatMulOps);
  struct Mkn {
    std::int64_t m, k, n;
  };
  const std::vector<Mkn> sizes = {{1, 1, 1},    {1, 7, 1},       {3, 5, 2},    {17, 33, 65},
                                  {64, 64, 64}, {128, 128, 128}, {1, 1025, 1}, {257, 1, 129},
                                  {0, 4, 3},    {3, 0, 4},       {4, 3, 0},    {513, 513, 513}};
  struct Batched {
    std::vector<std::int64_t> a, b;
    Mkn mkn;
  };
  const std::vector<Batched> batched = {
      {{2, 1}, {3}, {5, 7, 3}}, {{2, 1}, {3}, {17, 33, 9}}, {{4}, {}, {6, 5, 7}},
      {{}, {4}, {6, 5, 7}},     {{1}, {6}, {8, 16, 4}},     {{2, 3}, {2, 3}, {7, 9, 11}},
      {{0}, {0}, {3, 4, 5}},    {{2}, {2}, {0, 4, 5}},      {{3}, {1}, {33, 65, 17}}};
  for (DType d : gpu_dtypes(OpId::kMatMul)) {
    for (bool tf32 : {false, true}) {
      if (tf32 && d != DType::kFloat32) continue;  // TF32 concerns float32 only
      const Tf32 mode(tf32);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const Mkn& s = sizes[i];
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          if (s.m == 513 && t != 0 && t != 3) continue;  // the large case: two combinations
          const Tensor a = make(d, matrix_shape({}, s.m, s.k, ta), Domain::kUnit, seed_of(i, t, 1));
          const Tensor b = make(d, matrix_shape({}, s.k, s.n, tb), Domain::kUnit, seed_of(i, t, 2));
          compare_op(
              &coverage, OpId::kMatMul, d,
              a.shape().to_string() + " @ " + b.shape().to_string() + (ta ? " ta" : "") +
                  (tb ? " tb" : "") + (tf32 ? " TF32" : ""),
              [&] { return eagle::matmul(a, b, ta, tb); },
              matmul_tol(d, tf32, matmul_magnitudes(a, b, ta, tb)));
        }
      }
    }
  }
  for (DType d : gpu_dtypes(OpId::kBatchMatMulV2)) {
    for (bool tf32 : {false, true}) {
      if (tf32 && d != DType::kFloat32) continue;
      const Tf32 mode(tf32);
      for (std::size_t i = 0; i < batched.size(); ++i) {
        const Batched& c = batched[i];
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          const Tensor a =
              make(d, matrix_shape(c.a, c.mkn.m, c.mkn.k, ta), Domain::kUnit, seed_of(i, t, 3));
          const Tensor b =
              make(d, matrix_shape(c.b, c.mkn.k, c.mkn.n, tb), Domain::kUnit, seed_of(i, t, 4));
          compare_op(
              &coverage, OpId::kBatchMatMulV2, d,
              a.shape().to_string() + " @ " + b.shape().to_string() + (ta ? " ta" : "") +
                  (tb ? " tb" : "") + (tf32 ? " TF32" : ""),
              [&] { return eagle::matmul(a, b, ta, tb); },
              matmul_tol(d, tf32, matmul_magnitudes(a, b, ta, tb)));
        }
      }
    }
  }
  coverage.check();
}

TEST_CASE("add_n of 1 to 20 inputs") {
  HardPlacement hard;
  Coverage coverage(kAddNOps);
  for (DType d : gpu_dtypes(OpId::kAddN)) {
    const Domain domain = eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral;
    std::vector<Tensor> inputs;
    for (int n = 1; n <= 20; ++n) {
      inputs.push_back(make(d, {33, 31}, domain, seed_of(n, 6)));
      std::vector<Tensor> magnitudes;
      for (const Tensor& x : inputs) magnitudes.push_back(abs64(x));
      const Tensor scale = eagle::with_device(kCpu0, [&] { return eagle::add_n(magnitudes); });
      compare_op(
          &coverage, OpId::kAddN, d, std::to_string(n) + " inputs of [33,31]",
          [&] { return eagle::add_n(inputs); }, sum_tol(d, n, scale));
    }
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{7}, Shape{65537}, Shape{2, 0, 3}}) {
      std::vector<Tensor> three;
      for (int i = 0; i < 3; ++i) three.push_back(make(d, shape, domain, seed_of(i, 7), true));
      std::vector<Tensor> magnitudes;
      for (const Tensor& x : three) magnitudes.push_back(abs64(x));
      const Tensor scale = eagle::with_device(kCpu0, [&] { return eagle::add_n(magnitudes); });
      compare_op(
          &coverage, OpId::kAddN, d, "3 inputs of " + shape.to_string(),
          [&] { return eagle::add_n(three); }, sum_tol(d, 3, scale));
    }
  }
  coverage.check();
}

TEST_CASE("softmax on rows of length 1, 33 and 1025, large values, infinities and NaN") {
  HardPlacement hard;
  Coverage coverage(kSoftmaxOps);
  for (DType d : gpu_dtypes(OpId::kSoftmax)) {
    struct Case {
      Shape shape;
      double scale;  // logits are kWide values times this
    };
    const std::vector<Case> cases = {
        {{1}, 1},    {{7, 1}, 1}, {{5, 33}, 1},    {{3, 1025}, 1},   {{4097}, 1},   {{2, 3, 33}, 1},
        {{0, 5}, 1}, {{5, 0}, 1}, {{4, 33}, 1000}, {{3, 1025}, 500}, {{2, 7}, 1e-3}};
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const Shape& shape = cases[c].shape;
      const Tensor wide = make(d, shape, Domain::kWide, seed_of(c, 8));
      const Tensor x =
          eagle::with_device(kCpu0, [&] { return wide * make_values(d, {cases[c].scale}, {}); });
      // The row sum adds n positive terms: the length-scaled part of sum_tol, relative to the
      // value itself (the sum of magnitudes of the probabilities is 1).
      Tol tol = float_tol(d);
      const std::int64_t n = shape.rank() ? shape[shape.rank() - 1] : 1;
      tol.rel += accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(n)));
      compare_op(
          &coverage, OpId::kSoftmax, d, shape.to_string() + " logits times " + show(cases[c].scale),
          [&] { return eagle::softmax(x); }, tol);
    }
    // Rows: all equal; one -inf; all -inf (NaN row); a NaN (NaN row); a +inf (NaN row, as the
    // CPU computes inf - inf); one huge logit.
    std::vector<double> rows(6 * 33, 0.5);
    rows[1 * 33 + 3] = -kInf;
    for (int i = 0; i < 33; ++i) rows[static_cast<std::size_t>(2 * 33 + i)] = -kInf;
    rows[3 * 33 + 32] = kNaN;
    rows[4 * 33 + 7] = kInf;
    rows[5 * 33 + 20] = 60000;
    const Tensor special = make_values(d, rows, {6, 33});
    compare_op(
        &coverage, OpId::kSoftmax, d, "special rows", [&] { return eagle::softmax(special); },
        float_tol(d));
  }
  coverage.check();
}

// ---- Shape ops ----------------------------------------------------------------------------------

TEST_CASE("reshape, expand_dims, squeeze, transpose, concat and slice move bytes exactly") {
  HardPlacement hard;
  Coverage coverage(kShapeOps);
  for (DType d : kAllDTypes) {
    const Tensor x = make(d, {2, 3, 4}, Domain::kGeneral, 21, true);
    const Tensor e = make(d, {0, 3}, Domain::kGeneral, 22);
    const Tensor scalar = make(d, {}, Domain::kGeneral, 23);
    const Tensor ones = make(d, {1, 3, 1, 4}, Domain::kGeneral, 24, true);
    if (gpu_implements(OpId::kReshape, d)) {
      for (const auto& dims :
           std::vector<std::vector<std::int64_t>>{{4, 6}, {24}, {-1, 2}, {2, 3, 4, 1}}) {
        std::string what = "[2,3,4] ->";
        for (auto n : dims) what += " " + std::to_string(n);
        compare_op(
            &coverage, OpId::kReshape, d, what, [&] { return eagle::reshape(x, dims); }, exact());
      }
      compare_op(
          &coverage, OpId::kReshape, d, "[0,3] -> [3,0]",
          [&] {
            return eagle::reshape(e, {3, 0});
          },
          exact());
      compare_op(
          &coverage, OpId::kReshape, d, "[] -> [1,1]",
          [&] {
            return eagle::reshape(scalar, {1, 1});
          },
          exact());
    }
    if (gpu_implements(OpId::kExpandDims, d)) {
      for (int axis : {0, 1, 3, -1}) {
        compare_op(
            &coverage, OpId::kExpandDims, d, "axis " + std::to_string(axis),
            [&] { return eagle::expand_dims(x, axis); }, exact());
      }
      compare_op(
          &coverage, OpId::kExpandDims, d, "scalar", [&] { return eagle::expand_dims(scalar, 0); },
          exact());
    }
    if (gpu_implements(OpId::kSqueeze, d)) {
      for (const auto& axes : std::vector<std::vector<int>>{{}, {0}, {2}, {-2}, {0, 2}}) {
        compare_op(
            &coverage, OpId::kSqueeze, d, "[1,3,1,4] axes " + std::to_string(axes.size()),
            [&] { return eagle::squeeze(ones, axes); }, exact());
      }
    }
    if (gpu_implements(OpId::kTranspose, d)) {
      struct Case {
        Shape shape;
        std::vector<std::vector<int>> perms;
      };
      const std::vector<Case> cases = {
          {{7, 33}, {{1, 0}, {0, 1}}},
          {{1025, 257}, {{1, 0}}},
          {{5, 7, 9}, {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}},
          {{3, 4, 5, 6}, {{0, 2, 1, 3}, {3, 2, 1, 0}, {1, 0, 3, 2}, {0, 1, 3, 2}, {2, 3, 0, 1}}},
          {{2, 1, 33, 3}, {{3, 2, 1, 0}, {2, 0, 3, 1}}},
          {{0, 3, 4}, {{2, 0, 1}}},
          {{65537}, {{0}}},
          {{2, 3, 4, 5, 6}, {{4, 3, 2, 1, 0}, {0, 2, 4, 1, 3}}}};
      for (std::size_t c = 0; c < cases.size(); ++c) {
        const Tensor t = make(d, cases[c].shape, Domain::kGeneral, seed_of(c, 25), true);
        for (const auto& perm : cases[c].perms) {
          std::string what = t.shape().to_string() + " perm";
          for (int p : perm) what += " " + std::to_string(p);
          compare_op(
              &coverage, OpId::kTranspose, d, what, [&] { return eagle::transpose(t, perm); },
              exact());
        }
      }
      compare_op(
          &coverage, OpId::kTranspose, d, "default perm reverses",
          [&] { return eagle::transpose(x); }, exact());
    }
    if (gpu_implements(OpId::kConcatV2, d)) {
      // 1..5 inputs along each axis of a rank-3 tensor, sizes along the axis 0..5.
      for (int axis = 0; axis < 3; ++axis) {
        for (int count = 1; count <= 5; ++count) {
          std::vector<Tensor> parts;
          for (int i = 0; i < count; ++i) {
            std::vector<std::int64_t> dims = {3, 4, 5};
            dims[static_cast<std::size_t>(axis)] = (i * 2 + axis) % 6;  // includes empty parts
            parts.push_back(make(d, Shape(dims), Domain::kGeneral, seed_of(axis, count, i)));
          }
          compare_op(
              &coverage, OpId::kConcatV2, d,
              std::to_string(count) + " parts on axis " + std::to_string(axis),
              [&] { return eagle::concat(parts, axis); }, exact());
          compare_op(
              &coverage, OpId::kConcatV2, d,
              std::to_string(count) + " parts on axis " + std::to_string(axis - 3),
              [&] { return eagle::concat(parts, axis - 3); }, exact());
        }
      }
      const std::vector<Tensor> vectors = {
          make(d, {0}, Domain::kGeneral, 1), make(d, {1}, Domain::kGeneral, 2),
          make(d, {33}, Domain::kGeneral, 3), make(d, {1023}, Domain::kGeneral, 4, true)};
      compare_op(
          &coverage, OpId::kConcatV2, d, "vectors of 0, 1, 33 and 1023",
          [&] { return eagle::concat(vectors, 0); }, exact());
      compare_op(
          &coverage, OpId::kConcatV2, d, "only empty parts",
          [&] {
            return eagle::concat({e, e}, 1);
          },
          exact());
    }
    if (gpu_implements(OpId::kSlice, d)) {
      struct Case {
        Shape shape;
        std::vector<std::int64_t> begin, size;
      };
      const std::vector<Case> cases = {{{4097}, {1}, {4095}},
                                       {{4097}, {0}, {0}},
                                       {{4097}, {4096}, {-1}},
                                       {{5, 7, 9}, {1, 2, 3}, {3, 4, 5}},
                                       {{5, 7, 9}, {0, 0, 0}, {-1, -1, -1}},
                                       {{5, 7, 9}, {4, 6, 8}, {1, 1, 1}},
                                       {{5, 7, 9}, {0, 3, 0}, {5, 0, 9}},
                                       {{5, 7, 9}, {2, 0, 1}, {-1, 7, 7}},
                                       {{3, 4, 5, 6}, {1, 1, 1, 1}, {2, 2, 3, 4}},
                                       {{0, 3}, {0, 1}, {0, 2}},
                                       {{1025, 257}, {3, 5}, {1000, 250}}};
      for (std::size_t c = 0; c < cases.size(); ++c) {
        const Tensor t = make(d, cases[c].shape, Domain::kGeneral, seed_of(c, 26), true);
        std::string what = t.shape().to_string() + " begin";
        for (auto b : cases[c].begin) what += " " + std::to_string(b);
        what += " size";
        for (auto s : cases[c].size) what += " " + std::to_string(s);
        compare_op(
            &coverage, OpId::kSlice, d, what,
            [&] { return eagle::slice(t, cases[c].begin, cases[c].size); }, exact());
      }
    }
  }
  coverage.check();
}

TEST_CASE("tile, pad, reverse, split, stack and unstack move bytes exactly") {
  HardPlacement hard;
  Coverage coverage(kArrayOps);
  const auto part = [](std::vector<Tensor> parts, std::size_t i) { return parts.at(i); };
  for (DType d : kAllDTypes) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    const Tensor y = make(d, {3, 4, 5}, Domain::kGeneral, 32, true);
    const Tensor e = make(d, {0, 3}, Domain::kGeneral, 33);
    const Tensor scalar = make(d, {}, Domain::kGeneral, 34);
    const Tensor row = make(d, {1030}, Domain::kGeneral, 35, true);
    if (gpu_implements(OpId::kTile, d)) {
      for (const auto& m :
           std::vector<std::vector<std::int64_t>>{{1, 1, 1}, {2, 1, 3}, {1, 3, 1}, {0, 2, 2}}) {
        compare_op(
            &coverage, OpId::kTile, d,
            "[3,4,5] multiples " + std::to_string(m[0] * 100 + m[1] * 10 + m[2]),
            [&] { return eagle::tile(x, m); }, exact());
      }
      compare_op(
          &coverage, OpId::kTile, d, "[1030] x 70", [&] { return eagle::tile(row, {70}); },
          exact());
      compare_op(
          &coverage, OpId::kTile, d, "scalar", [&] { return eagle::tile(scalar, {}); }, exact());
    }
    const std::vector<std::vector<std::int64_t>> paddings = {{1, 2}, {3, 0}, {2, 4}};
    if (gpu_implements(OpId::kPad, d)) {
      compare_op(
          &coverage, OpId::kPad, d, "[3,4,5]", [&] { return eagle::pad(x, paddings); }, exact());
      compare_op(
          &coverage, OpId::kPad, d, "[0,3]",
          [&] {
            return eagle::pad(e, {{1, 1}, {0, 2}});
          },
          exact());
    }
    if (gpu_implements(OpId::kPadV2, d)) {
      for (double value : {1.0, -2.5, kNaN, 1e10}) {
        compare_op(
            &coverage, OpId::kPadV2, d, "[3,4,5] with " + show(value),
            [&] { return eagle::pad(x, paddings, "CONSTANT", value); }, exact());
      }
    }
    if (gpu_implements(OpId::kMirrorPad, d)) {
      for (const std::string mode : {"REFLECT", "SYMMETRIC"}) {
        compare_op(
            &coverage, OpId::kMirrorPad, d, "[3,4,5] " + mode,
            [&] {
              return eagle::pad(x, {{2, 1}, {3, 3}, {0, 4}}, mode);
            },
            exact());
        compare_op(
            &coverage, OpId::kMirrorPad, d, "[1030] " + mode,
            [&] {
              return eagle::pad(row, {{1029, 5}}, mode);
            },
            exact());
      }
    }
    if (gpu_implements(OpId::kReverseV2, d)) {
      for (const auto& axes : std::vector<std::vector<int>>{{}, {0}, {2}, {0, 1}, {0, 1, 2}}) {
        compare_op(
            &coverage, OpId::kReverseV2, d, "[3,4,5] " + std::to_string(axes.size()) + " axes",
            [&] { return eagle::reverse(x, axes); }, exact());
      }
      compare_op(
          &coverage, OpId::kReverseV2, d, "[1030]", [&] { return eagle::reverse(row, {0}); },
          exact());
    }
    if (gpu_implements(OpId::kSplit, d)) {
      for (std::size_t i = 0; i < 2; ++i) {
        compare_op(
            &coverage, OpId::kSplit, d, "[3,4,5] in 2 along 1, part " + std::to_string(i),
            [&] { return part(eagle::split(x, 2, 1), i); }, exact());
      }
      compare_op(
          &coverage, OpId::kSplit, d, "[3,4,5] in 5 along 2, part 4",
          [&] { return part(eagle::split(x, 5, 2), 4); }, exact());
      compare_op(
          &coverage, OpId::kSplit, d, "one part", [&] { return part(eagle::split(x, 1), 0); },
          exact());
    }
    if (gpu_implements(OpId::kSplitV, d)) {
      for (std::size_t i = 0; i < 3; ++i) {
        compare_op(
            &coverage, OpId::kSplitV, d, "[3,4,5] sizes 2,-1,0 along 2, part " + std::to_string(i),
            [&] {
              return part(eagle::split(x, {2, -1, 0}, 2), i);
            },
            exact());
      }
    }
    if (gpu_implements(OpId::kPack, d)) {
      for (int axis : {0, 1, 3, -1}) {
        compare_op(
            &coverage, OpId::kPack, d, "3 x [3,4,5] axis " + std::to_string(axis),
            [&] {
              return eagle::stack({x, y, x}, axis);
            },
            exact());
      }
      compare_op(
          &coverage, OpId::kPack, d, "scalars",
          [&] {
            return eagle::stack({scalar, scalar});
          },
          exact());
      compare_op(
          &coverage, OpId::kPack, d, "[0,3]",
          [&] {
            return eagle::stack({e, e}, 1);
          },
          exact());
    }
    if (gpu_implements(OpId::kUnpack, d)) {
      for (int axis : {0, 1, 2}) {
        compare_op(
            &coverage, OpId::kUnpack, d, "[3,4,5] axis " + std::to_string(axis) + ", part 2",
            [&] { return part(eagle::unstack(x, axis), 2); }, exact());
      }
    }
  }
  coverage.check();
}

TEST_CASE("cumsum and cumprod on each axis, exclusive and reverse, long axes") {
  HardPlacement hard;
  Coverage coverage(kScanOps);
  for (OpId op : kScanOps) {
    const auto scan = op == OpId::kCumsum ? eagle::cumsum : eagle::cumprod;
    for (DType d : gpu_dtypes(op)) {
      const Tensor x = make(d, {3, 4, 5}, Domain::kUnit, 41, true);
      for (int axis : {0, 1, 2, -1}) {
        for (int flags = 0; flags < 4; ++flags) {
          compare_op(
              &coverage, op, d,
              "[3,4,5] axis " + std::to_string(axis) + " flags " + std::to_string(flags),
              [&] { return scan(x, axis, (flags & 1) != 0, (flags & 2) != 0); }, exact());
        }
      }
      const Tensor long_axis = make(d, {2, 4099}, Domain::kUnit, 42);
      compare_op(
          &coverage, op, d, "[2,4099] axis 1", [&] { return scan(long_axis, 1, false, false); },
          exact());
      const Tensor empty = make(d, {0, 3}, Domain::kUnit, 43);
      compare_op(
          &coverage, op, d, "[0,3]", [&] { return scan(empty, 1, true, true); }, exact());
    }
  }
  coverage.check();
}

TEST_CASE("top_k, sort and argsort: ties, NaN, sorted and not, long rows") {
  HardPlacement hard;
  Coverage coverage(kSortOps);
  for (DType d : gpu_dtypes(OpId::kTopKV2)) {
    const Tensor ties = make(d, {7, 33}, Domain::kSmall, 51, true);
    const Tensor general = make(d, {3, 1030}, Domain::kGeneral, 52, true);
    const Tensor empty = make(d, {4, 0}, Domain::kGeneral, 53);
    for (const Tensor* x : {&ties, &general}) {
      for (int k : {0, 1, 5, 33}) {
        for (bool sorted : {true, false}) {
          const std::string what =
              x->shape().to_string() + " k " + std::to_string(k) + (sorted ? "" : " unsorted");
          compare_op(
              &coverage, OpId::kTopKV2, d, what + " values",
              [&] { return eagle::top_k(*x, k, sorted).values; }, exact());
          compare_op(
              &coverage, OpId::kTopKV2, d, what + " indices",
              [&] { return eagle::top_k(*x, k, sorted).indices; }, exact());
        }
      }
    }
    compare_op(
        &coverage, OpId::kTopKV2, d, "[4,0] k 0", [&] { return eagle::top_k(empty, 0).values; },
        exact());
    for (int axis : {0, 1}) {
      for (const std::string direction : {"ASCENDING", "DESCENDING"}) {
        compare_op(
            &coverage, OpId::kTopKV2, d, "sort axis " + std::to_string(axis) + " " + direction,
            [&] { return eagle::sort(ties, axis, direction); }, exact());
        compare_op(
            &coverage, OpId::kTopKV2, d, "argsort axis " + std::to_string(axis) + " " + direction,
            [&] { return eagle::argsort(general, axis, direction); }, exact());
      }
    }
  }
  coverage.check();
}

// ---- Indexing ops -------------------------------------------------------------------------------

TEST_CASE("gather, gather_nd, where, select, strided_slice and einsum match the CPU") {
  HardPlacement hard;
  const Tf32 no_tf32(false);  // einsum's product: float32 as on the CPU
  Coverage coverage(kIndexOps);
  const auto idx = [](DType index_dtype, const std::vector<double>& v, const Shape& s) {
    return make_values(index_dtype, v, s);
  };
  for (DType d : kAllDTypes) {
    const Tensor x = make(d, {4, 5, 6}, Domain::kSmall, 31, true);
    if (gpu_implements(OpId::kGatherV2, d)) {
      for (DType it : {DType::kInt32, DType::kInt64}) {
        const Tensor i1 = idx(it, {3, 0, 3, 1, 2}, {5});
        const Tensor i2 = idx(it, {4, 0, 5, 5, 1, 2}, {2, 3});
        const Tensor ib = idx(it, {0, 4, 1, 1, 2, 3, 4, 0}, {4, 2});
        const Tensor i0 = idx(it, {}, {0});
        const std::string name = " " + str(it);
        compare_op(
            &coverage, OpId::kGatherV2, d, "axis 0" + name, [&] { return eagle::gather(x, i1); },
            exact());
        compare_op(
            &coverage, OpId::kGatherV2, d, "axis 2, 2-D indices" + name,
            [&] { return eagle::gather(x, i2, 2); }, exact());
        compare_op(
            &coverage, OpId::kGatherV2, d, "batch_dims 1" + name,
            [&] { return eagle::gather(x, ib, 1, 1); }, exact());
        compare_op(
            &coverage, OpId::kGatherV2, d, "empty indices" + name,
            [&] { return eagle::gather(x, i0, 1); }, exact());
      }
    }
    if (gpu_implements(OpId::kGatherNd, d)) {
      for (DType it : {DType::kInt32, DType::kInt64}) {
        const std::string name = " " + str(it);
        const Tensor elements = idx(it, {3, 4, 5, 0, 0, 0, 1, 2, 3}, {3, 3});
        const Tensor rows = idx(it, {3, 1, 0, 4, 2, 2}, {3, 2});
        const Tensor batched = idx(it, {1, 2, 3, 4}, {4, 1});
        compare_op(
            &coverage, OpId::kGatherNd, d, "elements" + name,
            [&] { return eagle::gather_nd(x, elements); }, exact());
        compare_op(
            &coverage, OpId::kGatherNd, d, "rows" + name, [&] { return eagle::gather_nd(x, rows); },
            exact());
        compare_op(
            &coverage, OpId::kGatherNd, d, "batch_dims 1" + name,
            [&] { return eagle::gather_nd(x, batched, 1); }, exact());
      }
    }
    if (gpu_implements(OpId::kWhere, d)) {
      const Tensor c = make(d, {3, 33, 5}, Domain::kSmall, 32, true);
      if (d == DType::kFloat16) {
        // TensorFlow's CPU kernel refuses half (UnimplementedError), and a simulated GPU runs the
        // CPU's; a CUDA GPU has one, held to the float32 result.
        coverage.hit(OpId::kWhere, d);
        const Tensor ref = eagle::with_device(
            kCpu0, [&] { return eagle::where(eagle::cast(c, DType::kFloat32)); });
        try {
          expect_match(eagle::with_device(kGpu0, [&] { return eagle::where(c); }), ref, exact(),
                       kGpu0);
          CHECK(eagle_test::real_cuda_gpu_present());
        } catch (const eagle::UnimplementedError&) {
          CHECK_FALSE(eagle_test::real_cuda_gpu_present());
        }
      } else {
        compare_op(
            &coverage, OpId::kWhere, d, "[3,33,5]", [&] { return eagle::where(c); }, exact());
        const Tensor e = make(d, {0, 3}, Domain::kSmall, 33);
        compare_op(
            &coverage, OpId::kWhere, d, "empty", [&] { return eagle::where(e); }, exact());
      }
    }
    if (gpu_implements(OpId::kSelectV2, d)) {
      const Tensor c = make(DType::kBool, {4, 1, 6}, Domain::kSmall, 34);
      const Tensor y = make(d, {5, 1}, Domain::kGeneral, 35, true);
      compare_op(
          &coverage, OpId::kSelectV2, d, "broadcast", [&] { return eagle::where(c, x, y); },
          exact());
      const Tensor c_full = make(DType::kBool, {4, 5, 6}, Domain::kSmall, 36);
      compare_op(
          &coverage, OpId::kSelectV2, d, "same shapes", [&] { return eagle::where(c_full, x, x); },
          exact());
    }
    if (gpu_implements(OpId::kStridedSlice, d)) {
      using eagle::Slice;
      compare_op(
          &coverage, OpId::kStridedSlice, d, "x[1:, ::-2, 5:0:-3]",
          [&] {
            return x.index(
                {Slice(1, std::nullopt), Slice(std::nullopt, std::nullopt, -2), Slice(5, 0, -3)});
          },
          exact());
      compare_op(
          &coverage, OpId::kStridedSlice, d, "x[..., newaxis, 2]",
          [&] {
            return x.index({eagle::Ellipsis, eagle::NewAxis, 2});
          },
          exact());
      compare_op(
          &coverage, OpId::kStridedSlice, d, "x[-1][3]", [&] { return x[-1][3]; }, exact());
      compare_op(
          &coverage, OpId::kStridedSlice, d, "x[3:1]", [&] { return x[Slice(3, 1)]; }, exact());
    }
    if (gpu_implements(OpId::kEinsum, d)) {
      const Tol tol = d == DType::kFloat32   ? within(1e-5, 1e-5)
                      : d == DType::kFloat64 ? within(1e-12, 1e-12)
                      : d == DType::kFloat16 ? within(4e-3, 4e-3)
                                             : within(3e-2, 3e-2);
      const Tensor a = make(d, {4, 5, 6}, Domain::kUnit, 37);
      const Tensor b = make(d, {4, 6, 3}, Domain::kUnit, 38);
      const Tensor m = make(d, {6, 6}, Domain::kUnit, 39);
      const Tensor v = make(d, {2, 1, 5, 6}, Domain::kUnit, 40);
      const std::vector<std::pair<std::string, std::vector<Tensor>>> cases = {
          {"bij,bjk->bik", {a, b}},
          {"bij,bkj->bki", {a, eagle::transpose(b, {0, 2, 1})}},
          {"bij,bjk->kib", {a, b}},
          {"ijk->kji", {a}},
          {"ijk->j", {a}},
          {"ii->i", {m}},
          {"ii", {m}},
          {"bij,jk->bik", {a, m}},
          {"...ij,bjk->...bik", {v, b}},
          {"ij,ij->", {m, m}},
          {"bij,bij->bi", {a, a}},
          {"i,j->ij", {m[0], m[1]}}};
      for (const auto& [eq, ins] : cases) {
        compare_op(
            &coverage, OpId::kEinsum, d, eq, [&] { return eagle::einsum(eq, ins); }, tol);
      }
    }
  }
  coverage.check();
}

// ---- Asynchronous execution and copies ----------------------------------------------------------

TEST_CASE("unsorted_segment_sum and check_numerics match the CPU") {
  HardPlacement hard;
  Coverage coverage(kSegmentAndCheckOps);
  // 40 rows into 7 segments, two rows dropped (-1); the GPU adds in any order.
  std::vector<double> ids;
  for (int r = 0; r < 40; ++r) ids.push_back(r % 9 == 4 ? -1 : (r * 5) % 7);
  for (DType d : kAllDTypes) {
    if (gpu_implements(OpId::kUnsortedSegmentSum, d)) {
      const Tensor data = make(d, {40, 3, 5}, Domain::kSmall, 41, false);
      for (DType it : {DType::kInt32, DType::kInt64}) {
        const Tensor segment_ids = make_values(it, ids, {40});
        const Tensor magnitudes = eagle::with_device(kCpu0, [&] {
          return eagle::unsorted_segment_sum(eagle::abs(eagle::cast(data, DType::kFloat64)),
                                             segment_ids, 7);
        });
        compare_op(
            &coverage, OpId::kUnsortedSegmentSum, d, "40 rows, 7 segments " + str(it),
            [&] { return eagle::unsorted_segment_sum(data, segment_ids, 7); },
            sum_tol(d, 40, magnitudes));
      }
      const Tensor empty = make(d, {0, 4}, Domain::kSmall, 42);
      compare_op(
          &coverage, OpId::kUnsortedSegmentSum, d, "no rows",
          [&] {
            return eagle::unsorted_segment_sum(empty, make_values(DType::kInt32, {}, {0}), 3);
          },
          exact());
    }
    if (gpu_implements(OpId::kCheckNumerics, d)) {
      const Tensor x = make(d, {4, 33}, Domain::kGeneral, 43);
      compare_op(
          &coverage, OpId::kCheckNumerics, d, "finite",
          [&] { return eagle::debugging::check_numerics(x, "finite"); }, exact());
    }
  }
  coverage.check();
}

TEST_CASE("many ops queued back to back, then one read") {
  HardPlacement hard;
  const Tensor x0 = make(DType::kFloat32, {4097}, Domain::kUnit, 31);
  const Tensor i0 = make(DType::kInt32, {1023}, Domain::kGeneral, 32);
  const Tensor m0 = make(DType::kFloat32, {64, 64}, Domain::kUnit, 33);
  // Contracting steps (|derivative| <= 1): rounding differences cannot grow along the chain.
  // x0 enters every step, so the elements stay apart (a chain converging to one fixed point
  // would end in a cancellation, x - mean(x) ~ 0, and check nothing).
  const auto chain = [&] {
    Tensor x = x0;
    for (int i = 0; i < 300; ++i) {
      x = eagle::tanh(x * 0.5f + x0 * 0.75f);
      x = eagle::maximum(x, -x * 0.5f) - 0.125f;
      if (i % 50 == 49) x = x - eagle::reduce_mean(x) * 0.5f;
    }
    return x;
  };
  const auto int_chain = [&] {
    Tensor x = i0;
    for (int i = 0; i < 500; ++i) x = x * 3 + 1;  // wraps
    return x;
  };
  const auto matrix_chain = [&] {
    const Tf32 off(false);
    Tensor m = m0;
    for (int i = 0; i < 40; ++i) m = eagle::softmax(eagle::matmul(m, m0, false, true)) - 0.01f;
    return m;
  };
  const Tol chain_tol = chain_of_ops_tol();
  compare_op(nullptr, OpId::kTanh, DType::kFloat32, "2700 float32 ops, then one read", chain,
             chain_tol);
  compare_op(nullptr, OpId::kMul, DType::kInt32, "1000 int32 ops, then one read", int_chain,
             exact());
  compare_op(nullptr, OpId::kMatMul, DType::kFloat32, "120 matmul, softmax and sub ops",
             matrix_chain, chain_tol);
  // Many results queued, read back in reverse order.
  std::vector<Tensor> cpu, gpu;
  {
    auto scope = eagle::device(kCpu0);
    for (int i = 0; i < 64; ++i) cpu.push_back(eagle::sqrt(eagle::abs(x0) * static_cast<float>(i)));
  }
  {
    auto scope = eagle::device(kGpu0);
    for (int i = 0; i < 64; ++i) gpu.push_back(eagle::sqrt(eagle::abs(x0) * static_cast<float>(i)));
  }
  for (int i = 63; i >= 0; --i) {
    INFO("result " << i);
    CHECK(mismatches(gpu[static_cast<std::size_t>(i)], cpu[static_cast<std::size_t>(i)],
                     float_tol(DType::kFloat32)) == "");
  }
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("a tensor dropped while a queued op still reads it") {
  HardPlacement hard;
  const Tf32 off(false);
  constexpr std::int64_t kN = std::int64_t{1} << 20;  // 4 MiB of float32
  const Tensor expected = eagle::with_device(kCpu0, [&] {
    const Tensor x = eagle::random_uniform({kN}, -1, 1, DType::kFloat32, 77);
    return eagle::exp(x) * 2.0f + eagle::abs(x);  // positive terms: no cancellation
  });
  Tensor result;
  {
    auto scope = eagle::device(kGpu0);
    // Work queued ahead, so that the reading kernels have not run when their input is dropped.
    const Tensor big = eagle::random_uniform({1024, 1024}, -1, 1, DType::kFloat32, 5);
    Tensor busy = big;
    for (int i = 0; i < 4; ++i) busy = eagle::matmul(busy, big) * 0.03f;
    Tensor x = eagle::random_uniform({kN}, -1, 1, DType::kFloat32, 77);
    result = eagle::exp(x) * 2.0f + eagle::abs(x);
    x = Tensor();  // dropped: its memory is free for the allocator, the kernels may still read
  }
  std::vector<Tensor> fillers;
  {
    auto scope = eagle::device(kGpu0);
    for (int i = 0; i < 8; ++i) fillers.push_back(eagle::fill({kN}, 1000.0 + i));
  }
  CHECK(mismatches(result, expected, float_tol(DType::kFloat32)) == "");
  for (int i = 0; i < 8; ++i) {
    auto scope = eagle::device(kGpu0);
    CHECK(eagle::reduce_max(fillers[static_cast<std::size_t>(i)]).item<float>() == 1000.0f + i);
    CHECK(eagle::reduce_min(fillers[static_cast<std::size_t>(i)]).item<float>() == 1000.0f + i);
  }
  // Host memory handed to a constant may be reused as soon as constant() returns.
  Tensor doubled;
  {
    std::vector<float> host(static_cast<std::size_t>(kN), 3.0f);
    auto scope = eagle::device(kGpu0);
    const Tensor c = eagle::constant(host, Shape{kN});
    std::fill(host.begin(), host.end(), -1.0f);
    host.clear();
    host.shrink_to_fit();
    doubled = c * 2.0f;
  }
  CHECK(on_device(doubled, kGpu0));
  const auto v = doubled.to_vector<float>();
  CHECK(std::all_of(v.begin(), v.end(), [](float e) { return e == 6.0f; }));
  CHECK_NOTHROW(eagle::sync_devices());
}

TEST_CASE("GPU to CPU to GPU round trips keep every dtype's bytes, queued results are copied") {
  HardPlacement hard;
  for (DType d : kAllDTypes) {
    if (!gpu_implements(OpId::kIdentity, d)) continue;
    for (std::size_t s = 0; s < kElementwiseShapes.size(); ++s) {
      const Tensor x = make(d, kElementwiseShapes[s], Domain::kGeneral, seed_of(s, 41), true);
      INFO(str(d) << " " << x.shape().to_string());
      const Tensor on_gpu = eagle::with_device(kGpu0, [&] { return eagle::identity(x); });
      const Tensor on_cpu = eagle::with_device(kCpu0, [&] { return eagle::identity(on_gpu); });
      const Tensor again = eagle::with_device(kGpu0, [&] { return eagle::identity(on_cpu); });
      CHECK(on_device(on_gpu, kGpu0));
      CHECK(on_device(on_cpu, kCpu0));
      CHECK(on_device(again, kGpu0));
      CHECK(mismatches(on_gpu, x, exact()) == "");
      CHECK(mismatches(on_cpu, x, exact()) == "");
      CHECK(mismatches(again, x, exact()) == "");
    }
  }
  // A CPU op reading a GPU result that may still be queued: the copy must wait for it.
  const Tensor x = make(DType::kFloat32, {65537}, Domain::kWide, 42);
  for (int i = 0; i < 4; ++i) {
    const Tensor queued = eagle::with_device(kGpu0, [&] {
      Tensor y = x;
      for (int k = 0; k < 20; ++k) y = eagle::tanh(y) + 0.5f;
      return y;
    });
    const Tensor reference = eagle::with_device(kCpu0, [&] {
      Tensor y = x;
      for (int k = 0; k < 20; ++k) y = eagle::tanh(y) + 0.5f;
      return y * 2.0f;
    });
    const Tensor on_cpu = eagle::with_device(kCpu0, [&] { return queued * 2.0f; });
    CHECK(on_device(on_cpu, kCpu0));
    CHECK(mismatches(on_cpu, reference, chain_of_ops_tol()) == "");
  }
  // The device policy "explicit" refuses the implicit copy; identity is the explicit one.
  struct ExplicitPolicy {
    ExplicitPolicy() { eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit); }
    ~ExplicitPolicy() { eagle::config::set_device_policy(eagle::DevicePolicy::kSilent); }
  } policy;
  {
    const Tensor fresh = make(DType::kFloat32, {1023}, Domain::kWide, 43);  // no GPU copy yet
    auto scope = eagle::device(kGpu0);
    CHECK_THROWS_AS(eagle::exp(fresh), eagle::InvalidArgumentError);
    const Tensor moved = eagle::identity(fresh);
    CHECK(on_device(moved, kGpu0));
    CHECK(mismatches(eagle::exp(moved),
                     eagle::with_device(kCpu0, [&] { return eagle::exp(fresh); }),
                     float_tol(DType::kFloat32)) == "");
  }
}

TEST_CASE("two GPUs: tensors move between GPU:0 and GPU:1, towers summed anywhere") {
  HardPlacement hard;
  if (logical_gpu_count() < 2) {
    WARN("only one logical GPU: the two-GPU test does not run (see main() for the split)");
    return;
  }
  const Tf32 off(false);
  const Tensor a = make(DType::kFloat32, {257, 513}, Domain::kUnit, 51);
  const Tensor b = make(DType::kFloat32, {513, 129}, Domain::kUnit, 52);
  const Tensor expected = eagle::with_device(kCpu0, [&] { return eagle::matmul(a, b); });
  const Tol tol = matmul_tol(DType::kFloat32, false, matmul_magnitudes(a, b, false, false));
  // Inputs produced on GPU:0 (maybe still queued), consumed on GPU:1.
  const Tensor a0 = eagle::with_device(kGpu0, [&] { return eagle::identity(a) * 1.0f; });
  const Tensor b0 = eagle::with_device(kGpu0, [&] { return eagle::identity(b) + 0.0f; });
  const Tensor c1 = eagle::with_device(kGpu1, [&] { return eagle::matmul(a0, b0); });
  CHECK(on_device(a0, kGpu0));
  CHECK(on_device(c1, kGpu1));
  CHECK(mismatches(c1, expected, tol) == "");
  // Every dtype GPU:0 -> GPU:1 -> GPU:0, with work queued on both in between.
  for (DType d : kAllDTypes) {
    if (!gpu_implements(OpId::kIdentity, d)) continue;
    INFO(str(d));
    const Tensor x = make(d, {4097}, Domain::kGeneral, 53, true);
    const Tensor x0 = eagle::with_device(kGpu0, [&] { return eagle::identity(x); });
    const Tensor x1 = eagle::with_device(kGpu1, [&] { return eagle::identity(x0); });
    const Tensor back = eagle::with_device(kGpu0, [&] { return eagle::identity(x1); });
    CHECK(on_device(x1, kGpu1));
    CHECK(on_device(back, kGpu0));
    CHECK(mismatches(x1, x, exact()) == "");
    CHECK(mismatches(back, x, exact()) == "");
  }
  // Towers: one matmul per GPU, summed on GPU:1, GPU:0 and the CPU.
  std::vector<Tensor> towers;
  for (const char* gpu : {kGpu0, kGpu1}) {
    towers.push_back(eagle::with_device(gpu, [&] { return eagle::matmul(a, b); }));
  }
  CHECK(on_device(towers[0], kGpu0));
  CHECK(on_device(towers[1], kGpu1));
  // Each tower is within tol of `expected`: their sum within twice that of 2 * expected.
  const Tensor twice = eagle::with_device(kCpu0, [&] { return expected * 2.0f; });
  Tol tol2 = tol;
  tol2.scale = eagle::with_device(kCpu0, [&] { return tol.scale * 2.0; });
  for (const char* where : {kGpu1, kGpu0, kCpu0}) {
    INFO("add_n on " << where);
    const Tensor sum = eagle::with_device(where, [&] { return eagle::add_n(towers); });
    CHECK(on_device(sum, where));
    CHECK(mismatches(sum, twice, tol2) == "");
  }
  // Both GPUs busy at once, then one read of each.
  std::vector<Tensor> per_gpu;
  for (const char* gpu : {kGpu0, kGpu1}) {
    per_gpu.push_back(eagle::with_device(gpu, [&] {
      Tensor m = eagle::identity(a);
      for (int i = 0; i < 30; ++i) m = eagle::tanh(m * 0.9f);
      return m;
    }));
  }
  const Tensor ref = eagle::with_device(kCpu0, [&] {
    Tensor m = a;
    for (int i = 0; i < 30; ++i) m = eagle::tanh(m * 0.9f);
    return m;
  });
  CHECK(mismatches(per_gpu[1], ref, chain_of_ops_tol()) == "");
  CHECK(mismatches(per_gpu[0], ref, chain_of_ops_tol()) == "");
  CHECK_NOTHROW(eagle::sync_devices());
}

// ---- main ---------------------------------------------------------------------------------------

namespace {

// Configures the GPUs before anything initializes the runtime. Returns an exit code, or -1 to run.
int prepare_gpus(bool require_cuda) {
  if (require_cuda) {
    if (const int skip = eagle_test::require_real_cuda_gpu("backend_ops_test")) return skip;
  } else {
    // Run by hand without EAGLE_SIMULATED_GPUS: two simulated GPUs (the variable, or real GPUs,
    // win).
    eagle::config::simulate_gpus_when_absent(2);
  }
  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    std::printf("FAIL: backend_ops_test: no GPU at all (EAGLE_SIMULATED_GPUS=0?)\n");
    return 1;
  }
  const auto details = eagle::config::get_device_details(gpus[0]);
  if (details.compute_capability && gpus.size() == 1) {
    // One real GPU: two logical GPUs of up to 8 GiB each, for the two-device test.
    const auto each =
        std::min<std::int64_t>(8192, static_cast<std::int64_t>(details.total_memory >> 20) / 4);
    eagle::config::set_logical_device_configuration(gpus[0], {{each}, {each}});
  }
  std::printf("backend_ops_test: %zu logical GPU(s) on %zu physical %s (%s)\n", logical_gpu_count(),
              gpus.size(), details.device_name.c_str(),
              details.compute_capability
                  ? ("compute capability " + std::to_string(details.compute_capability->first) +
                     "." + std::to_string(details.compute_capability->second))
                        .c_str()
                  : "simulated");
  return -1;
}

}  // namespace

int main(int argc, char* argv[]) {
  // --require-cuda: the "gpu" registration; everything else goes to Catch.
  bool require_cuda = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--require-cuda") == 0) {
      require_cuda = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  Catch::Session session;
  const int parsed = session.applyCommandLine(static_cast<int>(args.size()), args.data());
  if (parsed != 0) return parsed;
  const Catch::ConfigData& config = session.configData();
  if (config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters ||
      config.showHelp || config.libIdentify) {
    return session.run();  // listing (catch_discover_tests at build time) touches no device
  }
  const int prepared = prepare_gpus(require_cuda);
  if (prepared >= 0) return prepared;
  return eagle_test::run_result(session.run());
}
