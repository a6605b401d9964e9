// MirroredStrategy: devices, TensorFlow's construction log, run, reduce and the batch split
// (docs/guide.md, "Distributed training: MirroredStrategy"; TensorFlow's mirrored_strategy.py and
// cross_device_ops.py).
#include "eagle/distribute/mirrored_strategy.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "distribute/collective_all_reduce.hpp"
#include "distribute/mirrored_variable.hpp"
#include "distribute/nccl_support.hpp"
#include "distribute/strategy_runtime.hpp"
#include "eagle/device_name.hpp"
#include "eagle/errors.hpp"
#include "eagle/format.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "runtime/log_sink.hpp"
#include "variables/variable_state.hpp"

namespace eagle::distribute {
namespace {

const char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string full_name(const DeviceName& name) {
  return DeviceName::local(*name.type, name.id.value_or(0)).to_string();
}

// device_util.resolve: a full local name. Remote jobs are TensorFlow's eager-mode error.
std::string resolve(const std::string& spec) {
  const DeviceName name = DeviceName::parse(spec);
  if ((name.job && *name.job != "localhost") || (name.replica && *name.replica != 0) ||
      (name.task && *name.task != 0)) {
    throw InvalidArgumentError(
        "In-graph multi-worker training with `MirroredStrategy` is not supported in eager mode.");
  }
  if (!name.type) {
    throw InvalidArgumentError(
        fmt::format("MirroredStrategy: the device '{}' names no device type", spec));
  }
  return full_name(name);
}

// Note [MirroredStrategy construction log]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// TensorFlow's select_cross_device_ops, in its order of checks, logs at most one WARNING, then
// MirroredStrategy logs `Using MirroredStrategy with devices (...)` at INFO (docs/guide.md,
// "Distributed training: MirroredStrategy"):
//   1. two requested replicas on one physical GPU (**eagle**: decided per requested replica, not
//      from the machine's logical and physical GPU counts, tensorflow#44797; a simulated GPU is a
//      physical GPU here): "NCCL is not supported when using virtual GPUs, fallingback to
//      reduction to one device" (TensorFlow's spelling);
//   2. TensorFlow's "not visible" warning cannot happen: an unknown device is an error here;
//   3. a requested device that is not a GPU: "There are non-GPU devices in
//      `tf.distribute.Strategy`, not using nccl allreduce.";
//   4. every replica on a CUDA GPU of its own, and NCCL loads (Note [NCCL on demand] in
//      src/backends/cuda/nccl_library.hpp): NcclAllReduce(num_packs=1), no warning (Note
//      [NcclAllReduce]);
//   5. otherwise (simulated GPUs, a build without CUDA, NCCL not installed): "Nccl kernel is not
//      found, not using nccl allreduce.", TensorFlow's line for a build without NCCL. NCCL is
//      probed here, so a missing one is found at construction, not at the first step (TensorFlow
//      finds it only there, tensorflow#33656).
// 1, 3 and 5 select ReductionToOneDevice. A cross_device_ops given by the caller skips the
// selection and its warning, as in TensorFlow; either way the op's prepare() then checks the
// devices (an NcclAllReduce on devices it cannot run on is an InvalidArgumentError here) before
// the INFO line. **eagle** does not print TensorFlow 2.5's false "Collective ops is not configured
// at program startup" line (tensorflow#49980).
std::shared_ptr<CrossDeviceOps> select_cross_device_ops(const std::vector<std::string>& devices) {
  // Logical GPU id -> index of its physical GPU: ids run over the visible physical GPUs in order,
  // each one's logical devices in configuration order (config.hpp).
  std::vector<int> physical_of_gpu;
  const auto visible = config::get_visible_devices("GPU");
  for (std::size_t p = 0; p < visible.size(); ++p) {
    const auto logical = config::get_logical_device_configuration(visible[p]);
    const std::size_t count = logical && !logical->empty() ? logical->size() : 1;
    physical_of_gpu.insert(physical_of_gpu.end(), count, static_cast<int>(p));
  }
  bool shared_gpu = false;
  bool non_gpu = false;
  std::map<int, int> replicas_on_physical;
  for (const std::string& d : devices) {
    const DeviceName name = DeviceName::parse(d);
    if (*name.type != "GPU") {
      non_gpu = true;
      continue;
    }
    const auto id = static_cast<std::size_t>(*name.id);
    if (id < physical_of_gpu.size() && ++replicas_on_physical[physical_of_gpu[id]] > 1) {
      shared_gpu = true;
    }
  }
  if (shared_gpu) {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      "NCCL is not supported when using virtual GPUs, fallingback to reduction to "
                      "one device");
  } else if (non_gpu) {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      "There are non-GPU devices in `tf.distribute.Strategy`, not using nccl "
                      "allreduce.");
  } else if (!detail::nccl_unusable_reason(devices)) {
    return std::make_shared<NcclAllReduce>();
  } else {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      "Nccl kernel is not found, not using nccl allreduce.");
  }
  return std::make_shared<ReductionToOneDevice>();
}

