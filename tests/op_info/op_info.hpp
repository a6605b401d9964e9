// The OpInfo table of the op tests (PyTorch's OpInfo / op_db): one entry per op of the op table
// (src/opdefs/op_defs.hpp) saying how to call it, what to call it with, how close two backends
// must agree, which calls must fail and how, and which gradients to check. Generic tests walk it:
//   - backend_ops_test: each entry's samples on every logical GPU against the CPU
//     (op_info_backend_test.cpp), for every dtype the op table's gpu column declares;
//   - ops_test: each entry's error cases, exact class and text, plus an undefined tensor in each
//     input position (op_info_errors_test.cpp), and the coverage test;
//   - gradient_check_test: each entry's finite-difference cases in float64, CPU and GPU:0.
//
// Note [OpInfo table]
// ~~~~~~~~~~~~~~~~~~~
// Entries live in one file per op family (tests/op_info/<family>_op_infos.cpp), each a function
// returning its entries; op_info.cpp lists the families, one line each. An op of the op table
// must have an entry or be on the commented exclusion list in op_info.cpp, else
// "ops_test: every op of the op table has an OpInfo entry or a reason" fails; a declared GPU
// dtype without samples fails its backend comparison; a differentiable op without gradient
// cases (and without a reason in `no_gradient_check`) fails the coverage test too.
//
// Entries are built when the walkers register their test cases, during static initialization:
// building one must not touch a tensor or a namespace-scope object of another file. Samples,
// error cases and gradient inputs are made later, when a test runs (the functions below).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "eagle/eagle.hpp"
#include "opdefs/op_defs.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using eagle::opdefs::OpId;

using Inputs = std::vector<Tensor>;
using Call = std::function<Tensor(const Inputs&)>;

// ---- Inputs -------------------------------------------------------------------------------------

enum class Domain {
  kGeneral,   // floats in [-2, 2]; integers over their whole range (arithmetic wraps)
  kSmall,     // whole numbers in [-2, 2]: many ties (comparisons, argmax)
  kPositive,  // floats in [0.01, 10]; integers in [1, 1000]
  kUnit,      // floats in [-1, 1]; integers in [-10, 10]
  kWide,      // floats in [-20, 20]; integers in [-1000, 1000]
  kExponent,  // floats in [-3, 3]; integers in [0, 20]
};

// A host (CPU:0) tensor of `dtype` and `shape` drawn from `domain` with a fixed seed. With
// `specials`, some elements (spread over the tensor, the last one included) are replaced by NaN,
// +-inf, +-0 and +-1 (floats) or the extremes, 0 and +-1 (integers, except for the exponent and
// positive domains).
Tensor make(DType dtype, const Shape& shape, Domain domain, std::uint64_t seed,
            bool specials = false);
// A host tensor of `dtype` holding `values` (as the dtype stores them; bool: v != 0).
Tensor make_values(DType dtype, const std::vector<double>& values, const Shape& shape);
std::uint64_t seed_of(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);

// Shapes for elementwise samples: scalars, empty, size 1, odd lengths around vector widths and
// thread blocks, one past 2^16.
const std::vector<Shape>& elementwise_shapes();

// The dtypes the op table declares for `op` on a GPU / on the CPU, in a fixed order (the CPU's
// string kernels last; all_dtypes() holds the numbers and bool).
std::vector<DType> gpu_dtypes(opdefs::OpId op);
std::vector<DType> cpu_dtypes(opdefs::OpId op);
const std::vector<DType>& all_dtypes();

std::string str(DType d);
std::string str(opdefs::OpId op);
std::string show(double v);

// ---- Tolerances ---------------------------------------------------------------------------------
//
// How a GPU result is compared with the CPU's:
//   - integer and bool outputs, and everything an op only moves: exactly (NaN matches NaN, and
//     -0 matches +0);
//   - floating outputs: |gpu - cpu| <= rel * |cpu| + abs, with rel = 1e-5 (float32), 1e-12
//     (float64), 1e-3 (float16), 1e-2 (bfloat16) and abs = rel * 1e-3 (numpy.allclose's
//     rtol/atol ratio). rel alone fails near 0 for results whose error is absolute rather than
//     relative: a transcendental function computed another way (log near 1, tanh near 0, a fast
//     exp whose error is absolute), denormals that one backend flushes to zero. The 16-bit
//     tolerances admit one unit in the last place (2^-10, 2^-7), never two;
//   - results that sum many terms get an extra term scaled by what cancellation cannot hide: the
//     sum of magnitudes S (reductions, add_n) or |A||B| (matmul), both computed on the CPU in
//     float64 (`sum_tol`, `matmul_tol`).

// |gpu - cpu| <= rel * |cpu| + abs + scale_rel * scale[i]; exact when all are zero.
struct Tol {
  double rel = 0;
  double abs = 0;
  Tensor scale;  // float64 with the output's shape, or undefined
  double scale_rel = 0;
};

