#include "cublas_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <string>

#include "eagle/errors.hpp"

namespace eagle::cuda {
namespace {

// cublas_v2.h maps several names to their _v2 symbols with macros; stringizing after expansion
// gives the symbol that the library exports.
#define EAGLE_SYMBOL_NAME(name) EAGLE_SYMBOL_NAME_EXPANDED(name)
#define EAGLE_SYMBOL_NAME_EXPANDED(name) #name

void* open_library() {
  void* handle = ::dlopen(EAGLE_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle) return handle;
  const std::string first_error = ::dlerror();
  const std::string fallback = std::string(EAGLE_CUBLAS_DIR) + "/" + EAGLE_CUBLAS_SONAME;
  handle = ::dlopen(fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle) return handle;
  throw InternalError(fmt::format("could not load cuBLAS: {}; {}", first_error, ::dlerror()));
}

template <class F>
void resolve(void* library, F& entry, const char* symbol) {
  entry = reinterpret_cast<F>(::dlsym(library, symbol));
  if (!entry) {
    throw InternalError(
        fmt::format("cuBLAS ({}) has no entry point {}", EAGLE_CUBLAS_SONAME, symbol));
  }
}

CublasLibrary load() {
  void* library = open_library();
  CublasLibrary api{};
  resolve(library, api.create, EAGLE_SYMBOL_NAME(cublasCreate));
  resolve(library, api.destroy, EAGLE_SYMBOL_NAME(cublasDestroy));
  resolve(library, api.set_stream, EAGLE_SYMBOL_NAME(cublasSetStream));
  resolve(library, api.set_pointer_mode, EAGLE_SYMBOL_NAME(cublasSetPointerMode));
  resolve(library, api.set_workspace, EAGLE_SYMBOL_NAME(cublasSetWorkspace));
  resolve(library, api.status_name, EAGLE_SYMBOL_NAME(cublasGetStatusName));
  resolve(library, api.status_string, EAGLE_SYMBOL_NAME(cublasGetStatusString));
  resolve(library, api.gemm, EAGLE_SYMBOL_NAME(cublasGemmEx));
  resolve(library, api.gemm_strided_batched, EAGLE_SYMBOL_NAME(cublasGemmStridedBatchedEx));
  resolve(library, api.gemm_batched, EAGLE_SYMBOL_NAME(cublasGemmBatchedEx));
  // The typedefs must match cuBLAS's declarations: these compile only if an overload does
  // (unevaluated, so nothing refers to the symbols themselves).
  static_assert(sizeof(static_cast<CublasGemmEx>(&::cublasGemmEx)) > 0);
  static_assert(sizeof(static_cast<CublasGemmStridedBatchedEx>(&::cublasGemmStridedBatchedEx)) > 0);
  static_assert(sizeof(static_cast<CublasGemmBatchedEx>(&::cublasGemmBatchedEx)) > 0);
  return api;  // the library stays loaded for the life of the process
}

}  // namespace

const CublasLibrary& cublas() {
  // Double-checked rather than a function-local static: a failed load throws, and the next call
  // must try (and report) again. After the first success a call costs one acquire load.
  static std::atomic<bool> loaded{false};
  static std::mutex mutex;
  static CublasLibrary api{};
  if (!loaded.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!loaded.load(std::memory_order_relaxed)) {
      api = load();
      loaded.store(true, std::memory_order_release);
    }
  }
  return api;
}

}  // namespace eagle::cuda
