// NCCL, loaded with dlopen the first time a MirroredStrategy (or an NcclAllReduce) asks for it, as
// cuBLAS and cuDNN are (Note [NCCL on demand]). The part of NCCL's C API eagle calls is declared
// here: NCCL ships apart from the CUDA toolkit, so building eagle needs no nccl.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

// nccl.h's communicator type is `typedef struct ncclComm* ncclComm_t`: the same incomplete struct,
// so a communicator from this header and one from nccl.h are one type.
struct ncclComm;

namespace eagle::cuda {

// Note [NCCL on demand]
// ~~~~~~~~~~~~~~~~~~~~~
// NCCL is looked up once per process (thread-safe; the result, success or failure, is kept):
// EAGLE_NCCL_LIBRARY when set (a soname or a path, which lets tests ask for a library that does
// not exist), else libnccl.so.2 on the loader's search path, then in the CUDA toolkit's library
// directory (EAGLE_NCCL_DIR), where NVIDIA's CUDA images put it. Loading resolves every entry
// point below and calls ncclGetVersion, so a broken install is found when the strategy is built
// (TensorFlow finds a missing NCCL only at the first step, tensorflow#33656). Nothing here
// throws on a missing library: MirroredStrategy asks nccl().library and falls back to
// ReductionToOneDevice with TensorFlow's warning; an explicit NcclAllReduce reports nccl().error.
//
// The declarations follow NCCL 2's documented C ABI (nccl.h, "NCCL API" in NVIDIA's NCCL
// documentation): enums are C ints, ncclComm_t is an opaque pointer, the values below have not
// changed since NCCL 2.0 (ncclBfloat16, 9, since 2.10). nccl_library.cpp checks every value and
// signature against nccl.h at compile time where one is installed.
using NcclComm = ::ncclComm*;
using NcclResult = int;    // ncclResult_t
using NcclDataType = int;  // ncclDataType_t
using NcclRedOp = int;     // ncclRedOp_t

inline constexpr NcclResult kNcclSuccess = 0;
inline constexpr NcclResult kNcclInvalidArgument = 4;
inline constexpr NcclResult kNcclInvalidUsage = 5;

inline constexpr NcclDataType kNcclInt32 = 2;
inline constexpr NcclDataType kNcclInt64 = 4;
inline constexpr NcclDataType kNcclFloat16 = 6;
inline constexpr NcclDataType kNcclFloat32 = 7;
inline constexpr NcclDataType kNcclFloat64 = 8;
inline constexpr NcclDataType kNcclBfloat16 = 9;

inline constexpr NcclRedOp kNcclSum = 0;

struct NcclLibrary {
  NcclResult (*comm_init_all)(NcclComm* comms, int ndev, const int* devlist);
  NcclResult (*comm_destroy)(NcclComm comm);
  NcclResult (*all_reduce)(const void* sendbuff, void* recvbuff, std::size_t count,
                           NcclDataType datatype, NcclRedOp op, NcclComm comm, cudaStream_t stream);
  NcclResult (*group_start)();
  NcclResult (*group_end)();
  const char* (*error_string)(NcclResult result);
  NcclResult (*get_version)(int* version);
  int version = 0;  // ncclGetVersion's code, e.g. 22809
};

// A load attempt: the library, or why there is none.
struct NcclLoad {
  std::optional<NcclLibrary> library;
  std::string error;  // dlerror's text or the missing entry point; empty when loaded
};

// NCCL for this process, loaded on the first call (Note [NCCL on demand]). Never throws.
const NcclLoad& nccl();

// One uncached attempt at `library` (a soname or a path); `fallback_dir`, when not empty, is tried
// next with the file name `library`. For nccl() and for tests of the loader. Never throws.
NcclLoad load_nccl(const std::string& library, const std::string& fallback_dir = "");

// "2.28.9" from 22809 (NCCL >= 2.9 encodes major*10000 + minor*100 + patch, older ones
// major*1000 + minor*100 + patch).
std::string nccl_version_string(int version);

// Throws unless `result` is ncclSuccess: "<call> failed: <ncclGetErrorString>", an
// InvalidArgumentError for ncclInvalidArgument and ncclInvalidUsage, else an InternalError.
void check_nccl(const NcclLibrary& nccl, NcclResult result, std::string_view call);

}  // namespace eagle::cuda
