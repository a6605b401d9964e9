// The MPI process group of MultiWorkerMirroredStrategy (Note [MultiWorkerMirroredStrategy over
// MPI] in src/distribute/multi_worker_mirrored_strategy.cpp). The only file that includes mpi.h.
// MPI's C API only: the deprecated C++ bindings that mpi.h brings into C++ otherwise warn.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "distribute/worker_group.hpp"
#include "eagle/errors.hpp"

namespace eagle::distribute::detail {
namespace {

// MPI's text for an error code.
std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return fmt::format("error {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  throw UnavailableError(fmt::format(
      "MultiWorkerMirroredStrategy: {} failed: {} (a worker may have exited or lost its "
      "connection)",
      call, mpi_error_text(code)));
}

MPI_Datatype mpi_type_of(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    default:
      throw InternalError(
          fmt::format("MultiWorkerMirroredStrategy: no MPI sum for dtype {}", dtype_name(dtype)));
  }
}

// MPI counts are ints: long buffers go in pieces of at most this many elements.
constexpr std::int64_t kMaxCount = INT_MAX / 8;

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class MpiWorkerGroup : public WorkerGroup {
 public:
  MpiWorkerGroup() {
    int initialized = 0;
    check(MPI_Initialized(&initialized), "MPI_Initialized");
    if (!initialized) {
      // Collectives run on whichever replica thread completes a rendezvous: several threads,
      // never two at once (mutex_), so MPI_THREAD_SERIALIZED.
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
      std::atexit(finalize_at_exit);
      if (provided < MPI_THREAD_SERIALIZED) {
        throw UnimplementedError(fmt::format(
            "MultiWorkerMirroredStrategy needs MPI_THREAD_SERIALIZED; this MPI provides thread "
            "level {}",
            provided));
      }
    } else {
      int provided = 0;
      check(MPI_Query_thread(&provided), "MPI_Query_thread");
      if (provided < MPI_THREAD_SERIALIZED) {
        throw FailedPreconditionError(fmt::format(
            "MultiWorkerMirroredStrategy: the program initialized MPI at thread level {}; the "
            "strategy calls MPI from its replica threads and needs MPI_THREAD_SERIALIZED or more "
            "(MPI_Init_thread)",
            provided));
      }
    }
    // A communicator of its own, whose errors come back as codes (typed errors here), not
    // MPI's default abort.
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    char host[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    check(MPI_Get_processor_name(host, &length), "MPI_Get_processor_name");
    hosts_ = all_gather(std::string(host, static_cast<std::size_t>(length)));
  }

  ~MpiWorkerGroup() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }

  int task_id() const override { return rank_; }
  int num_workers() const override { return size_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }

  std::vector<std::string> all_gather(const std::string& bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto n = static_cast<std::size_t>(size_);
    std::int64_t mine = static_cast<std::int64_t>(bytes.size());
    std::vector<std::int64_t> sizes(n);
    check(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm_),
          "MPI_Allgather");
    std::vector<int> counts(n);
    std::vector<int> offsets(n);
    std::int64_t total = 0;
    for (std::size_t w = 0; w < n; ++w) {
      if (total + sizes[w] > INT_MAX) {
        throw UnimplementedError(fmt::format(
            "MultiWorkerMirroredStrategy: gathering {} bytes or more across workers (at most {})",
            total + sizes[w], INT_MAX));
      }
      offsets[w] = static_cast<int>(total);
      counts[w] = static_cast<int>(sizes[w]);
      total += sizes[w];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Allgatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, all.data(),
                         counts.data(), offsets.data(), MPI_BYTE, comm_),
          "MPI_Allgatherv");
    std::vector<std::string> out(n);
    for (std::size_t w = 0; w < n; ++w) {
      out[w] =
          all.substr(static_cast<std::size_t>(offsets[w]), static_cast<std::size_t>(counts[w]));
    }
    return out;
  }

  void sum(void* data, std::int64_t count, DType dtype) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const MPI_Datatype type = mpi_type_of(dtype);
    auto* bytes = static_cast<char*>(data);
    const auto element = static_cast<std::int64_t>(dtype_size(dtype));
    for (std::int64_t begin = 0; begin < count; begin += kMaxCount) {
      const int n = static_cast<int>(std::min(kMaxCount, count - begin));
      char* piece = bytes + begin * element;
      // Reduce to worker 0, then broadcast: MPI_Allreduce may add in a different order on each
      // rank, and the workers' mirrored variables must stay bit-identical.
      if (rank_ == 0) {
        check(MPI_Reduce(MPI_IN_PLACE, piece, n, type, MPI_SUM, 0, comm_), "MPI_Reduce");
      } else {
        check(MPI_Reduce(piece, nullptr, n, type, MPI_SUM, 0, comm_), "MPI_Reduce");
      }
      check(MPI_Bcast(piece, n, type, 0, comm_), "MPI_Bcast");
    }
  }

  void broadcast(void* data, std::size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto* p = static_cast<char*>(data);
    for (std::size_t begin = 0; begin < bytes; begin += static_cast<std::size_t>(INT_MAX)) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, bytes - begin));
      check(MPI_Bcast(p + begin, n, MPI_BYTE, 0, comm_), "MPI_Bcast");
    }
  }

 private:
  std::mutex mutex_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::string> hosts_;
};

}  // namespace

std::shared_ptr<WorkerGroup> connect_worker_group() {
  // One per process: every strategy of the process shares it (and its serialization).
  static std::mutex mutex;
  static std::weak_ptr<WorkerGroup> current;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto group = current.lock()) return group;
  auto group = std::make_shared<MpiWorkerGroup>();
  current = group;
  return group;
}

}  // namespace eagle::distribute::detail
