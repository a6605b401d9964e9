// Run-time choice of the instruction-set variant of the hot CPU kernels (Note [CPU kernel
// variants] in cpu_variant.cpp).
#pragma once

#include <string>
#include <vector>

namespace eagle::cpu {

// The variants this build holds, best last: "baseline" and, on x86-64, "avx2" (x86-64-v3) and
// "avx512" (x86-64-v4); "native" alone when built with EAGLE_NATIVE.
std::vector<std::string> built_cpu_variants();

// Whether this CPU (and OS) can run `variant`.
bool cpu_supports_variant(const std::string& variant);

// The variant to register: EAGLE_CPU_VARIANT when set, else the best one this CPU runs. Throws
// InvalidArgumentError for a value that names no built variant or one this CPU cannot run.
std::string choose_cpu_variant();

// The variant whose kernels the kernel table holds, once the runtime has started (empty before).
std::string active_cpu_variant();

namespace detail {
void set_active_cpu_variant(const std::string& variant);
}  // namespace detail

}  // namespace eagle::cpu
