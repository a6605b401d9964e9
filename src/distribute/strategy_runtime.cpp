// The replica thread pool and the all-reduce rendezvous of a MirroredStrategy (Note [Mirrored
// variables and the all-reduce rendezvous]).
#include "distribute/strategy_runtime.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "distribute/mirrored_variable.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"

namespace eagle::distribute::detail {
namespace {

thread_local ReplicaThread* t_replica = nullptr;

// The same error class as `error`, its message prefixed. Errors that are not eagle's travel as
// they are.
[[noreturn]] void rethrow_prefixed(const std::exception_ptr& error, const std::string& prefix) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    throw_like(e, prefix + e.what());
  }
}

// Thrown into a replica waiting for a collective that a peer left without joining.
class ReleasedByPeer : public CancelledError {
 public:
  using CancelledError::CancelledError;
};

std::string joined_signature(const std::vector<std::string>& signature) {
  std::string out = "[";
  for (std::size_t i = 0; i < signature.size(); ++i) out += (i ? ", " : "") + signature[i];
  return out + "]";
}

}  // namespace

ReplicaThread* current_replica_thread() { return t_replica; }

StrategyRuntime::StrategyRuntime(const MirroredStrategy& strategy, std::vector<std::string> devices,
                                 std::shared_ptr<CrossDeviceOps> cross_device_ops,
                                 std::shared_ptr<WorkerGroup> workers)
    : strategy_(strategy),
      id_(strategy.id()),
      devices_(std::move(devices)),
      cross_device_ops_(std::move(cross_device_ops)),
      workers_(std::move(workers)) {
  const std::size_t n = devices_.size();
  errors_.resize(n);
  released_by_peer_.assign(n, false);
  joined_.assign(n, 0);
  finished_.assign(n, false);
  threads_.reserve(n);
  for (int r = 0; r < num_replicas(); ++r) threads_.emplace_back([this, r] { worker(r); });
}

StrategyRuntime::~StrategyRuntime() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::string StrategyRuntime::replica_name(int replica) const {
  return fmt::format("replica {} on {}", replica, devices_[static_cast<std::size_t>(replica)]);
}

void StrategyRuntime::worker(int replica) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(const ReplicaContext&)>* body = nullptr;
    {
      std::unique_lock<std::mutex> lock(pool_mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      body = body_;
    }
    std::exception_ptr error;
    bool released = false;
    {
      ReplicaThread self{
          this, replica,
          strategy_.make_replica_context(first_replica() + replica, num_replicas_in_sync(),
                                         &devices_[static_cast<std::size_t>(replica)], replica)};
      t_replica = &self;
      try {
        ReplicaContextGuard context(self.context);
        // Variables created in the replica function are the strategy's (Note [Distributed
        // variables] in src/variables/variable_state.hpp), as in its scope.
        const VariableCreatorScope creator([this](const NextVariableCreator& next,
                                                  const Tensor& initial_value,
                                                  const VariableOptions& options) {
          return create_mirrored_variable(*this, next, initial_value, options);
        });
        DeviceScope scope(devices_[static_cast<std::size_t>(replica)]);
        (*body)(self.context);
      } catch (const ReleasedByPeer&) {
        error = std::current_exception();
        released = true;
      } catch (...) {
        error = std::current_exception();
      }
      t_replica = nullptr;
    }
    {
      std::lock_guard<std::mutex> lock(rendezvous_mutex_);
      finished_[static_cast<std::size_t>(replica)] = true;
    }
    rendezvous_cv_.notify_all();
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      // Moved, not copied: this thread keeps no reference, so the exception dies on the thread
      // that takes it from errors_ (the calling thread, after it rethrew it), not here while that
      // thread may still read it. exception_ptr's count lives in libstdc++, whose atomics
      // ThreadSanitizer does not see; it reported exactly that destruction as a race.
      errors_[static_cast<std::size_t>(replica)] = std::move(error);
      released_by_peer_[static_cast<std::size_t>(replica)] = released;
      if (--pending_ == 0) work_done_.notify_all();
    }
  }
}

