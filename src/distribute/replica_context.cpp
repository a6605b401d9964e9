// MirroredStrategy's ReplicaContext::all_reduce: a differentiable collective inside its run,
// through the same rendezvous as apply_gradients (Note [Mirrored variables and the all-reduce
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
                                  const std::vector<Tensor>& values,
                                  const std::vector<std::string>& names) {
  std::vector<Tensor> sums = detail::all_reduce_gradients(replica, values, names, [] {});
  if (op == ReduceOp::kMean) {
    const double n = replica.context.num_replicas_in_sync();
    for (Tensor& s : sums) s = s / cast(constant(n), s.dtype());
  }
  return sums;
}

}  // namespace

std::vector<Tensor> MirroredStrategy::replica_all_reduce(
    const ReplicaContext& ctx, ReduceOp op, const std::vector<Tensor>& values,
    const std::vector<std::string>& names) const {
  const int local_id = ctx.local_replica_id();
  const int global_id = ctx.replica_id_in_sync_group();
  detail::ReplicaThread& replica = own_replica(local_id, global_id, "ReplicaContext::all_reduce");
  if (values.empty()) return {};
  return custom_gradient(
      [&replica, op, local_id, global_id, &names](const std::vector<Tensor>& in) {
        CustomGradientResult result;
        result.outputs = reduce_values(replica, op, in, names);
        // d(sum_r x_r)/dx_i = 1 for every replica's loss: replica i's gradient is the sum of the
        // replicas' output gradients (their mean for MEAN).
        result.grad_fn = [op, local_id, global_id,
                          names = names](const std::vector<Tensor>& output_grads) {
          return reduce_values(
              own_replica(local_id, global_id, "The gradient of ReplicaContext::all_reduce"), op,
              output_grads, names);
        };
        return result;
      },
      values);
}

void MirroredStrategy::replica_merge_call(const ReplicaContext& ctx,
                                          const std::function<void()>& fn) const {
  detail::ReplicaThread& replica = own_replica(
      ctx.local_replica_id(), ctx.replica_id_in_sync_group(), "ReplicaContext::merge_call");
  // A collective with nothing to reduce: the last replica to arrive runs fn.
  detail::all_reduce_gradients(replica, {}, {}, fn);
}

}  // namespace eagle::distribute