std::vector<std::string> names_of(const std::vector<config::LogicalDevice>& devices) {
  std::vector<std::string> out;
  out.reserve(devices.size());
  for (const auto& d : devices) out.push_back(d.name);
  return out;
}

std::vector<std::string> default_devices() {
  std::vector<config::LogicalDevice> gpus = config::list_logical_devices("GPU");
  if (!gpus.empty()) return names_of(gpus);
  return {"/device:CPU:0"};
}

// extended() of a MirroredStrategy: its variables are the ones it mirrors.
class MirroredExtended final : public StrategyExtended {
 public:
  explicit MirroredExtended(const MirroredStrategy& strategy) : StrategyExtended(strategy) {}
  bool variable_created_in_scope(const Variable& var) const override {
    if (!var.defined() || !var.is_mirrored()) return false;
    const auto& handle = eagle::detail::VariableAccess::handle(var);
    return handle->distributed->owner() == static_cast<const MirroredStrategy&>(strategy()).id();
  }
};

}  // namespace

MirroredStrategy::MirroredStrategy() { init(default_devices(), nullptr); }

MirroredStrategy::MirroredStrategy(const std::vector<std::string>& devices,
                                   std::shared_ptr<CrossDeviceOps> cross_device_ops) {
  init(devices, std::move(cross_device_ops));
}

MirroredStrategy::MirroredStrategy(const std::vector<std::string>& devices,
                                   std::shared_ptr<detail::WorkerGroup> workers) {
  init(devices.empty() ? default_devices() : devices, nullptr, std::move(workers));
}

MirroredStrategy::~MirroredStrategy() = default;

void MirroredStrategy::init(std::vector<std::string> devices,
                            std::shared_ptr<CrossDeviceOps> cross_device_ops,
                            std::shared_ptr<detail::WorkerGroup> workers) {
  if (devices.empty()) {
    throw InvalidArgumentError(
        "Got an empty `devices` list and unable to recognize any local devices.");
  }
  std::vector<std::string> resolved;
  resolved.reserve(devices.size());
  for (const std::string& d : devices) resolved.push_back(resolve(d));
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    if (std::find(resolved.begin(), resolved.begin() + static_cast<std::ptrdiff_t>(i),
                  resolved[i]) != resolved.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InvalidArgumentError(fmt::format("No duplicates allowed in `devices` argument: {}",
                                             eagle::detail::tuple_repr(resolved)));
    }
  }
  std::vector<std::string> known;
  for (const auto& d : config::list_logical_devices()) known.push_back(resolve(d.name));
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    if (std::find(known.begin(), known.end(), resolved[i]) == known.end()) {
      std::string listing;
      for (const std::string& k : known) listing += (listing.empty() ? "" : ", ") + k;
      throw InvalidArgumentError(fmt::format(
          "MirroredStrategy: the device '{}' ({}) does not exist in this process; its logical "
          "devices are {}",
          devices[i], resolved[i], listing));
    }
  }
  // Note [MultiWorkerMirroredStrategy over MPI]: the collectives span the workers.
  if (workers) cross_device_ops = std::make_shared<detail::CollectiveAllReduce>(workers);
  if (!cross_device_ops) cross_device_ops = select_cross_device_ops(resolved);
  cross_device_ops->prepare(resolved);
  runtime::emit_info(fmt::format(
      "Using MirroredStrategy with devices {}",
      eagle::detail::tuple_repr(detail::cluster_device_names(resolved, workers.get()))));
  set_extended(std::make_unique<MirroredExtended>(*this));
  runtime_ = std::make_unique<detail::StrategyRuntime>(
      *this, std::move(resolved), std::move(cross_device_ops), std::move(workers));
}

