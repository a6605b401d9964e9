// MultiWorkerMirroredStrategy: a MirroredStrategy whose collectives span the processes of an MPI
// job (docs/guide.md, "Several processes: MultiWorkerMirroredStrategy").
#include "eagle/distribute/multi_worker_mirrored_strategy.hpp"

#include <utility>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "distribute/collective_all_reduce.hpp"
#include "distribute/worker_group.hpp"
#include "eagle/errors.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::distribute {

// Note [MultiWorkerMirroredStrategy over MPI]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An existing engine carries the collectives across processes (docs/design.md, "Dependencies and
// why"): MPI (Open MPI, Debian's libopenmpi-dev) is that engine, and only
// src/distribute/mpi_worker_group.cpp sees it, behind detail::WorkerGroup (task = MPI rank,
// workers = MPI size, a communicator of its own whose errors return as codes and become
// UnavailableError). The strategy is a MirroredStrategy built with that group; everything else is
// MirroredStrategy's machinery with global replica numbers:
//   - replicas: each worker runs its devices() on its own replica threads; the ReplicaContext
//     says the global id (task * devices().size() + i) and count, and the replica threads and
//     PerReplica values stay local. Every worker must have as many replicas (checked here);
//   - variables created in scope() are mirrored locally as before, their initial value first
//     replaced by worker 0's (broadcast_from_chief, from the strategy's variable creator): workers
//     that seeded their initializers differently still start identical, as TensorFlow's
//     MultiWorkerMirroredStrategy broadcasts initial values. Optimizer slots start at constants
//     created inside apply_gradients and are not broadcast;
//   - gradients: apply_gradients' rendezvous packs each replica's gradients into one flat buffer
//     per dtype as before and hands them to the CrossDeviceOps, here CollectiveAllReduce
//     (TensorFlow's name): the local replicas' packs are summed on the first replica's device,
//     staged to the host, summed over the workers, and copied back to each replica. One transfer
//     per pack per step, whatever the number of variables. The cross-worker sum is MPI_Reduce to
//     worker 0 then MPI_Bcast rather than MPI_Allreduce: MPI lets an all-reduce add in a
//     different order on each rank, and the workers' variables must stay bit-identical;
//   - reduce(SUM|MEAN) goes through the same CrossDeviceOps, so it spans every worker's
//     replicas; with an axis the MEAN's denominator is summed over the workers too;
//   - data: every worker reads the same global batches; split_batch gives each its own global
//     replicas' slices by TensorFlow's rule, so N workers with global batch B compute what one
//     process with batch B computes (the sums differ only in float addition order);
//   - Keras: fit, evaluate and predict gather the replicas' predictions and losses from every
//     worker (all_gather_across_workers), so every worker's metrics, history and predictions are
//     the whole batch's. The progress bar prints on the chief (worker 0) only (TensorFlow prints
//     it on every worker).
// Mismatches: before every sum and broadcast the workers compare a hash of what they send
// (dtype, shape, the variable's name) and, when the hashes differ, exchange the texts, so every
// worker raises the same InvalidArgumentError instead of MPI summing garbage or hanging. What
// cannot be avoided: a worker that stops making collective calls (an error on that worker alone,
// a different number of steps, a crash) leaves the others blocked in MPI. mpiexec ends the whole
// job when a process exits abnormally, so an uncaught error or a crash still terminates every
// worker; a worker that catches its error and goes on waits forever.
// Device tensors (CUDA) are staged through the host: NCCL across processes (ncclGetUniqueId on
// worker 0, MPI_Bcast, ncclCommInitRank) is not implemented.

namespace {

// TensorFlow's local_devices in its multi-worker line: "/job:worker/task:<n>/device:..." (no
// replica field, as _initialize_local_devices writes them).
std::vector<std::string> local_device_names(const std::vector<std::string>& cluster_names) {
  std::vector<std::string> out;
  for (const std::string& name : cluster_names) {
    const std::string replica = "/replica:0";
    const std::size_t at = name.find(replica);
    out.push_back(at == std::string::npos ? name
                                          : name.substr(0, at) + name.substr(at + replica.size()));
  }
  return out;
}

}  // namespace

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy()
    : MirroredStrategy(std::vector<std::string>{}, detail::connect_worker_group()) {
  finish_construction();
}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    const std::vector<std::string>& local_devices)
    : MirroredStrategy(local_devices.empty()
                           ? throw InvalidArgumentError(
                                 "Got an empty `devices` list and unable to recognize any local "
                                 "devices.")
                           : local_devices,
                       detail::connect_worker_group()) {
  finish_construction();
}

void MultiWorkerMirroredStrategy::finish_construction() {
  detail::WorkerGroup& workers = *detail::worker_group_of(*this);
  cluster_.task_id = workers.task_id();
  cluster_.workers = workers.hosts();
  worker_devices_ = detail::cluster_device_names(devices(), &workers);
  detail::check_same_on_workers(workers, "their number of replicas (local devices)",
                                fmt::format("{} replicas", devices().size()));
  const std::string communication = "CommunicationImplementation.AUTO";
  if (workers.num_workers() == 1) {
    runtime::emit_info(fmt::format(
        "Single-worker MultiWorkerMirroredStrategy with local_devices = {}, communication = {}",
        eagle::detail::tuple_repr(devices()), communication));
    return;
  }
  std::string hosts;
  for (std::size_t w = 0; w < cluster_.workers.size(); ++w) {
    hosts += fmt::format("{}'{}'", w ? ", " : "", cluster_.workers[w]);
  }
  runtime::emit_info(fmt::format(
      "MultiWorkerMirroredStrategy with cluster_spec = {{'worker': [{}]}}, task_type = 'worker', "
      "task_id = {}, num_workers = {}, local_devices = {}, communication = {}",
      hosts, cluster_.task_id, workers.num_workers(),
      eagle::detail::tuple_repr(local_device_names(worker_devices_)), communication));
}

}  // namespace eagle::distribute
