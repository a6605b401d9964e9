// ReplicaContext::all_reduce: a differentiable collective inside MirroredStrategy::run, through
// the same rendezvous as apply_gradients (Note [Mirrored variables and the all-reduce
// rendezvous]) and eagle::custom_gradient (Note [Custom gradients]).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "distribute/strategy_runtime.hpp"
#include "eagle/custom_gradient.hpp"
#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::distribute {
namespace {

// The calling thread's replica, which must be the one of `ctx` (its local index: under a
// MultiWorkerMirroredStrategy the context's id counts every worker's replicas).
detail::ReplicaThread& own_replica(int local_id, int global_id, const char* what) {
  detail::ReplicaThread* replica = detail::current_replica_thread();
  if (replica == nullptr || replica->replica_id != local_id) {
    throw FailedPreconditionError(fmt::format(
        "{} of replica {} must run on that replica's own thread, inside MirroredStrategy::run",
        what, global_id));
  }
  return *replica;
}

std::vector<Tensor> reduce_values(detail::ReplicaThread& replica, ReduceOp op,
                                  const std::vector<Tensor>& values) {
  std::vector<std::string> names;
  names.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) names.push_back(fmt::format("value {}", i));
  std::vector<Tensor> sums = detail::all_reduce_gradients(replica, values, names, [] {});
  if (op == ReduceOp::kMean) {
    const double n = replica.context.num_replicas_in_sync();
    for (Tensor& s : sums) s = s / cast(constant(n), s.dtype());
  }
  return sums;
}

}  // namespace

std::vector<Tensor> ReplicaContext::all_reduce(ReduceOp op,
                                               const std::vector<Tensor>& values) const {
  detail::ReplicaThread& replica =
      own_replica(local_replica_id_, replica_id_, "ReplicaContext::all_reduce");
  if (values.empty()) return {};
  const int local_id = local_replica_id_;
  const int global_id = replica_id_;
  return custom_gradient(
      [&replica, op, local_id, global_id](const std::vector<Tensor>& in) {
        CustomGradientResult result;
        result.outputs = reduce_values(replica, op, in);
        // d(sum_r x_r)/dx_i = 1 for every replica's loss: replica i's gradient is the sum of the
        // replicas' output gradients (their mean for MEAN).
        result.grad_fn = [op, local_id, global_id](const std::vector<Tensor>& output_grads) {
          return reduce_values(
              own_replica(local_id, global_id, "The gradient of ReplicaContext::all_reduce"), op,
              output_grads);
        };
        return result;
      },
      values);
}

Tensor ReplicaContext::all_reduce(ReduceOp op, const Tensor& value) const {
  return all_reduce(op, std::vector<Tensor>{value})[0];
}

}  // namespace eagle::distribute
