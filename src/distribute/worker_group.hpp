// The processes of a MultiWorkerMirroredStrategy and their collectives on host bytes (Note
// [MultiWorkerMirroredStrategy over MPI] in src/distribute/multi_worker_mirrored_strategy.cpp).
// Nothing here names MPI: the one implementation is src/distribute/mpi_worker_group.cpp, and a
// build without MPI links src/distribute/no_worker_group.cpp instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"

namespace eagle::distribute::detail {

// Every call is a collective: each worker makes the same calls in the same order (what one
// worker's call waits for is the others' matching call). Calls are serialized within a process.
// A failure of the transport is an UnavailableError naming the call.
class WorkerGroup {
 public:
  virtual ~WorkerGroup() = default;
  // This process's index (the MPI rank) and the number of processes.
  virtual int task_id() const = 0;
  virtual int num_workers() const = 0;
  // The host each worker runs on, in task order (the cluster_spec of the construction log).
  virtual const std::vector<std::string>& hosts() const = 0;
  // Each worker's `bytes`, in task order.
  virtual std::vector<std::string> all_gather(const std::string& bytes) = 0;
  // In place: the element-wise sum over the workers of `count` elements at `data`, computed on
  // worker 0 and sent to all, so every worker holds the same bits. dtype: float32, float64,
  // int32 or int64.
  virtual void sum(void* data, std::int64_t count, DType dtype) = 0;
  // In place: worker 0's `bytes` bytes at `data` on every worker.
  virtual void broadcast(void* data, std::size_t bytes) = 0;
};

// The process group this process was launched in (mpiexec): MPI is initialized here once per
// process (and finalized at exit) unless the program did it. A build without MPI:
// UnimplementedError.
std::shared_ptr<WorkerGroup> connect_worker_group();

}  // namespace eagle::distribute::detail
