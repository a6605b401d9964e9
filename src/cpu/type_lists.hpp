// The dtype sets kernels are registered for, and a helper to register one template per type.
#pragma once

#include <cstdint>

#include "eagle/dtype.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::cpu {

template <class... Ts>
struct TypeList {};
using NumericTypes = TypeList<float, double, std::int32_t, std::int64_t, float16, bfloat16>;
using FloatingTypes = TypeList<float, double, float16, bfloat16>;
using AllTypes = TypeList<float, double, std::int32_t, std::int64_t, bool, float16, bfloat16>;

// Registers Kernel<T> for every T of the list: add_kernels<my_kernel>(table, op, NumericTypes{}).
// The CUDA backend registers its kernels with the same lists under DeviceType::kGPU.
template <template <class> class Kernel, class... Ts>
void add_kernels(runtime::KernelTable& table, runtime::OpId op, TypeList<Ts...>,
                 runtime::DeviceType type = runtime::DeviceType::kCPU) {
  (table.add(op, type, dtype_of_v<Ts>, &Kernel<Ts>::run), ...);
}

}  // namespace eagle::cpu
