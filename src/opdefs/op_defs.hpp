// The op table: one row per op with everything the runtime, the backends, the front-ends, autodiff
// and the tests know about it. A leaf room (Note [Rooms] in docs/design.md): it includes only
// eagle's value types.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "eagle/dtype.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::opdefs {

// A set of dtypes, one bit per DType.
using DTypeMask = std::uint32_t;
constexpr DTypeMask dtype_bit(DType t) { return DTypeMask{1} << static_cast<int>(t); }

namespace dtype_sets {
inline constexpr DTypeMask kNone = 0;
inline constexpr DTypeMask kFloating = dtype_bit(DType::kFloat32) | dtype_bit(DType::kFloat64) |
                                       dtype_bit(DType::kFloat16) | dtype_bit(DType::kBFloat16);
inline constexpr DTypeMask kNumeric =
    kFloating | dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64);
inline constexpr DTypeMask kAll = kNumeric | dtype_bit(DType::kBool);
inline constexpr DTypeMask kBool = dtype_bit(DType::kBool);
// TensorFlow's GPU variable kernels (TF_CALL_GPU_ALL_TYPES and int64): no int32, so an int32
// variable asked for on a GPU lives on the CPU by soft placement, as in TensorFlow 2.
inline constexpr DTypeMask kAllButInt32 = kAll & ~dtype_bit(DType::kInt32);
inline constexpr DTypeMask kFloatingAndInt64 = kFloating | dtype_bit(DType::kInt64);
}  // namespace dtype_sets

// Note [Op table]
// ~~~~~~~~~~~~~~~
// X(name, inputs, outputs, attrs, cpu, gpu, gradient), one row per op:
//   name      TensorFlow's op name: placement logs, errors, OpId::k<name>.
//   inputs    the input count, or kVariadic (AddN, ConcatV2, Pack).
//   outputs   the output count, or kVariadic (Split, SplitV, Unpack: the call's output specs
//             give the count, which may be 0 for Unpack of an empty axis; the dispatcher then
//             checks only that a call of a fixed-count op has that count).
//   attrs     the alternative of OpAttrs its calls carry (Note [Op attributes]).
//   cpu, gpu  the dtypes (of the kernel key, usually the first input) each device type has a
//             kernel for. Registration is generated from these columns (kernels/registration.hpp)
//             and a test compares every backend's table with them, so the set is written once.
//             GatherV2 and GatherNd are keyed by params (their int32/int64 indices are dispatched
//             inside the kernel), SelectV2 by x (input 1), Where by its condition,
//             UnsortedSegmentSum by data (int32/int64 segment ids, like GatherV2's indices).
//   gradient  kDifferentiable, or kNoGradient (TensorFlow's NotDifferentiable: comparisons,
//             argmax, random numbers; the tape gives no gradient through them).
//
// Note [GPU kernel set]: a GPU has a kernel for (op, dtype) exactly when the gpu column says so.
// The CUDA backend registers one kernel per entry and a simulated GPU (SEMANTICS §7) registers the
// CPU kernel under the GPU device type for each, which is what makes soft placement on a laptop
// with simulated GPUs place ops where a real GPU machine would. The set is the CPU's less integer
// matmul: as in TensorFlow, MatMul and BatchMatMulV2 have no int32/int64 GPU kernel (cuBLAS has
// no exact integer GEMM), so an integer matmul goes to the CPU by soft placement; Einsum likewise
// (TensorFlow's GPU Einsum is registered for the floating types only).
// Convolution and pooling (NHWC, HWIO filters; Note [Convolution providers] in
// src/cpu/conv_kernels.cpp). Conv2DBackpropInput's inputs are (filter, out_backprop) and
// Conv2DBackpropFilter's (input, out_backprop): the shape TensorFlow passes as a tensor is in the
// attributes. _FusedConv2D takes (input, filter, bias): Conv2D, BiasAdd and optionally Relu in one
// op, TensorFlow's name for what its graph optimizer makes of them (Note [Fused convolutions]).
// MaxPoolGrad takes (orig_input, orig_output, grad), AvgPoolGrad only grad.
// MaxPool also takes int32/int64 on the CPU, as TensorFlow's CPU MaxPool
// (TF_CALL_REAL_NUMBER_TYPES); TensorFlow's GPU MaxPool is floating only, so an integer one goes
// to the CPU by soft placement. Its gradient stays floating: the tape does not differentiate
// integer tensors.
// clang-format off
#define EAGLE_CONV_POOL_OPS(X) \
  X(Conv2D,               2, 1, Conv2DAttrs,    kFloating, kFloating, kDifferentiable) \
  X(Conv2DBackpropInput,  2, 1, Conv2DAttrs,    kFloating, kFloating, kDifferentiable) \
  X(Conv2DBackpropFilter, 2, 1, Conv2DAttrs,    kFloating, kFloating, kDifferentiable) \
  X(_FusedConv2D,         3, 1, FusedConv2DAttrs, kFloating, kFloating, kDifferentiable) \
  X(MaxPool,              1, 1, Pool2DAttrs,    kNumeric, kFloating, kDifferentiable)  \
  X(MaxPoolGrad,          3, 1, Pool2DAttrs,    kFloating, kFloating, kNoGradient)     \
  X(AvgPool,              1, 1, Pool2DAttrs,    kFloating, kFloating, kDifferentiable) \
  X(AvgPoolGrad,          1, 1, Pool2DAttrs,    kFloating, kFloating, kDifferentiable)
