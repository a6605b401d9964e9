// Registers a backend's kernels for exactly the dtypes its column of the op table names
// (Note [Op table]), so no backend writes a dtype list of its own.
#pragma once

#include <cstdint>

#include "eagle/dtype.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::kernels {

template <opdefs::OpId kOp, runtime::DeviceType kType>
inline constexpr opdefs::DTypeMask kDeclaredDTypes = kType == runtime::DeviceType::kCPU
                                                         ? opdefs::op_def(kOp).cpu_dtypes
                                                         : opdefs::op_def(kOp).gpu_dtypes;

// make(T{}) returns the KernelFn for element type T; it is instantiated only for the dtypes the
// table declares, so a kernel template need not compile for the others (exp on bool).
template <opdefs::OpId kOp, runtime::DeviceType kType, class MakeKernel>
void register_op(runtime::KernelTable& table, MakeKernel make) {
  constexpr opdefs::DTypeMask mask = kDeclaredDTypes<kOp, kType>;
  const auto one = [&](auto tag) {
    using T = decltype(tag);
    if constexpr ((mask & opdefs::dtype_bit(dtype_of_v<T>)) != 0) {
      table.add(kOp, kType, dtype_of_v<T>, make(tag));
    }
  };
  one(float{});
  one(double{});
  one(std::int32_t{});
  one(std::int64_t{});
  one(bool{});
  one(float16{});
  one(bfloat16{});
}

// The common form: Kernel<T>::run for every declared T.
template <opdefs::OpId kOp, runtime::DeviceType kType, template <class> class Kernel>
void register_op(runtime::KernelTable& table) {
  register_op<kOp, kType>(
      table, [](auto tag) -> runtime::KernelFn { return &Kernel<decltype(tag)>::run; });
}

}  // namespace eagle::kernels