int MirroredStrategy::num_replicas_in_sync() const { return runtime_->num_replicas_in_sync(); }
detail::WorkerGroup* detail::worker_group_of(const MirroredStrategy& strategy) {
  return strategy.runtime_->workers();
}
const std::vector<std::string>& MirroredStrategy::devices() const { return runtime_->devices(); }
CrossDeviceOps& MirroredStrategy::cross_device_ops() const { return runtime_->cross_device_ops(); }
Tensor MirroredStrategy::gather(const PerReplica<Tensor>& value, int axis) const {
  detail::WorkerGroup* workers = runtime_->workers();
  if (workers == nullptr) return Strategy::gather(value, axis);
  if (value.size() != devices().size()) {
    throw InvalidArgumentError(fmt::format(
        "MirroredStrategy.gather: the value has {} per-replica components, the strategy {} "
        "replicas on this worker",
        value.size(), devices().size()));
  }
  // Every worker's replicas in global order (a collective), then the one concatenation.
  return Strategy::gather(
      PerReplica<Tensor>(detail::all_gather_across_workers(*workers, value.values())), axis);
}

Variable MirroredStrategy::create_variable(const NextVariableCreator& next,
                                           const Tensor& initial_value,
                                           const VariableOptions& options) const {
  return detail::create_mirrored_variable(*runtime_, next, initial_value, options);
}

void MirroredStrategy::run_replicas(const std::function<void(const ReplicaContext&)>& body) const {
  runtime_->run(body);
}

Tensor MirroredStrategy::reduce(ReduceOp op, const PerReplica<Tensor>& value,
                                std::optional<int> axis) const {
  if (value.size() != devices().size()) {
    throw InvalidArgumentError(fmt::format(
        "MirroredStrategy.reduce: the value has {} per-replica components, the strategy {} "
        "replicas",
        value.size(), devices().size()));
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].defined()) {
      throw InvalidArgumentError(
          fmt::format("MirroredStrategy.reduce: the value of replica {} is undefined", i));
    }
  }
  // distribute_lib's _reduce: device_util.current() or "/device:CPU:0".
  const std::string scope_spec = current_device_spec();
  const std::string destination = scope_spec.empty() ? std::string(kCpu0) : scope_spec;
  if (!axis) return runtime_->cross_device_ops().reduce(op, value.values(), destination);
  std::vector<Tensor> numerators;
  std::int64_t denominator = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Tensor& v = value[i];
    const int rank = v.shape().rank();
    if (*axis < -rank || *axis >= rank) {
      throw InvalidArgumentError(fmt::format(
          "MirroredStrategy.reduce: axis {} is out of range for the value of replica {}, of "
          "shape {}",
          *axis, i, v.shape().to_tuple_string()));
    }
    denominator += v.shape()[*axis < 0 ? *axis + rank : *axis];
    auto scope = device(v.device());
    numerators.push_back(reduce_sum(v, Axes(*axis)));
  }
  Tensor total = runtime_->cross_device_ops().reduce(ReduceOp::kSum, numerators, destination);
  if (op == ReduceOp::kSum) return total;
  if (detail::WorkerGroup* workers = runtime_->workers()) {
    denominator = detail::sum_over_workers(*workers, denominator);
  }
  auto scope = device(total.device());
  return total / scalar_like(total, static_cast<double>(denominator));
}

PerReplica<Tensor> MirroredStrategy::split_batch(const Tensor& global_batch) const {
  if (!global_batch.defined()) {
    throw InvalidArgumentError("MirroredStrategy.split_batch: the batch is undefined");
  }
  const Shape& shape = global_batch.shape();
  if (shape.rank() == 0) {
    throw InvalidArgumentError(
        "MirroredStrategy.split_batch: a batch needs a first (batch) dimension; got a scalar");
  }
  const std::int64_t batch = shape[0];
  const std::int64_t n = num_replicas_in_sync();
  const std::int64_t per_replica = (batch + n - 1) / n;
  const std::int64_t local = runtime_->num_replicas();
  std::vector<Tensor> parts;
  parts.reserve(static_cast<std::size_t>(local));
  for (std::int64_t r = 0; r < local; ++r) {
    const std::int64_t global = runtime_->first_replica() + r;  // its slice of the global batch
    const std::int64_t begin = std::min(global * per_replica, batch);
    const std::int64_t end = std::min(begin + per_replica, batch);
    std::vector<std::int64_t> starts(static_cast<std::size_t>(shape.rank()), 0);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(shape.rank()), -1);
    starts[0] = begin;
    sizes[0] = end - begin;
    Tensor part;
    {
      auto scope = device(global_batch.device());
      part = slice(global_batch, starts, sizes);
    }
    auto scope = device(devices()[static_cast<std::size_t>(r)]);
    parts.push_back(identity(part));
  }
  return PerReplica<Tensor>(std::move(parts));
}

}  // namespace eagle::distribute