// clang-format on

// clang-format off
#define EAGLE_OPS(X) \
  X(Const,                0, 1, ConstAttrs,     kAll,     kAll,      kNoGradient)     \
  X(AddV2,                2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Sub,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Mul,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(RealDiv,              2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Maximum,              2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Minimum,              2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Pow,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Equal,                2, 1, NoAttrs,        kAll,     kAll,      kNoGradient)     \
  X(NotEqual,             2, 1, NoAttrs,        kAll,     kAll,      kNoGradient)     \
  X(Less,                 2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(LessEqual,            2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(Greater,              2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(GreaterEqual,         2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(FloorDiv,             2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(FloorMod,             2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(TruncateDiv,          2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(TruncateMod,          2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(SquaredDifference,    2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(LogicalAnd,           2, 1, NoAttrs,        kBool,    kBool,     kNoGradient)     \
  X(LogicalOr,            2, 1, NoAttrs,        kBool,    kBool,     kNoGradient)     \
  X(Neg,                  1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Abs,                  1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Exp,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Log,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Sqrt,                 1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Square,               1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Relu,                 1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Sigmoid,              1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Tanh,                 1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Floor,                1, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(Ceil,                 1, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(Round,                1, 1, NoAttrs,        kNumeric, kNumeric,  kNoGradient)     \
  X(Sign,                 1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Rsqrt,                1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Reciprocal,           1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Log1p,                1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Erf,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Sin,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Cos,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(IsNan,                1, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(IsInf,                1, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(IsFinite,             1, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(LogicalNot,           1, 1, NoAttrs,        kBool,    kBool,     kNoGradient)     \
  X(Sum,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kDifferentiable) \
  X(Mean,                 1, 1, ReduceAttrs,    kNumeric, kNumeric,  kDifferentiable) \
  X(Max,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kDifferentiable) \
  X(Min,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kDifferentiable) \
  X(Prod,                 1, 1, ReduceAttrs,    kNumeric, kNumeric,  kDifferentiable) \
  X(Any,                  1, 1, ReduceAttrs,    kBool,    kBool,     kNoGradient)     \
  X(All,                  1, 1, ReduceAttrs,    kBool,    kBool,     kNoGradient)     \
  X(ArgMax,               1, 1, AxisAttrs,      kAll,     kAll,      kNoGradient)     \
  X(ArgMin,               1, 1, AxisAttrs,      kAll,     kAll,      kNoGradient)     \
  X(MatMul,               2, 1, MatMulAttrs,    kNumeric, kFloating, kDifferentiable) \
  X(BatchMatMulV2,        2, 1, MatMulAttrs,    kNumeric, kFloating, kDifferentiable) \
  X(AddN,         kVariadic, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Softmax,              1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(TopKV2,               1, 2, TopKAttrs,      kNumeric, kNumeric,  kDifferentiable) \
  X(Reshape,              1, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(Transpose,            1, 1, TransposeAttrs, kAll,     kAll,      kDifferentiable) \
  X(ExpandDims,           1, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(Squeeze,              1, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(ConcatV2,     kVariadic, 1, AxisAttrs,      kAll,     kAll,      kDifferentiable) \
  X(Slice,                1, 1, SliceAttrs,     kAll,     kAll,      kDifferentiable) \
  X(Tile,                 1, 1, TileAttrs,      kAll,     kAll,      kDifferentiable) \
  X(Pad,                  1, 1, PadAttrs,       kAll,     kAll,      kDifferentiable) \
  X(PadV2,                1, 1, PadAttrs,       kAll,     kAll,      kDifferentiable) \
  X(MirrorPad,            1, 1, PadAttrs,       kAll,     kAll,      kDifferentiable) \
  X(ReverseV2,            1, 1, ReverseAttrs,   kAll,     kAll,      kDifferentiable) \
  X(Cumsum,               1, 1, ScanAttrs,      kNumeric, kNumeric,  kDifferentiable) \
  X(Cumprod,              1, 1, ScanAttrs,      kNumeric, kNumeric,  kDifferentiable) \
  X(Split,        1, kVariadic, AxisAttrs,      kAll,     kAll,      kDifferentiable) \
  X(SplitV,       1, kVariadic, AxisAttrs,      kAll,     kAll,      kDifferentiable) \
  X(Pack,         kVariadic, 1, AxisAttrs,      kAll,     kAll,      kDifferentiable) \
  X(Unpack,       1, kVariadic, AxisAttrs,      kAll,     kAll,      kDifferentiable) \
  X(StridedSlice,         1, 1, StridedSliceAttrs, kAll,  kAll,      kDifferentiable) \
  X(GatherV2,             2, 1, GatherAttrs,    kAll,     kAll,      kDifferentiable) \
  X(GatherNd,             2, 1, GatherNdAttrs,  kAll,     kAll,      kDifferentiable) \
  X(Where,                1, 1, NoAttrs,        kAll,     kAll,      kNoGradient)     \
  X(SelectV2,             3, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(Einsum,       kVariadic, 1, EinsumAttrs,    kNumeric, kFloating, kDifferentiable) \
  X(Fill,                 0, 1, FillAttrs,      kAll,     kAll,      kNoGradient)     \
  X(Range,                0, 1, RangeAttrs,     kNumeric, kNumeric,  kNoGradient)     \
  X(RandomUniform,        0, 1, RandomAttrs,    kNumeric, kNumeric,  kNoGradient)     \
  X(RandomStandardNormal, 0, 1, RandomAttrs,    kFloating, kFloating, kNoGradient)    \
  X(TruncatedNormal,      0, 1, RandomAttrs,    kFloating, kFloating, kNoGradient)    \
  X(Identity,             1, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(Cast,                 1, 1, NoAttrs,        kAll,     kAll,      kDifferentiable) \
  X(ReluGrad,             2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(SigmoidGrad,          2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(TanhGrad,             2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(SqrtGrad,             2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(RsqrtGrad,            2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(ReciprocalGrad,       2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(VarHandleOp,          0, 1, NoAttrs,        kAll,     kAllButInt32, kNoGradient) \
  X(ReadVariableOp,       1, 1, NoAttrs,        kAll,     kAllButInt32, kDifferentiable) \
  X(AssignVariableOp,     2, 0, NoAttrs,        kAll,     kAllButInt32, kNoGradient) \
  X(AssignAddVariableOp,  2, 0, NoAttrs,        kNumeric, kFloatingAndInt64, kNoGradient) \
  X(AssignSubVariableOp,  2, 0, NoAttrs,        kNumeric, kFloatingAndInt64, kNoGradient) \
  X(ResourceApplyGradientDescent, 2, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyKerasMomentum,   3, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyAdam,            4, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyAdamWithAmsgrad, 5, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyRMSProp, kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyCenteredRMSProp, kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  X(ResourceApplyAdagradV2,       3, 0, OptimizerAttrs, kFloating, kFloating, kNoGradient) \
  EAGLE_CONV_POOL_OPS(X) \
  EAGLE_NN_OPS(X) \
  EAGLE_SEGMENT_OPS(X)

// The NN ops (eagle::nn, ops/nn_ops.cpp): activations and their fused gradients (TensorFlow's
// operand order, Note [NN activation gradients]), losses, batch norm. SoftsignGrad has no
// gradient in TensorFlow either; FusedBatchNormGradV3's (second order) is not implemented.
#define EAGLE_NN_OPS(X) \
  X(Relu6,                1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(Relu6Grad,            2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(LeakyRelu,            1, 1, LeakyReluAttrs, kFloating, kFloating, kDifferentiable) \
  X(LeakyReluGrad,        2, 1, LeakyReluAttrs, kFloating, kFloating, kDifferentiable) \
  X(Elu,                  1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(EluGrad,              2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Selu,                 1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(SeluGrad,             2, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Softplus,             1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(Softsign,             1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(SoftsignGrad,         2, 1, NoAttrs,        kFloating, kFloating, kNoGradient)    \
  X(Erfc,                 1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(LogSoftmax,           1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(BiasAdd,              2, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(BiasAddGrad,          1, 1, NoAttrs,        kNumeric, kNumeric,  kDifferentiable) \
  X(SoftmaxCrossEntropyWithLogits,       2, 2, NoAttrs, kFloating, kFloating, kDifferentiable) \
  X(SparseSoftmaxCrossEntropyWithLogits, 2, 2, NoAttrs, kFloating, kFloating, kDifferentiable) \
  X(OneHot,               1, 1, OneHotAttrs,    kAll,     kAll,      kNoGradient)     \
  X(StopGradient,         1, 1, NoAttrs,        kAll,     kAll,      kNoGradient)     \
  X(L2Loss,               1, 1, NoAttrs,        kFloating, kFloating, kDifferentiable) \
  X(FusedBatchNormV3,     5, 6, FusedBatchNormAttrs, kFloating, kFloating, kDifferentiable) \
  X(FusedBatchNormGradV3, 6, 5, FusedBatchNormAttrs, kFloating, kFloating, kNoGradient)

// UnsortedSegmentSum (gather gradients, eagle::unsorted_segment_sum), CheckNumerics
// (eagle::debugging::check_numerics) and IdentityN (eagle::identity_n, eagle::custom_gradient).
#define EAGLE_SEGMENT_OPS(X) \
  X(UnsortedSegmentSum,   2, 1, SegmentAttrs,   kNumeric, kNumeric,  kDifferentiable) \
  X(CheckNumerics,        1, 1, CheckNumericsAttrs, kFloating, kFloating, kDifferentiable) \
  X(IdentityN,    kVariadic, kVariadic, IdentityNAttrs, kAll, kAll,    kDifferentiable)
// clang-format on

enum class OpId : std::uint16_t {
#define EAGLE_OP_ENUM(name, ...) k##name,
  EAGLE_OPS(EAGLE_OP_ENUM)
#undef EAGLE_OP_ENUM
};

#define EAGLE_OP_COUNT(...) +1
inline constexpr int kNumOps = 0 EAGLE_OPS(EAGLE_OP_COUNT);
#undef EAGLE_OP_COUNT

inline constexpr int kVariadic = -1;
enum class Gradient : std::uint8_t { kNoGradient, kDifferentiable };

struct OpDef {
  std::string_view name;
  int num_inputs;           // or kVariadic
  int num_outputs;          // or kVariadic
  std::size_t attrs_index;  // the alternative of OpAttrs
  DTypeMask cpu_dtypes;
  DTypeMask gpu_dtypes;
  Gradient gradient;
};

inline constexpr std::array<OpDef, kNumOps> kOpDefs = {{
#define EAGLE_OP_DEF(name, inputs, outputs, attrs, cpu, gpu, grad)             \
  OpDef{#name,           inputs,          outputs,       attrs_index<attrs>(), \
        dtype_sets::cpu, dtype_sets::gpu, Gradient::grad},
    EAGLE_OPS(EAGLE_OP_DEF)
#undef EAGLE_OP_DEF
}};

constexpr const OpDef& op_def(OpId op) { return kOpDefs[static_cast<int>(op)]; }
constexpr std::string_view op_name(OpId op) { return op_def(op).name; }
// Whether the op table declares a kernel for (op, dtype) on the CPU / on a GPU.
constexpr bool cpu_implements(OpId op, DType dtype) {
  return (op_def(op).cpu_dtypes & dtype_bit(dtype)) != 0;
}
constexpr bool gpu_implements(OpId op, DType dtype) {
  return (op_def(op).gpu_dtypes & dtype_bit(dtype)) != 0;
}

}  // namespace eagle::opdefs
