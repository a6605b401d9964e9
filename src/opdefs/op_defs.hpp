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
// Strings: CPU kernels only (Note [String tensors] in runtime/tensor_impl.cpp), for the ops that
// move or compare values and the string ops.
inline constexpr DTypeMask kString = dtype_bit(DType::kString);
inline constexpr DTypeMask kAllAndString = kAll | kString;
}  // namespace dtype_sets

// Note [Op table]
// ~~~~~~~~~~~~~~~
// X(name, inputs, outputs, attrs, cpu, gpu, traits), one row per op:
//   name      TensorFlow's op name: placement logs, errors, OpId::k<name>. A name with a leading
//             underscore is eagle's own fused op for what TensorFlow runs as several:
//             _FusedConv2D (its graph optimizer's name), and _KerasAdam, _KerasRMSprop, ...:
//             one Keras 3 optimizer step, operation by operation as Keras 3 computes it
//             (Note [Keras 3 arithmetic] in kernels/optimizer_functors.hpp), beside TensorFlow's
//             ResourceApply* kernels, which Keras 2 used.
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
//   traits    kGrad (differentiable) or kNoGrad (TensorFlow's NotDifferentiable: comparisons,
//             argmax, random numbers; the tape gives no gradient through them), with
//             | kNumberTypes or | kHalfFirst: the order in which TensorFlow's definition of the op
//               lists its allowed types, which its "not in the list of allowed values" error
//               prints (TypeOrder below; the default is an op that lists its types itself);
//             | kNumericsSafe: enable_check_numerics does not check its outputs, as TensorFlow's
//               check-numerics callback skips Identity and the ops that only move or pick values
//               (its SAFE_OPS), whose non-finite output was already some op's non-finite output.
//
// Note [GPU kernel set]: a GPU has a kernel for (op, dtype) exactly when the gpu column says so.
// The CUDA backend registers one kernel per entry and a simulated GPU (docs/guide.md, "Simulated
// GPUs") registers the CPU kernel under the GPU device type for each, which is what makes soft
// placement on a laptop with simulated GPUs place ops where a real GPU machine would. The set is
// the CPU's less integer matmul: as in TensorFlow, MatMul and BatchMatMulV2 have no int32/int64 GPU
// kernel (cuBLAS has no exact integer GEMM), so an integer matmul goes to the CPU by soft
// placement; Einsum likewise (TensorFlow's GPU Einsum is registered for the floating types only).
// Convolution and pooling (NHWC, HWIO filters; Note [Convolution providers] in
// src/backends/cpu/conv_kernels.cpp). Conv2DBackpropInput's inputs are (filter, out_backprop) and
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
  X(Conv2D,               2, 1, Conv2DAttrs,    kFloating, kFloating, kGrad)                      \
  X(Conv2DBackpropInput,  2, 1, Conv2DAttrs,    kFloating, kFloating, kGrad)                      \
  X(Conv2DBackpropFilter, 2, 1, Conv2DAttrs,    kFloating, kFloating, kGrad)                      \
  X(_FusedConv2D,         3, 1, FusedConv2DAttrs, kFloating, kFloating, kGrad)                    \
  X(MaxPool,              1, 1, Pool2DAttrs,    kNumeric, kFloating, kGrad)                       \
  X(MaxPoolGrad,          3, 1, Pool2DAttrs,    kFloating, kFloating, kNoGrad)                    \
  X(AvgPool,              1, 1, Pool2DAttrs,    kFloating, kFloating, kGrad)                      \
  X(AvgPoolGrad,          1, 1, Pool2DAttrs,    kFloating, kFloating, kGrad)
// clang-format on