void StrategyRuntime::run(const std::function<void(const ReplicaContext&)>& body) {
  if (ReplicaThread* self = t_replica; self != nullptr && self->runtime == this) {
    throw FailedPreconditionError(
        fmt::format("MirroredStrategy.run called inside its own replica function ({}): a "
                    "replica function runs once per replica already",
                    replica_name(self->replica_id)));
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(rendezvous_mutex_);
    std::fill(joined_.begin(), joined_.end(), 0);
    std::fill(finished_.begin(), finished_.end(), false);
    collectives_.clear();
  }
  {
    std::lock_guard<std::mutex> lock(creations_mutex_);
    creations_.clear();
  }
  {
    std::unique_lock<std::mutex> lock(pool_mutex_);
    std::fill(errors_.begin(), errors_.end(), nullptr);
    body_ = &body;
    pending_ = num_replicas();
    ++generation_;
    work_ready_.notify_all();
    work_done_.wait(lock, [&] { return pending_ == 0; });
    body_ = nullptr;
  }
  // The lowest replica's own error; a release it caused in others only when there is none.
  int first = -1;
  for (int pass = 0; pass < 2 && first < 0; ++pass) {
    for (int r = 0; r < num_replicas(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (errors_[i] && (pass == 1 || !released_by_peer_[i])) {
        first = r;
        break;
      }
    }
  }
  if (first >= 0) {
    rethrow_prefixed(errors_[static_cast<std::size_t>(first)], "in " + replica_name(first) + ": ");
  }
}

std::vector<Tensor> StrategyRuntime::exchange(int replica, std::int64_t sequence, Deposit deposit,
                                              const std::function<void()>& once) {
  const auto r = static_cast<std::size_t>(replica);
  std::unique_lock<std::mutex> lock(rendezvous_mutex_);
  Collective& c = collectives_[sequence];
  if (c.deposits.empty()) c.deposits.resize(devices_.size());
  c.deposits[r] = std::move(deposit);
  joined_[r] = sequence + 1;
  if (++c.arrived == num_replicas()) {
    try {
      reduce_collective(c, once);
    } catch (...) {
      c.error = std::current_exception();
    }
    c.done = true;
    rendezvous_cv_.notify_all();
  } else {
    // Released when done, or when a replica left its function without joining this collective.
    int gone = -1;
    rendezvous_cv_.wait(lock, [&] {
      if (c.done) return true;
      for (int p = 0; p < num_replicas(); ++p) {
        const auto i = static_cast<std::size_t>(p);
        if (finished_[i] && joined_[i] <= sequence) {
          gone = p;
          return true;
        }
      }
      return false;
    });
    if (!c.done) {
      throw ReleasedByPeer(fmt::format(
          "{} left its function without joining collective #{} (an all-reduce of "
          "apply_gradients, ReplicaContext::all_reduce or BatchNormalization) that this replica "
          "waited in (it raised an error, or the replicas joined different numbers of them)",
          replica_name(gone), sequence + 1));
    }
  }
  const std::exception_ptr error = c.error;
  std::vector<Tensor> result =
      error ? std::vector<Tensor>() : std::move(c.results[static_cast<std::size_t>(replica)]);
  if (++c.taken == num_replicas()) collectives_.erase(sequence);
  if (error) std::rethrow_exception(error);
  return result;
}

void StrategyRuntime::reduce_collective(Collective& c, const std::function<void()>& once) {
  const std::vector<std::string>& expected = c.deposits[0].signature;
  for (int p = 1; p < num_replicas(); ++p) {
    const std::vector<std::string>& got = c.deposits[static_cast<std::size_t>(p)].signature;
    if (got != expected) {
      throw InvalidArgumentError(fmt::format(
          "The replicas passed different gradients to apply_gradients: {} has {}, {} has {}",
          replica_name(0), joined_signature(expected), replica_name(p), joined_signature(got)));
    }
  }
  const std::size_t num_packs = c.deposits[0].packs.size();
  c.results.assign(devices_.size(), std::vector<Tensor>(num_packs));
  for (std::size_t k = 0; k < num_packs; ++k) {
    std::vector<Tensor> values;
    values.reserve(devices_.size());
    for (const Deposit& d : c.deposits) values.push_back(d.packs[k]);
    std::vector<Tensor> reduced = cross_device_ops_->all_reduce(ReduceOp::kSum, values, devices_);
    for (std::size_t r = 0; r < devices_.size(); ++r) c.results[r][k] = std::move(reduced[r]);
  }
  c.deposits.clear();
  once();
}

Variable StrategyRuntime::create_in_replicas(ReplicaThread& replica, const Tensor& initial_value,
                                             const VariableOptions& options,
                                             const VariableFactory& create) {
  const std::int64_t occurrence = replica.creations[options.name]++;
  std::unique_lock<std::mutex> lock(creations_mutex_);
  Creation& c = creations_[{options.name, occurrence}];  // std::map: the reference stays valid
  if (c.started) {
    creations_cv_.wait(lock, [&] { return c.done; });
    if (c.error) std::rethrow_exception(c.error);
    return c.result;
  }
  c.started = true;
  lock.unlock();
  Variable made;
  std::exception_ptr error;
  try {
    made = create(initial_value, options);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  c.result = made;
  c.error = error;
  c.done = true;
  creations_cv_.notify_all();
  if (error) std::rethrow_exception(error);
  return made;
}

std::vector<Tensor> all_reduce_gradients(ReplicaThread& replica, const std::vector<Tensor>& grads,
                                         const std::vector<std::string>& names,
                                         const std::function<void()>& once) {
  // One flat buffer per dtype, in the order each dtype first appears.
  std::vector<DType> pack_dtypes;
  std::vector<std::vector<std::size_t>> pack_members;
  StrategyRuntime::Deposit deposit;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    deposit.signature.push_back(
        fmt::format("'{}' {} {}", names[i], g.shape().to_tuple_string(), dtype_name(g.dtype())));
    auto it = std::find(pack_dtypes.begin(), pack_dtypes.end(), g.dtype());
    if (it == pack_dtypes.end()) {
      pack_dtypes.push_back(g.dtype());
      pack_members.emplace_back();
      it = pack_dtypes.end() - 1;
    }
    pack_members[static_cast<std::size_t>(it - pack_dtypes.begin())].push_back(i);
  }
  for (const auto& members : pack_members) {
    std::vector<Tensor> flat;
    flat.reserve(members.size());
    for (std::size_t i : members) flat.push_back(reshape(grads[i], {-1}));
    deposit.packs.push_back(flat.size() == 1 ? flat[0] : concat(flat, 0));
  }
  const std::int64_t sequence = replica.collectives++;
  const std::vector<Tensor> reduced =
      replica.runtime->exchange(replica.replica_id, sequence, std::move(deposit), once);
  std::vector<Tensor> out(grads.size());
  for (std::size_t k = 0; k < pack_members.size(); ++k) {
    const auto& members = pack_members[k];
    if (members.size() == 1) {
      out[members[0]] = reshape(reduced[k], grads[members[0]].shape().to_vector());
      continue;
    }
    std::vector<std::int64_t> sizes;
    for (std::size_t i : members) sizes.push_back(grads[i].shape().num_elements());
    const std::vector<Tensor> parts = split(reduced[k], sizes, 0);
    for (std::size_t j = 0; j < members.size(); ++j) {
      out[members[j]] = reshape(parts[j], grads[members[j]].shape().to_vector());
    }
  }
  return out;
}

}  // namespace eagle::distribute::detail
