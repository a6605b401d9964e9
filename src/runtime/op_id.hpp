// The catalogue of ops: TensorFlow names, used in placement logs, errors and the kernel table.
#pragma once

#include <cstdint>
#include <string_view>

namespace eagle::runtime {

// X(name): one entry per op. Const is the pseudo-op that places constants (it never logs).
// clang-format off
#define EAGLE_OPS(X) \
  X(Const) \
  X(AddV2) X(Sub) X(Mul) X(RealDiv) X(Maximum) X(Minimum) X(Pow) \
  X(Equal) X(NotEqual) X(Less) X(LessEqual) X(Greater) X(GreaterEqual) \
  X(Neg) X(Abs) X(Exp) X(Log) X(Sqrt) X(Square) X(Relu) X(Sigmoid) X(Tanh) \
  X(Sum) X(Mean) X(Max) X(Min) X(ArgMax) \
  X(MatMul) X(BatchMatMulV2) X(AddN) X(Softmax) \
  X(Reshape) X(Transpose) X(ExpandDims) X(Squeeze) X(ConcatV2) X(Slice) \
  X(Fill) X(Range) X(RandomUniform) X(RandomStandardNormal) X(Identity) X(Cast)
// clang-format on

enum class OpId : std::uint16_t {
#define EAGLE_OP_ENUM(name) k##name,
  EAGLE_OPS(EAGLE_OP_ENUM)
#undef EAGLE_OP_ENUM
};

#define EAGLE_OP_COUNT(name) +1
inline constexpr int kNumOps = 0 EAGLE_OPS(EAGLE_OP_COUNT);
#undef EAGLE_OP_COUNT

inline std::string_view op_name(OpId op) {
  static constexpr std::string_view kNames[] = {
#define EAGLE_OP_NAME(name) #name,
      EAGLE_OPS(EAGLE_OP_NAME)
#undef EAGLE_OP_NAME
  };
  return kNames[static_cast<int>(op)];
}

}  // namespace eagle::runtime
