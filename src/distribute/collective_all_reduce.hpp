// CollectiveAllReduce, the CrossDeviceOps of MultiWorkerMirroredStrategy (TensorFlow's name), and
// the tensor collectives over its workers (Note [MultiWorkerMirroredStrategy over MPI] in
// src/distribute/multi_worker_mirrored_strategy.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distribute/worker_group.hpp"
#include "eagle/distribute/cross_device_ops.hpp"
#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/tensor.hpp"

namespace eagle::distribute::detail {

// The replicas' values summed on the first destination's device, that sum staged through the
// host and summed over the workers (WorkerGroup::sum: the same bits everywhere), then copied to
// each destination; MEAN divides by every worker's replica count. Before each sum the workers
// compare what they send (dtype and shape): a difference is an InvalidArgumentError on every
// worker, not a hang or a garbled sum. float16 and bfloat16 travel as float32.
class CollectiveAllReduce : public CrossDeviceOps {
 public:
  explicit CollectiveAllReduce(std::shared_ptr<WorkerGroup> workers);
  std::string name() const override { return "CollectiveAllReduce"; }
  Tensor reduce(ReduceOp op, const std::vector<Tensor>& values,
                const std::string& destination) override;
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                 const std::vector<std::string>& destinations) override;

 private:
  Tensor reduce_to_host(ReduceOp op, const std::vector<Tensor>& values,
                        const std::string& local_device);
  std::shared_ptr<WorkerGroup> workers_;
};

// The devices' names as the cluster knows them, "/job:worker/replica:0/task:<task>/device:..."
// when there are several workers; the names as they are for one worker or none.
std::vector<std::string> cluster_device_names(const std::vector<std::string>& devices,
                                              const WorkerGroup* workers);

// Every worker passes a `description` of what it is about to send in the collective `what`:
// returns when they are equal, else raises, on every worker, InvalidArgumentError
// "MultiWorkerMirroredStrategy: the workers differ in <what>: worker 0 has <d0>, worker 1 has
// <d1>, ...".
void check_same_on_workers(WorkerGroup& workers, const std::string& what,
                           const std::string& description);

// The sum over the workers of `value` (any device), as a new host tensor equal on every worker;
// `what` describes it in a mismatch error ("the workers differ in the values they all-reduce:
// worker 0 has <what> of float32 (10,), ...").
Tensor sum_across_workers(WorkerGroup& workers, const Tensor& value, const std::string& what);
std::int64_t sum_over_workers(WorkerGroup& workers, std::int64_t value);

// Worker 0's `value` on every worker, a host tensor; `what` names it in a mismatch error ("the
// workers differ in the variables they create in the strategy's scope: worker 0 has <what>
// float32 (3,), ...").
Tensor broadcast_from_chief(WorkerGroup& workers, const Tensor& value, const std::string& what);

// Every worker's `values`, worker after worker, as host tensors (this worker's own as they are).
// The counts and shapes may differ between workers.
std::vector<Tensor> all_gather_across_workers(WorkerGroup& workers,
                                              const std::vector<Tensor>& values);

}  // namespace eagle::distribute::detail