Tol exact();
Tol exact_tol(DType);  // the per-dtype form of exact()
Tol within(double rel, double abs);
// The elementwise tolerance of a floating dtype (exact for the others).
Tol float_tol(DType d);
// The spacing of d's values in [1, 2) (float16 2^-10, bfloat16 2^-7, float32 2^-23, float64
// 2^-52): times |v|, at least one unit in the last place at v. 0 for the other dtypes.
double unit_in_last_place(DType d);
// Unit roundoff of the accumulator: float32 for float32 and the 16-bit floats (which both
// backends widen to float32, Note [Half precision on the CPU]), float64 for float64.
double accumulation_eps(DType d);
// A sum of n terms: a sequential loop's rounding error is bounded by n*u*S and a tree's by
// log2(n)*u*S (u: accumulation_eps, S: the sum of the magnitudes of the terms); relative to the
// result no bound exists (cancellation). Real summation orders behave like random walks, so
// (4 + 2*sqrt(n))*u*S is generous for any order while it still catches an accumulator of the
// wrong type (a float16 one is ~2^13 times worse) or a lost term. Added to float_tol(d).
Tol sum_tol(DType d, std::int64_t n, Tensor magnitudes);
// Float32 values of order 1 after a chain of tens to hundreds of ops (each may round
// differently on two backends): 1e-4 relative, 1e-6 absolute.
Tol chain_of_ops_tol();
// `x` as float64 magnitudes, on the CPU.
Tensor abs64(const Tensor& x);
// |A||B| in float64 on the CPU, and the matmul tolerance it scales (see op_info.cpp).
Tensor matmul_magnitudes(const Tensor& a, const Tensor& b, bool ta, bool tb);
Tol matmul_tol(DType d, bool tf32, Tensor magnitudes);

// "" when `actual` matches `expected` within `tol`, else what differs (the first few elements).
std::string mismatches(const Tensor& actual, const Tensor& expected, const Tol& tol);

// Sets TensorFlow's TF32 mode for a scope (float32 matmuls on a GPU round inputs to 10 bits).
class Tf32 {
 public:
  explicit Tf32(bool enabled);
  ~Tf32();
  Tf32(const Tf32&) = delete;
  Tf32& operator=(const Tf32&) = delete;

 private:
  bool saved_;
};

// ---- The table ----------------------------------------------------------------------------------

// One call of an op: host inputs and how to call the op on them (its attributes are captured).
struct Sample {
  std::string what;
  Inputs inputs;
  Call call;               // empty: the entry's `call`
  std::optional<Tol> tol;  // empty: the entry's `tolerance` of the sample's dtype
  // The CPU result to compare with, where the CPU cannot run `call` itself (empty: `call`).
  Call reference;
  // The CPU kernel refuses this dtype (UnimplementedError), and so does a simulated GPU, which
  // runs the CPU's kernels; a CUDA GPU must compute it (Where of float16, as in TensorFlow).
  bool unimplemented_unless_cuda = false;
};

// A call that must fail with exactly this exception class and message.
struct ErrorCase {
  std::function<void()> run;
  const std::type_info* type;
  std::string type_name;
  std::string message;
};

template <class E>
ErrorCase raises(std::function<void()> run, std::string message) {
  return ErrorCase{std::move(run), &typeid(E), typeid(E).name(), std::move(message)};
}

// A finite-difference gradient check: inputs drawn in float64 from a domain (see
// gradient_check_test.cpp), loss sum(call(inputs) * w) for a fixed random w.
enum class GradDomain { kAny, kPositive, kAwayFromZero, kUnit, kDistinct };
struct GradInput {
  Shape shape;
  GradDomain domain = GradDomain::kAny;
};
struct GradSample {
  std::string what;
  std::vector<GradInput> inputs;
  Call call;
  double tolerance = 1e-6;
};

struct OpInfo {
  opdefs::OpId op;
  std::string family;  // set from the family list in op_info.cpp
  // The op on its inputs with default attributes (a sample may bring its own call).
  Call call;
  // Samples for one dtype (of the op table's kernel key), host tensors. Made when a test runs.
  std::function<std::vector<Sample>(DType)> samples;
  // How closely two backends agree, per dtype (a sample may set its own).
  std::function<Tol(DType)> tolerance = float_tol;
  // Calls that must fail (made when a test runs).
  std::function<std::vector<ErrorCase>()> errors;
  // Whether an undefined tensor in each input position of the first sample is refused with
  // "input #i is an undefined tensor [Op:<op>]" (off where the sample's call runs other ops on
  // its inputs first).
  bool check_undefined_inputs = true;
  // Finite-difference cases (differentiable ops), and why there are none where there are none.
  std::vector<GradSample> gradients;
  std::string no_gradient_check;
};

// Every entry, families in the order of op_info.cpp.
const std::vector<OpInfo>& op_db();
// The entry of `op`, or nullptr.
const OpInfo* find_op_info(opdefs::OpId op);
// Ops of the op table without an entry, each with the reason (tested elsewhere).
const std::vector<std::pair<opdefs::OpId, std::string>>& op_info_exclusions();

// The families (one file each).
std::vector<OpInfo> creation_op_infos();
std::vector<OpInfo> math_op_infos();
std::vector<OpInfo> reduction_op_infos();
std::vector<OpInfo> linalg_op_infos();
std::vector<OpInfo> array_op_infos();
std::vector<OpInfo> index_op_infos();
std::vector<OpInfo> segment_op_infos();
std::vector<OpInfo> conv_op_infos();
std::vector<OpInfo> nn_op_infos();
std::vector<OpInfo> string_op_infos();

}  // namespace eagle_test
