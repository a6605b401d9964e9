// What a MirroredStrategy shares with its replica threads, its mirrored variables and the
// optimizers: the devices, the replica thread pool, the thread-local scope and replica context,
// and the all-reduce rendezvous (Note [Mirrored variables and the all-reduce rendezvous]).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "distribute/worker_group.hpp"
#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle::distribute::detail {

// Note [Mirrored variables and the all-reduce rendezvous]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A variable created under strategy.scope() (or in a replica function) is a handle on a proxy
// VariableState that holds no buffer but a MirroredVariable policy (src/distribute/
// mirrored_variable.hpp, Note [Distributed variables]): one ordinary VariableState per replica
// device (component 0 named `<name>`, component i `<name>/replica_<i>`, TensorFlow's names), all
// initialised from the same value. Every access through the handle resolves, with one branch on
// the non-mirrored path (Variable::resolved), to the component of the calling thread's replica:
// the thread-local ReplicaThread that run() sets on its pool threads, component 0 outside a
// replica function. So reads, tape watches and gradient sources in replica i touch component i on
// replica i's device, and nothing in the tape or the kernels knows about mirroring.
//
// The collectives (ReplicaContext::all_reduce and merge_call; Optimizer::apply_gradients calls
// both, Note [One update path] in src/optimizers/optimizer.cpp) meet here. Each replica packs its
// values into one flat buffer per dtype (Reshape + ConcatV2, PyTorch DDP's bucket, TensorFlow's
// num_packs=1) and deposits them at the strategy's rendezvous under its collective sequence
// number (the k-th collective of this run()). The last replica to arrive checks that every
// replica sent the same values with the same shapes, sums each pack with the CrossDeviceOps (AddN
// on one device, copies back: bit-identical copies), runs the merge function if there is one
// (the optimizer advances its iterations there), and wakes the others; each replica then unpacks
// its copy (Split + Reshape) and, in the optimizer, applies the update to its own components on
// its own thread. Equal inputs and one kernel give bit-identical components.
//
// Nothing hangs: a replica that leaves its function (an error, or it returned without the
// collective the others wait in) is marked finished, and every replica waiting for a collective
// it never joined is released with CancelledError naming it. run() reports the lowest replica's
// own error, not those it caused.

class StrategyRuntime;

// The calling thread's replica while it runs a replica function.
struct ReplicaThread {
  StrategyRuntime* runtime;
  int replica_id;
  ReplicaContext context;
  std::int64_t collectives = 0;  // collectives this replica joined during this run()
  // Variables this replica created during this run(), by name (create_in_replicas).
  std::map<std::string, std::int64_t> creations;
};

// nullptr outside a replica function.
ReplicaThread* current_replica_thread();

// The all-reduce of one optimizer step from replica `replica`: the sum over replicas of each
// gradient, on this replica's device. `names` identifies the variables (checked equal across
// replicas); `once` runs exactly once per collective, by the last replica to arrive, before any
// replica returns.
std::vector<Tensor> all_reduce_gradients(ReplicaThread& replica, const std::vector<Tensor>& grads,
                                         const std::vector<std::string>& names,
                                         const std::function<void()>& once);

class StrategyRuntime {
 public:
  // `workers`: the process group of a MultiWorkerMirroredStrategy, else nullptr (one process).
  StrategyRuntime(const MirroredStrategy& strategy, std::vector<std::string> devices,
                  std::shared_ptr<CrossDeviceOps> cross_device_ops,
                  std::shared_ptr<WorkerGroup> workers = nullptr);
  ~StrategyRuntime();

  std::uint64_t id() const { return id_; }
  const MirroredStrategy& strategy() const { return strategy_; }
  const std::vector<std::string>& devices() const { return devices_; }
  // This process's replicas (ReplicaThread::replica_id indexes them).
  int num_replicas() const { return static_cast<int>(devices_.size()); }
  // Every worker's replicas, and the global id of this process's first one (every worker has
  // as many replicas: MultiWorkerMirroredStrategy checks it).
  int num_replicas_in_sync() const { return num_replicas() * num_workers(); }
  int first_replica() const { return workers_ ? workers_->task_id() * num_replicas() : 0; }
  int num_workers() const { return workers_ ? workers_->num_workers() : 1; }
  WorkerGroup* workers() const { return workers_.get(); }
  CrossDeviceOps& cross_device_ops() const { return *cross_device_ops_; }

  // Runs body on every replica thread and rethrows the first replica's error.
  void run(const std::function<void(const ReplicaContext&)>& body);

  // One deposit per replica; see all_reduce_gradients.
  struct Deposit {
    std::vector<std::string> signature;  // "'<name>' <shape> <dtype>" per gradient
    std::vector<Tensor> packs;           // one flat buffer per dtype, on the replica's device
  };
  std::vector<Tensor> exchange(int replica, std::int64_t sequence, Deposit deposit,
                               const std::function<void()>& once);

  // A variable created in a replica function (create_mirrored_variable): the k-th variable of a
  // name that each replica creates in this run() is one variable, made by `create` on the first
  // replica to ask for it, from its initial value; the others wait for it and return the same
  // (TensorFlow's replicas share the variables their function creates). Not a collective: a
  // replica that has it already (a layer built once) never asks.
  using VariableFactory =
      std::function<Variable(const Tensor& initial_value, const VariableOptions& options)>;
  Variable create_in_replicas(ReplicaThread& replica, const Tensor& initial_value,
                              const VariableOptions& options, const VariableFactory& create);

 private:
  struct Collective {
    int arrived = 0;
    int taken = 0;
    bool done = false;
    std::vector<Deposit> deposits;
    std::vector<std::vector<Tensor>> results;  // per replica, per pack
    std::exception_ptr error;
  };
  void worker(int replica);
  void reduce_collective(Collective& collective, const std::function<void()>& once);
  std::string replica_name(int replica) const;

  const MirroredStrategy& strategy_;
  const std::uint64_t id_;
  const std::vector<std::string> devices_;
  const std::shared_ptr<CrossDeviceOps> cross_device_ops_;
  const std::shared_ptr<WorkerGroup> workers_;

  // The pool: one thread per replica, waiting for the next run's generation.
  std::mutex run_mutex_;  // one run() at a time
  std::mutex pool_mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
  const std::function<void(const ReplicaContext&)>* body_ = nullptr;
  std::vector<std::exception_ptr> errors_;
  std::vector<bool> released_by_peer_;  // the replica's error is a CancelledError we caused
  std::vector<std::thread> threads_;

  // The rendezvous of this run()'s collectives.
  std::mutex rendezvous_mutex_;
  std::condition_variable rendezvous_cv_;
  std::vector<std::int64_t> joined_;  // per replica: collectives deposited this run
  std::vector<bool> finished_;        // per replica: left its function this run
  std::map<std::int64_t, Collective> collectives_;

  // create_in_replicas' variables of this run(), by name and occurrence.
  struct Creation {
    bool started = false;
    bool done = false;
    Variable result;
    std::exception_ptr error;
  };
  std::mutex creations_mutex_;
  std::condition_variable creations_cv_;
  std::map<std::pair<std::string, std::int64_t>, Creation> creations_;
};

}  // namespace eagle::distribute::detail
