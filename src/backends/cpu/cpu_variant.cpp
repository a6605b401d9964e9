#include "cpu/cpu_variant.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::cpu {

// Note [CPU kernel variants]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// libeagle's kernels are plain loops written to vectorize; AVX2 or AVX-512 runs them several
// times faster than baseline x86-64 (SSE2), but a library built with -march=native dies with
// SIGILL on an older CPU. So the default build is portable (the compiler's baseline) and the hot
// kernels (elementwise, reductions, softmax, optimizer updates: the sources listed in
// src/CMakeLists.txt) are compiled again for x86-64-v3 ("avx2") and x86-64-v4 ("avx512"), as
// NumPy, oneDNN, ggml and PyTorch do. register_kernels picks one variant when the kernel table is
// filled, so an op pays nothing for the choice.
//
// Two rules keep a variant's instructions off CPUs that lack them:
// - Each variant's code lives in its own namespace (EAGLE_CPU_ISA_BEGIN in cpu/isa.hpp), so its
//   kernels and the header templates they instantiate (broadcast_apply, reduce) carry its name.
// - That does not cover inline code from other headers (fmt, half.hpp, the standard library),
//   which every variant emits as weak symbols under one name; the linker would keep any one copy,
//   perhaps the AVX-512 one, for every caller. So each extra variant is linked into one object
//   first (cmake/EaglePrelinkVariant.cmake) and every function in it except its entry point is
//   made local. Data stays global, so an inline variable is still one object in the process.
//
// Values must not depend on the variant: every compile uses -ffp-contract=off (no FMA
// contraction), and the loops do not reassociate (no -ffast-math), so vectorized and scalar code
// round alike. cpu_variant_test compares each variant's results bit for bit with the baseline's.
// EAGLE_CPU_VARIANT forces a variant (tests, benchmarks); EAGLE_NATIVE builds only one, "native".

std::vector<std::string> built_cpu_variants() {
#if defined(EAGLE_CPU_NATIVE)
  return {"native"};
#else
  std::vector<std::string> v{"baseline"};
#if defined(EAGLE_CPU_HAVE_AVX2)
  v.emplace_back("avx2");
#endif
#if defined(EAGLE_CPU_HAVE_AVX512)
  v.emplace_back("avx512");
#endif
  return v;
#endif
}

bool cpu_supports_variant(const std::string& variant) {
  if (variant == "baseline" || variant == "native") return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // The features of x86-64-v3 and -v4 that the compiler uses for these loops; libgcc's checks of
  // AVX and AVX-512 include the OS's support for their registers (XGETBV).
  const bool v3 = __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
                  __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
                  __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  if (variant == "avx2") return v3;
  if (variant == "avx512") {
    return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
  }
#endif
  return false;
}

std::string choose_cpu_variant() {
  const std::vector<std::string> built = built_cpu_variants();
  const char* env = std::getenv("EAGLE_CPU_VARIANT");
  if (env == nullptr || *env == '\0' || std::string(env) == "auto") {
    for (auto it = built.rbegin(); it != built.rend(); ++it) {
      if (cpu_supports_variant(*it)) return *it;
    }
    return built.front();
  }
  const std::string want = env;
  if (std::find(built.begin(), built.end(), want) == built.end()) {
    throw InvalidArgumentError(
        fmt::format("EAGLE_CPU_VARIANT={}: this build of eagle has the CPU kernel variants {} "
                    "(or auto)",
                    want, fmt::join(built, ", ")));
  }
  if (!cpu_supports_variant(want)) {
    throw InvalidArgumentError(
        fmt::format("EAGLE_CPU_VARIANT={}: this CPU lacks the instructions of that variant", want));
  }
  return want;
}

namespace {
std::mutex active_mutex;
std::string& active() {
  static std::string name;
  return name;
}
}  // namespace

std::string active_cpu_variant() {
  std::lock_guard<std::mutex> lock(active_mutex);
  return active();
}

void detail::set_active_cpu_variant(const std::string& variant) {
  std::lock_guard<std::mutex> lock(active_mutex);
  active() = variant;
}

}  // namespace eagle::cpu
