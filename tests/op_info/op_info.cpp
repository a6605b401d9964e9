// The OpInfo table's families and exclusions, and the helpers its entries and walkers share:
// seeded inputs, tolerances and the comparison of two results (Note [OpInfo table]).
#include "op_info.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>

#include "test_support.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

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

template <class T>
std::string show_value(T v) {
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

void append(std::vector<OpInfo>& all, const char* family, std::vector<OpInfo> entries) {
  for (OpInfo& e : entries) {
    e.family = family;
    all.push_back(std::move(e));
  }
}

}  // namespace

// ---- Inputs -------------------------------------------------------------------------------------

Tensor make(DType dtype, const Shape& shape, Domain domain, std::uint64_t seed, bool specials) {
  return eagle::with_device("/CPU:0", [&] {
    return eagle::visit_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      return eagle::constant(draw<T>(shape.num_elements(), domain, seed, specials), shape);
    });
  });
}

Tensor make_values(DType dtype, const std::vector<double>& values, const Shape& shape) {
  return eagle::with_device("/CPU:0", [&] {
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
  });
}

std::uint64_t seed_of(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return (a * 1000003u + b) * 1000003u + c + 12345;
}

const std::vector<Shape>& elementwise_shapes() {
  static const std::vector<Shape> shapes = {{},     {0},    {1},     {3},       {7},      {33},
                                            {1023}, {4097}, {65537}, {2, 0, 3}, {5, 7, 9}};
  return shapes;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                                            DType::kInt64,   DType::kBool,    DType::kFloat16,
                                            DType::kBFloat16};
  return dtypes;
}

std::vector<DType> gpu_dtypes(opdefs::OpId op) {
  std::vector<DType> out;
  for (DType d : all_dtypes()) {
    if (eagle::opdefs::gpu_implements(op, d)) out.push_back(d);
  }
  return out;
}

std::vector<DType> cpu_dtypes(opdefs::OpId op) {
  std::vector<DType> out;
  for (DType d : all_dtypes()) {
    if (eagle::opdefs::cpu_implements(op, d)) out.push_back(d);
  }
  // Strings: CPU kernels only (Note [String tensors]), after the numbers.
  if (eagle::opdefs::cpu_implements(op, DType::kString)) out.push_back(DType::kString);
  return out;
}

std::string str(DType d) { return std::string(eagle::dtype_name(d)); }
std::string str(opdefs::OpId op) { return std::string(eagle::opdefs::op_name(op)); }
std::string show(double v) { return show_value(v); }

// ---- Tolerances ---------------------------------------------------------------------------------

Tol exact() { return Tol{}; }
Tol exact_tol(DType) { return Tol{}; }

Tol within(double rel, double abs) {
  Tol t;
  t.rel = rel;
  t.abs = abs;
  return t;
}

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

double unit_in_last_place(DType d) {
  switch (d) {
    case DType::kFloat16:
      return 0x1p-10;
    case DType::kBFloat16:
      return 0x1p-7;
    case DType::kFloat32:
      return 0x1p-23;
    case DType::kFloat64:
      return 0x1p-52;
    default:
      return 0;
  }
}

double accumulation_eps(DType d) { return d == DType::kFloat64 ? 0x1p-53 : 0x1p-24; }

Tol sum_tol(DType d, std::int64_t n, Tensor magnitudes) {
  Tol t = float_tol(d);
  if (!eagle::is_floating(d)) return t;
  t.scale = std::move(magnitudes);
  t.scale_rel = accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(n)));
  return t;
}

Tol chain_of_ops_tol() { return within(1e-4, 1e-6); }

Tensor abs64(const Tensor& x) {
  return eagle::with_device("/CPU:0", [&] { return eagle::abs(eagle::cast(x, DType::kFloat64)); });
}

