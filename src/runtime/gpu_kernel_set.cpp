#include "runtime/gpu_kernel_set.hpp"

#include <array>
#include <cstdint>

namespace eagle::runtime {
namespace {

// Note [GPU kernel set]
// ~~~~~~~~~~~~~~~~~~~~~
// A GPU has a kernel for (op, dtype) exactly when this table says so. The CUDA backend registers
// one kernel per entry (its test checks the registered set against this table), and a simulated
// GPU (SEMANTICS §7) registers the CPU kernel under the GPU device type for each entry. Keeping
// the two in one place is what makes soft placement on a laptop with simulated GPUs place ops
// where a real GPU machine would.
//
// The set is the CPU's, less integer matmul: as in TensorFlow, MatMul and BatchMatMulV2 have no
// int32/int64 GPU kernel (cuBLAS has no exact integer GEMM), so an integer matmul is placed on
// the CPU by soft placement, or refused under a GPU scope without it.

using Mask = std::uint32_t;
constexpr Mask bit(DType t) { return Mask{1} << static_cast<int>(t); }
constexpr Mask kFloating =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kFloat16) | bit(DType::kBFloat16);
constexpr Mask kNumeric = kFloating | bit(DType::kInt32) | bit(DType::kInt64);
constexpr Mask kAll = kNumeric | bit(DType::kBool);

struct Entry {
  OpId op;
  Mask dtypes;
};

// clang-format off
constexpr Entry kGpuKernels[] = {
    {OpId::kConst, kAll}, {OpId::kFill, kAll}, {OpId::kRange, kNumeric},
    {OpId::kRandomUniform, kNumeric}, {OpId::kRandomStandardNormal, kFloating},
    {OpId::kCast, kAll}, {OpId::kIdentity, kAll},

    {OpId::kAddV2, kNumeric}, {OpId::kSub, kNumeric}, {OpId::kMul, kNumeric},
    {OpId::kRealDiv, kFloating}, {OpId::kMaximum, kNumeric}, {OpId::kMinimum, kNumeric},
    {OpId::kPow, kNumeric},
    {OpId::kEqual, kAll}, {OpId::kNotEqual, kAll}, {OpId::kLess, kNumeric},
    {OpId::kLessEqual, kNumeric}, {OpId::kGreater, kNumeric}, {OpId::kGreaterEqual, kNumeric},
    {OpId::kNeg, kNumeric}, {OpId::kAbs, kNumeric}, {OpId::kExp, kFloating},
    {OpId::kLog, kFloating}, {OpId::kSqrt, kFloating}, {OpId::kSquare, kNumeric},
    {OpId::kRelu, kNumeric}, {OpId::kSigmoid, kFloating}, {OpId::kTanh, kFloating},

    {OpId::kSum, kNumeric}, {OpId::kMean, kNumeric}, {OpId::kMax, kNumeric},
    {OpId::kMin, kNumeric}, {OpId::kArgMax, kNumeric},

    {OpId::kMatMul, kFloating}, {OpId::kBatchMatMulV2, kFloating},
    {OpId::kAddN, kNumeric}, {OpId::kSoftmax, kFloating},

    {OpId::kReshape, kAll}, {OpId::kTranspose, kAll}, {OpId::kExpandDims, kAll},
    {OpId::kSqueeze, kAll}, {OpId::kConcatV2, kAll}, {OpId::kSlice, kAll},
};
// clang-format on

constexpr std::array<Mask, kNumOps> make_masks() {
  std::array<Mask, kNumOps> masks{};
  for (const Entry& e : kGpuKernels) masks[static_cast<int>(e.op)] |= e.dtypes;
  return masks;
}
constexpr std::array<Mask, kNumOps> kMasks = make_masks();

}  // namespace

bool gpu_implements(OpId op, DType dtype) {
  return (kMasks[static_cast<int>(op)] & bit(dtype)) != 0;
}

}  // namespace eagle::runtime