// clang-format off
#define EAGLE_OPS(X) \
  X(Const,                0, 1, ConstAttrs,     kAllAndString, kAll,     kNoGrad)                 \
  X(AddV2,                2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Sub,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Mul,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(RealDiv,              2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Maximum,              2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumericsSafe)       \
  X(Minimum,              2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumericsSafe)       \
  X(Pow,                  2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Equal,                2, 1, NoAttrs,        kAllAndString, kAll,     kNoGrad)                 \
  X(NotEqual,             2, 1, NoAttrs,        kAllAndString, kAll,     kNoGrad)                 \
  X(Less,                 2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(LessEqual,            2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(Greater,              2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(GreaterEqual,         2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(FloorDiv,             2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(FloorMod,             2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(TruncateDiv,          2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(TruncateMod,          2, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(SquaredDifference,    2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(LogicalAnd,           2, 1, NoAttrs,        kBool,    kBool,     kNoGrad)                     \
  X(LogicalOr,            2, 1, NoAttrs,        kBool,    kBool,     kNoGrad)                     \
  X(Neg,                  1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Abs,                  1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Exp,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Log,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Sqrt,                 1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Square,               1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Relu,                 1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Sigmoid,              1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Tanh,                 1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Floor,                1, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(Ceil,                 1, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(Round,                1, 1, NoAttrs,        kNumeric, kNumeric,  kNoGrad)                     \
  X(Sign,                 1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Rsqrt,                1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Reciprocal,           1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Log1p,                1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Erf,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Sin,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Cos,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(IsNan,                1, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(IsInf,                1, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(IsFinite,             1, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(LogicalNot,           1, 1, NoAttrs,        kBool,    kBool,     kNoGrad)                     \
  X(Sum,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Mean,                 1, 1, ReduceAttrs,    kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Max,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Min,                  1, 1, ReduceAttrs,    kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Prod,                 1, 1, ReduceAttrs,    kNumeric, kNumeric,  kGrad)                       \
  X(Any,                  1, 1, ReduceAttrs,    kBool,    kBool,     kNoGrad)                     \
  X(All,                  1, 1, ReduceAttrs,    kBool,    kBool,     kNoGrad)                     \
  X(ArgMax,               1, 1, AxisAttrs,      kAll,     kAll,      kNoGrad)                     \
  X(ArgMin,               1, 1, AxisAttrs,      kAll,     kAll,      kNoGrad)                     \
  X(MatMul,               2, 1, MatMulAttrs,    kNumeric, kFloating, kGrad)                       \
  X(BatchMatMulV2,        2, 1, MatMulAttrs,    kNumeric, kFloating, kGrad)                       \
  X(AddN,         kVariadic, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Softmax,              1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(TopKV2,               1, 2, TopKAttrs,      kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Reshape,              1, 1, NoAttrs,        kAllAndString, kAll,     kGrad | kNumericsSafe)   \
  X(Transpose,            1, 1, TransposeAttrs, kAll,     kAll,      kGrad | kNumericsSafe)       \
  X(ExpandDims,           1, 1, NoAttrs,        kAllAndString, kAll,     kGrad | kNumericsSafe)   \
  X(Squeeze,              1, 1, NoAttrs,        kAllAndString, kAll,     kGrad | kNumericsSafe)   \
  X(ConcatV2,     kVariadic, 1, AxisAttrs,      kAll,     kAll,      kGrad | kNumericsSafe)       \
  X(Slice,                1, 1, SliceAttrs,     kAll,     kAll,      kGrad | kNumericsSafe)       \
  X(Tile,                 1, 1, TileAttrs,      kAll,     kAll,      kGrad)                       \
  X(Pad,                  1, 1, PadAttrs,       kAll,     kAll,      kGrad)                       \
  X(PadV2,                1, 1, PadAttrs,       kAll,     kAll,      kGrad)                       \
  X(MirrorPad,            1, 1, PadAttrs,       kAll,     kAll,      kGrad)                       \
  X(ReverseV2,            1, 1, ReverseAttrs,   kAll,     kAll,      kGrad)                       \
  X(Cumsum,               1, 1, ScanAttrs,      kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Cumprod,              1, 1, ScanAttrs,      kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(Split,        1, kVariadic, AxisAttrs,      kAll,     kAll,      kGrad)                       \
  X(SplitV,       1, kVariadic, AxisAttrs,      kAll,     kAll,      kGrad)                       \
  X(Pack,         kVariadic, 1, AxisAttrs,      kAll,     kAll,      kGrad)                       \
  X(Unpack,       1, kVariadic, AxisAttrs,      kAll,     kAll,      kGrad | kNumericsSafe)       \
  X(StridedSlice,         1, 1, StridedSliceAttrs, kAll,  kAll,      kGrad | kNumericsSafe)       \
  X(GatherV2,             2, 1, GatherAttrs,    kAll,     kAll,      kGrad)                       \
  X(GatherNd,             2, 1, GatherNdAttrs,  kAll,     kAll,      kGrad)                       \
  X(Where,                1, 1, NoAttrs,        kAll,     kAll,      kNoGrad)                     \
  X(SelectV2,             3, 1, NoAttrs,        kAll,     kAll,      kGrad)                       \
  X(Einsum,       kVariadic, 1, EinsumAttrs,    kNumeric, kFloating, kGrad)                       \
  X(Fill,                 0, 1, FillAttrs,      kAll,     kAll,      kNoGrad | kNumericsSafe)     \
  X(Range,                0, 1, RangeAttrs,     kNumeric, kNumeric,  kNoGrad)                     \
  X(RandomUniform,        0, 1, RandomAttrs,    kNumeric, kNumeric,  kNoGrad)                     \
  X(RandomStandardNormal, 0, 1, RandomAttrs,    kFloating, kFloating, kNoGrad)                    \
  X(TruncatedNormal,      0, 1, RandomAttrs,    kFloating, kFloating, kNoGrad)                    \
  X(Identity,             1, 1, NoAttrs,        kAllAndString, kAll,     kGrad | kNumericsSafe)   \
  X(Cast,                 1, 1, NoAttrs,        kAll,     kAll,      kGrad)                       \
  X(ReluGrad,             2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(SigmoidGrad,          2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(TanhGrad,             2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(SqrtGrad,             2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(RsqrtGrad,            2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(ReciprocalGrad,       2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(VarHandleOp,          0, 1, NoAttrs,        kAll,     kAllButInt32, kNoGrad)                  \
  X(ReadVariableOp,       1, 1, NoAttrs,        kAll,     kAllButInt32, kGrad)                    \
  X(AssignVariableOp,     2, 0, NoAttrs,        kAll,     kAllButInt32, kNoGrad)                  \
  X(AssignAddVariableOp,  2, 0, NoAttrs,        kNumeric, kFloatingAndInt64, kNoGrad)             \
  X(AssignSubVariableOp,  2, 0, NoAttrs,        kNumeric, kFloatingAndInt64, kNoGrad)             \
  X(ResourceApplyGradientDescent, 2, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(ResourceApplyKerasMomentum,   3, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(ResourceApplyAdam,            4, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(ResourceApplyAdamWithAmsgrad, 5, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(ResourceApplyRMSProp, kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(ResourceApplyCenteredRMSProp, kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)    \
  X(ResourceApplyAdagradV2,       3, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasAdam,                   4, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasAdamWithAmsgrad,        5, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasRMSprop,        kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasCenteredRMSprop, kVariadic, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)           \
  X(_KerasAdagrad,                3, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasAdamax,                 4, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasNadam,                  4, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasAdadelta,               4, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  X(_KerasLion,                   3, 0, OptimizerAttrs, kFloating, kFloating, kNoGrad)            \
  EAGLE_CONV_POOL_OPS(X) \
  EAGLE_NN_OPS(X) \
  EAGLE_SEGMENT_OPS(X) \
  EAGLE_STRING_OPS(X)

// The NN ops (eagle::nn, ops/nn_ops.cpp): activations and their fused gradients (TensorFlow's
// operand order, Note [NN activation gradients]), losses, batch norm. SoftsignGrad has no
// gradient in TensorFlow either; FusedBatchNormGradV3's (second order) is not implemented.
#define EAGLE_NN_OPS(X) \
  X(Relu6,                1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad)                       \
  X(Relu6Grad,            2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(LeakyRelu,            1, 1, LeakyReluAttrs, kFloating, kFloating, kGrad)                      \
  X(LeakyReluGrad,        2, 1, LeakyReluAttrs, kFloating, kFloating, kGrad)                      \
  X(Elu,                  1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(EluGrad,              2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Selu,                 1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(SeluGrad,             2, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(Softplus,             1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(Softsign,             1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(SoftsignGrad,         2, 1, NoAttrs,        kFloating, kFloating, kNoGrad)                    \
  X(Erfc,                 1, 1, NoAttrs,        kFloating, kFloating, kGrad)                      \
  X(LogSoftmax,           1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(BiasAdd,              2, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(BiasAddGrad,          1, 1, NoAttrs,        kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(SoftmaxCrossEntropyWithLogits,       2, 2, NoAttrs, kFloating, kFloating, kGrad | kHalfFirst) \
  X(SparseSoftmaxCrossEntropyWithLogits, 2, 2, NoAttrs, kFloating, kFloating, kGrad | kHalfFirst) \
  X(OneHot,               1, 1, OneHotAttrs,    kAll,     kAll,      kNoGrad)                     \
  X(StopGradient,         1, 1, NoAttrs,        kAll,     kAll,      kNoGrad)                     \
  X(L2Loss,               1, 1, NoAttrs,        kFloating, kFloating, kGrad | kHalfFirst)         \
  X(FusedBatchNormV3,     5, 6, FusedBatchNormAttrs, kFloating, kFloating, kGrad | kHalfFirst)    \
  X(FusedBatchNormGradV3, 6, 5, FusedBatchNormAttrs, kFloating, kFloating, kNoGrad)

// UnsortedSegmentSum (gather gradients, eagle::unsorted_segment_sum), CheckNumerics
// (eagle::debugging::check_numerics) and IdentityN (eagle::identity_n, eagle::custom_gradient).
#define EAGLE_SEGMENT_OPS(X) \
  X(UnsortedSegmentSum,   2, 1, SegmentAttrs,   kNumeric, kNumeric,  kGrad | kNumberTypes)        \
  X(CheckNumerics,        1, 1, CheckNumericsAttrs, kFloating, kFloating, kGrad | kNumericsSafe)  \
  X(IdentityN,    kVariadic, kVariadic, IdentityNAttrs, kAll, kAll,    kGrad)

// The string ops, CPU only as TensorFlow's (eagle::strings, include/eagle/ops/strings.hpp).
// AsString is keyed by its input (a string input is returned as it is), the others by their
// string input.
#define EAGLE_STRING_OPS(X) \
  X(StringJoin,   kVariadic, 1, StringJoinAttrs, kString, kNone,    kNoGrad)                      \
  X(StringLength,         1, 1, StringLengthAttrs, kString, kNone,  kNoGrad)                      \
  X(AsString,             1, 1, AsStringAttrs,  kAllAndString, kNone, kNoGrad)                     \
  X(ReduceJoin,           1, 1, ReduceJoinAttrs, kString, kNone,    kNoGrad)
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

// The order of an op's allowed types in TensorFlow's definition of it (the traits column).
enum class TypeOrder : std::uint8_t {
  kListed,       // the op lists its types: bfloat16, half, float, double, int32, int64, bool
  kNumberTypes,  // TensorFlow's `numbertypes`: float, double, int32, int64, bfloat16, half
  kHalfFirst,    // Softmax and the NN ops: half, bfloat16, float, double, ...
};

// Every dtype eagle has, in the order `order` lists them.
constexpr std::array<DType, kNumDTypes> allowed_type_order(TypeOrder order) {
  switch (order) {
    case TypeOrder::kNumberTypes:
      return {DType::kFloat32,  DType::kFloat64, DType::kInt32, DType::kInt64,
              DType::kBFloat16, DType::kFloat16, DType::kBool,  DType::kString};
    case TypeOrder::kHalfFirst:
      return {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64,
              DType::kInt32,   DType::kInt64,    DType::kBool,    DType::kString};
    case TypeOrder::kListed:
      break;
  }
  return {DType::kBFloat16, DType::kFloat16, DType::kFloat32, DType::kFloat64,
          DType::kInt32,    DType::kInt64,   DType::kBool,    DType::kString};
}

// The traits column: kGrad or kNoGrad, then modifiers joined with |.
struct OpTraits {
  Gradient gradient;
  TypeOrder type_order = TypeOrder::kListed;
  bool numerics_checked = true;
};
struct TypeOrderModifier {
  TypeOrder order;
};
struct NumericsSafeModifier {};
inline constexpr OpTraits kGrad{Gradient::kDifferentiable};
inline constexpr OpTraits kNoGrad{Gradient::kNoGradient};
inline constexpr TypeOrderModifier kNumberTypes{TypeOrder::kNumberTypes};
inline constexpr TypeOrderModifier kHalfFirst{TypeOrder::kHalfFirst};
inline constexpr NumericsSafeModifier kNumericsSafe{};
constexpr OpTraits operator|(OpTraits traits, TypeOrderModifier modifier) {
  traits.type_order = modifier.order;
  return traits;
}
constexpr OpTraits operator|(OpTraits traits, NumericsSafeModifier) {
  traits.numerics_checked = false;
  return traits;
}

struct OpDef {
  std::string_view name;
  int num_inputs;           // or kVariadic
  int num_outputs;          // or kVariadic
  std::size_t attrs_index;  // the alternative of OpAttrs
  DTypeMask cpu_dtypes;
  DTypeMask gpu_dtypes;
  Gradient gradient;
  TypeOrder type_order;   // of its allowed types in TensorFlow's errors
  bool numerics_checked;  // by enable_check_numerics (false for kNumericsSafe)
};

constexpr OpDef make_op_def(std::string_view name, int inputs, int outputs, std::size_t attrs,
                            DTypeMask cpu, DTypeMask gpu, OpTraits traits) {
  return OpDef{name,
               inputs,
               outputs,
               attrs,
               cpu,
               gpu,
               traits.gradient,
               traits.type_order,
               traits.numerics_checked};
}

inline constexpr std::array<OpDef, kNumOps> kOpDefs = {{
#define EAGLE_OP_DEF(name, inputs, outputs, attrs, cpu, gpu, traits)                          \
  make_op_def(#name, inputs, outputs, attrs_index<attrs>(), dtype_sets::cpu, dtype_sets::gpu, \
              traits),
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