std::string mismatches(const Tensor& actual, const Tensor& expected, const Tol& tol) {
  std::ostringstream out;
  if (actual.dtype() != expected.dtype()) {
    out << "dtype " << str(actual.dtype()) << " against " << str(expected.dtype());
    return out.str();
  }
  if (actual.shape() != expected.shape()) {
    out << "shape " << actual.shape().to_string() << " against " << expected.shape().to_string();
    return out.str();
  }
  if (tol.scale.defined() && tol.scale.shape() != expected.shape()) {
    return "the tolerance's scale has shape " + tol.scale.shape().to_string();
  }
  const std::int64_t n = expected.num_elements();
  std::int64_t bad = 0;
  std::ostringstream first;
  double worst = 0;
  eagle::visit_dtype(expected.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> g = actual.to_vector<T>();
    const std::vector<T> c = expected.to_vector<T>();
    const std::vector<double> scale =
        tol.scale.defined() ? tol.scale.to_vector<double>() : std::vector<double>{};
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
        first << "\n  [" << i << "] " << show_value<T>(g[k]) << " against " << show_value<T>(c[k]);
        if (allowed > 0) first << " (allowed difference " << allowed << ")";
      }
    }
    return 0;
  });
  if (bad == 0) return "";
  out << bad << " of " << n << " elements of " << expected.shape().to_string() << " "
      << str(expected.dtype()) << " differ";
  if (worst > 0) out << " (worst: " << worst << " times the tolerance)";
  out << ":" << first.str();
  return out.str();
}

// |A||B| (float64, on the CPU): the scale of a matmul's rounding error. Each element of A @ B is
// a dot product of length k whose error is bounded by about k*u*(|a_i| . |b_j|) (u the unit
// roundoff of the accumulation, or of the inputs' rounding to TF32), whatever the cancellation.
Tensor matmul_magnitudes(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return eagle::with_device("/CPU:0", [&] { return eagle::matmul(abs64(a), abs64(b), ta, tb); });
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

Tf32::Tf32(bool enabled) : saved_(eagle::config::tensor_float_32_execution_enabled()) {
  eagle::config::enable_tensor_float_32_execution(enabled);
}
Tf32::~Tf32() { eagle::config::enable_tensor_float_32_execution(saved_); }

// ---- The table ----------------------------------------------------------------------------------

const std::vector<OpInfo>& op_db() {
  static const std::vector<OpInfo> db = [] {
    std::vector<OpInfo> all;
    // One line per family file (tests/op_info/<family>_op_infos.cpp, listed in
    // tests/CMakeLists.txt's EAGLE_OP_INFO_SOURCES).
    append(all, "creation", creation_op_infos());
    append(all, "math", math_op_infos());
    append(all, "reduction", reduction_op_infos());
    append(all, "linalg", linalg_op_infos());
    append(all, "array", array_op_infos());
    append(all, "index", index_op_infos());
    append(all, "segment", segment_op_infos());
    append(all, "conv", conv_op_infos());
    append(all, "nn", nn_op_infos());
    append(all, "string", string_op_infos());
    return all;
  }();
  return db;
}

const OpInfo* find_op_info(opdefs::OpId op) {
  for (const OpInfo& e : op_db()) {
    if (e.op == op) return &e;
  }
  return nullptr;
}

const std::vector<std::pair<opdefs::OpId, std::string>>& op_info_exclusions() {
  // Resource ops: their calls are sequences on a variable, not a function of tensors. Tested by
  // variable_test and optimizer_test (values, errors, gradients through ReadVariableOp) and, on
  // every GPU, by backend_ops_test's "variables ..." and "optimizer updates ..." cases.
  static const std::vector<std::pair<opdefs::OpId, std::string>> excluded = {
      {opdefs::OpId::kVarHandleOp, "variables: variable_test, backend_state_test.cpp"},
      {opdefs::OpId::kReadVariableOp, "variables: variable_test, backend_state_test.cpp"},
      {opdefs::OpId::kAssignVariableOp, "variables: variable_test, backend_state_test.cpp"},
      {opdefs::OpId::kAssignAddVariableOp, "variables: variable_test, backend_state_test.cpp"},
      {opdefs::OpId::kAssignSubVariableOp, "variables: variable_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyGradientDescent,
       "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyKerasMomentum,
       "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyAdam, "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyAdamWithAmsgrad,
       "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyRMSProp, "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyCenteredRMSProp,
       "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::kResourceApplyAdagradV2, "optimizers: optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasAdam, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasAdamWithAmsgrad,
       "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasRMSprop, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasCenteredRMSprop,
       "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasAdagrad, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasAdamax, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasNadam, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasAdadelta, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
      {opdefs::OpId::k_KerasLion, "optimizers: keras3_optimizer_test, backend_state_test.cpp"},
  };
  return excluded;
}

}  // namespace eagle_test
