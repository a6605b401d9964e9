// eagle::distribute::MultiWorkerMirroredStrategy: synchronous data parallelism across processes
// launched by mpiexec (TensorFlow's tf.distribute.MultiWorkerMirroredStrategy; docs/guide.md,
// "Several processes: MultiWorkerMirroredStrategy").
#pragma once

#include <string>
#include <vector>

#include "eagle/distribute/mirrored_strategy.hpp"

namespace eagle::distribute {

// What TensorFlow's strategy.cluster_resolver tells a worker about its cluster. eagle's cluster
// is the MPI job: task_id is the MPI rank, and `workers` lists each worker's host (MPI has no
// ports to show).
struct ClusterResolver {
  std::string task_type = "worker";
  int task_id = 0;
  std::vector<std::string> workers;
  int num_workers() const { return static_cast<int>(workers.size()); }
};

// Every process of an MPI job (`mpiexec -n 2 ./train`) constructs one, in the same order as any
// other collective call; each process is one worker and its replicas are its logical GPUs (else
// CPU:0), as MirroredStrategy's, so num_replicas_in_sync() counts every worker's replicas:
//
//   eagle::distribute::MultiWorkerMirroredStrategy strategy;  // collective: every worker
//   eagle::keras::Sequential model;
//   {
//     auto scope = strategy.scope();
//     model = build_model();  // variables start as worker 0's (broadcast)
//     model.compile(...);
//   }
//   model.fit(x, y, {.batch_size = 64});  // every worker passes the same data
//
// It is a MirroredStrategy whose collectives span the workers (Note [MultiWorkerMirroredStrategy
// over MPI] in src/distribute/multi_worker_mirrored_strategy.cpp): run, reduce, split_batch,
// experimental_distribute_dataset, scope and Keras's fit take the same calls, and with the same
// global batch N workers train as one process with that batch. Every worker must make the same
// collective calls in the same order: create the same variables in the scope, call run with
// the same number of apply_gradients, reduce the same values. A worker whose variables or
// gradients differ in dtype or shape gets an InvalidArgumentError on every worker; a worker that
// stops calling (it raised, or returned early) leaves the others waiting in MPI until mpiexec
// ends the job (docs/guide.md).
//
// Construction logs TensorFlow's lines: "Using MirroredStrategy with devices (...)" with the
// cluster's names ("/job:worker/replica:0/task:<rank>/device:CPU:0") when there are several
// workers, then "MultiWorkerMirroredStrategy with cluster_spec = {'worker': [...]}, task_type =
// 'worker', task_id = <rank>, num_workers = <n>, local_devices = (...), communication =
// CommunicationImplementation.AUTO" (one worker: TensorFlow's "Single-worker
// MultiWorkerMirroredStrategy with local_devices = ..." line).
//
// A build without MPI (EAGLE_MPI=OFF): the constructors raise UnimplementedError.
class MultiWorkerMirroredStrategy : public MirroredStrategy {
 public:
  // This worker's replicas on every logical GPU, else CPU:0.
  MultiWorkerMirroredStrategy();
  // This worker's replicas on `local_devices` (as MirroredStrategy's devices). Every worker must
  // have as many: InvalidArgumentError on every worker otherwise.
  explicit MultiWorkerMirroredStrategy(const std::vector<std::string>& local_devices);

  const ClusterResolver& cluster_resolver() const { return cluster_; }
  int task_id() const { return cluster_.task_id; }
  int num_workers() const { return cluster_.num_workers(); }
  // Worker 0, the chief: the one that prints Keras's progress bar.
  bool is_chief() const { return cluster_.task_id == 0; }
  // This worker's devices as the cluster names them ("/job:worker/replica:0/task:<n>/device:..."
  // with several workers; devices() are the names this process places tensors with).
  const std::vector<std::string>& worker_devices() const { return worker_devices_; }

 private:
  void finish_construction();
  ClusterResolver cluster_;
  std::vector<std::string> worker_devices_;
};

}  // namespace eagle::distribute
