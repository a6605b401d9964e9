#include "nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

#include <fmt/format.h>

#include "eagle/errors.hpp"

// Where nccl.h is installed, the declarations of nccl_library.hpp are checked against it (Note
// [NCCL on demand]): the same values, and entry points of the same types once NCCL's enums are
// read as the ints they are in the C ABI.
#if __has_include(<nccl.h>)
#include <nccl.h>
static_assert(sizeof(ncclResult_t) == sizeof(int) && sizeof(ncclDataType_t) == sizeof(int) &&
              sizeof(ncclRedOp_t) == sizeof(int));
static_assert(std::is_same_v<ncclComm_t, eagle::cuda::NcclComm>);
static_assert(ncclSuccess == eagle::cuda::kNcclSuccess &&
              ncclInvalidArgument == eagle::cuda::kNcclInvalidArgument &&
              ncclInvalidUsage == eagle::cuda::kNcclInvalidUsage);
static_assert(ncclInt32 == eagle::cuda::kNcclInt32 && ncclInt64 == eagle::cuda::kNcclInt64 &&
              ncclFloat16 == eagle::cuda::kNcclFloat16 &&
              ncclFloat32 == eagle::cuda::kNcclFloat32 &&
              ncclFloat64 == eagle::cuda::kNcclFloat64 &&
              ncclBfloat16 == eagle::cuda::kNcclBfloat16);
static_assert(ncclSum == eagle::cuda::kNcclSum);
static_assert(std::is_same_v<decltype(&::ncclAllReduce),
                             ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t,
                                              ncclRedOp_t, ncclComm_t, cudaStream_t)>);
static_assert(
    std::is_same_v<decltype(&::ncclCommInitAll), ncclResult_t (*)(ncclComm_t*, int, const int*)>);
#endif

namespace eagle::cuda {
namespace {

const char kDefaultSoname[] = "libnccl.so.2";

template <class F>
bool resolve(void* library, F& entry, const char* symbol, std::string& error) {
  entry = reinterpret_cast<F>(::dlsym(library, symbol));
  if (!entry && error.empty()) error = fmt::format("the library has no entry point {}", symbol);
  return entry != nullptr;
}

}  // namespace

NcclLoad load_nccl(const std::string& library, const std::string& fallback_dir) {
  NcclLoad result;
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    result.error = ::dlerror();
    if (!fallback_dir.empty()) {
      const std::string path = fallback_dir + "/" + library;
      handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) result.error += std::string("; ") + ::dlerror();
    }
    if (!handle) return result;
  }
  NcclLibrary api{};
  std::string error;
  resolve(handle, api.comm_init_all, "ncclCommInitAll", error);
  resolve(handle, api.comm_destroy, "ncclCommDestroy", error);
  resolve(handle, api.all_reduce, "ncclAllReduce", error);
  resolve(handle, api.group_start, "ncclGroupStart", error);
  resolve(handle, api.group_end, "ncclGroupEnd", error);
  resolve(handle, api.error_string, "ncclGetErrorString", error);
  resolve(handle, api.get_version, "ncclGetVersion", error);
  if (error.empty() && api.get_version(&api.version) != kNcclSuccess) {
    error = "ncclGetVersion failed";
  }
  if (!error.empty()) {
    ::dlclose(handle);
    result.error = fmt::format("{}: {}", library, error);
    return result;
  }
  result.library = api;  // the library stays loaded for the life of the process
  result.error.clear();
  return result;
}

const NcclLoad& nccl() {
  // A function-local static: initialised once, by the first caller, while the others wait.
  static const NcclLoad load = [] {
    const char* override_name = std::getenv("EAGLE_NCCL_LIBRARY");
    if (override_name != nullptr && *override_name != '\0') return load_nccl(override_name);
    return load_nccl(kDefaultSoname, EAGLE_NCCL_DIR);
  }();
  return load;
}

std::string nccl_version_string(int version) {
  const int major = version >= 10000 ? version / 10000 : version / 1000;
  const int minor = version >= 10000 ? version / 100 % 100 : version / 100 % 10;
  return fmt::format("{}.{}.{}", major, minor, version % 100);
}

void check_nccl(const NcclLibrary& nccl, NcclResult result, std::string_view call) {
  if (result == kNcclSuccess) return;
  const std::string message = fmt::format("{} failed: {}", call, nccl.error_string(result));
  if (result == kNcclInvalidArgument || result == kNcclInvalidUsage) {
    throw InvalidArgumentError(message);
  }
  throw InternalError(message);
}

}  // namespace eagle::cuda
