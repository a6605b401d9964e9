// CollectiveAllReduce and the tensor collectives of MultiWorkerMirroredStrategy (Note
// [MultiWorkerMirroredStrategy over MPI] in src/distribute/multi_worker_mirrored_strategy.cpp).
#include "distribute/collective_all_reduce.hpp"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "data/host_tensor.hpp"
#include "eagle/device_name.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"

namespace eagle::distribute::detail {
namespace {

const char kHost[] = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string describe(const Tensor& t) {
  return fmt::format("{} {}", dtype_name(t.dtype()), t.shape().to_tuple_string());
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

// A fresh host tensor holding `t`'s bytes: the collectives write into it before anyone sees it.
Tensor host_copy(const Tensor& t) {
  std::vector<unsigned char> staging;
  const unsigned char* bytes = data::host_bytes(t, staging);
  const std::size_t size =
      static_cast<std::size_t>(t.shape().num_elements()) * dtype_size(t.dtype());
  return data::make_host_tensor(t.shape(), t.dtype(), [&](unsigned char* out) {
    if (size != 0) std::memcpy(out, bytes, size);
  });
}

void append(std::string& out, const void* data, std::size_t bytes) {
  out.append(static_cast<const char*>(data), bytes);
}

template <class T>
T read(const std::string& in, std::size_t& at) {
  if (at + sizeof(T) > in.size()) {
    throw InternalError("MultiWorkerMirroredStrategy: a gathered tensor list is truncated");
  }
  T value;
  std::memcpy(&value, in.data() + at, sizeof(T));
  at += sizeof(T);
  return value;
}

}  // namespace

CollectiveAllReduce::CollectiveAllReduce(std::shared_ptr<WorkerGroup> workers)
    : workers_(std::move(workers)) {}

Tensor CollectiveAllReduce::reduce_to_host(ReduceOp op, const std::vector<Tensor>& values,
                                           const std::string& local_device) {
  if (values.empty()) throw InvalidArgumentError("CollectiveAllReduce: no values to reduce");
  Tensor local;
  {
    auto scope = device(local_device);
    std::vector<Tensor> copies;
    copies.reserve(values.size());
    for (const Tensor& v : values) copies.push_back(identity(v));
    local = copies.size() == 1 ? copies[0] : add_n(copies);
  }
  Tensor total = sum_across_workers(*workers_, local, "a sum");
  if (op == ReduceOp::kMean) {
    auto scope = device(kHost);
    total = total / scalar_like(total, static_cast<double>(values.size()) *
                                           static_cast<double>(workers_->num_workers()));
  }
  return total;
}

Tensor CollectiveAllReduce::reduce(ReduceOp op, const std::vector<Tensor>& values,
                                   const std::string& destination) {
  const Tensor total = reduce_to_host(op, values, destination);
  auto scope = device(destination);
  return identity(total);
}

std::vector<Tensor> CollectiveAllReduce::all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                                    const std::vector<std::string>& destinations) {
  if (destinations.empty()) {
    throw InvalidArgumentError("CollectiveAllReduce: no destinations to broadcast to");
  }
  const Tensor total = reduce_to_host(op, values, destinations[0]);
  std::vector<Tensor> out;
  out.reserve(destinations.size());
  for (const std::string& d : destinations) {
    auto scope = device(d);
    out.push_back(identity(total));
  }
  return out;
}

std::vector<std::string> cluster_device_names(const std::vector<std::string>& devices,
                                              const WorkerGroup* workers) {
  if (workers == nullptr || workers->num_workers() == 1) return devices;
  std::vector<std::string> out;
  out.reserve(devices.size());
  for (const std::string& d : devices) {
    DeviceName name = DeviceName::parse(d);
    name.job = "worker";
    name.replica = 0;
    name.task = workers->task_id();
    out.push_back(name.to_string());
  }
  return out;
}

void check_same_on_workers(WorkerGroup& workers, const std::string& what,
                           const std::string& description) {
  const std::uint64_t mine = fnv1a(description);
  std::string sent;
  append(sent, &mine, sizeof(mine));
  bool same = true;
  for (const std::string& hash : workers.all_gather(sent)) same = same && hash == sent;
  if (same) return;
  // Every worker saw the difference: all of them gather the texts and raise the same error.
  const std::vector<std::string> descriptions = workers.all_gather(description);
  std::string listing;
  for (std::size_t w = 0; w < descriptions.size(); ++w) {
    listing += fmt::format("{}worker {} has {}", w ? ", " : "", w, descriptions[w]);
  }
  throw InvalidArgumentError(
      fmt::format("MultiWorkerMirroredStrategy: the workers differ in {}: {}", what, listing));
}

Tensor sum_across_workers(WorkerGroup& workers, const Tensor& value, const std::string& what) {
  const DType dtype = value.dtype();
  if (dtype == DType::kBool) {
    throw InvalidArgumentError(fmt::format(
        "MultiWorkerMirroredStrategy: cannot sum a bool tensor across workers ({})", what));
  }
  check_same_on_workers(workers, "the values they all-reduce",
                        fmt::format("{} of {}", what, describe(value)));
  const bool widen = dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  Tensor sent;
  {
    auto scope = device(kHost);
    sent = host_copy(widen ? cast(value, DType::kFloat32) : value);
  }
  workers.sum(runtime::impl_of(sent)->data(), sent.shape().num_elements(), sent.dtype());
  if (!widen) return sent;
  auto scope = device(kHost);
  return cast(sent, dtype);
}

std::int64_t sum_over_workers(WorkerGroup& workers, std::int64_t value) {
  workers.sum(&value, 1, DType::kInt64);
  return value;
}

Tensor broadcast_from_chief(WorkerGroup& workers, const Tensor& value, const std::string& what) {
  check_same_on_workers(workers, "the variables they create in the strategy's scope",
                        fmt::format("{} {}", what, describe(value)));
  Tensor out = host_copy(value);
  workers.broadcast(runtime::impl_of(out)->data(), runtime::impl_of(out)->bytes());
  return out;
}

std::vector<Tensor> all_gather_across_workers(WorkerGroup& workers,
                                              const std::vector<Tensor>& values) {
  // Each tensor as: dtype (1 byte), rank (4), dims (8 each), its bytes.
  std::string sent;
  const auto count = static_cast<std::uint32_t>(values.size());
  append(sent, &count, sizeof(count));
  for (const Tensor& v : values) {
    const auto dtype = static_cast<std::uint8_t>(v.dtype());
    const auto rank = static_cast<std::uint32_t>(v.shape().rank());
    append(sent, &dtype, sizeof(dtype));
    append(sent, &rank, sizeof(rank));
    for (std::int64_t d : v.shape()) append(sent, &d, sizeof(d));
    std::vector<unsigned char> staging;
    append(sent, data::host_bytes(v, staging),
           static_cast<std::size_t>(v.shape().num_elements()) * dtype_size(v.dtype()));
  }
  const std::vector<std::string> gathered = workers.all_gather(sent);
  std::vector<Tensor> out;
  for (std::size_t w = 0; w < gathered.size(); ++w) {
    if (static_cast<int>(w) == workers.task_id()) {
      out.insert(out.end(), values.begin(), values.end());
      continue;
    }
    const std::string& in = gathered[w];
    std::size_t at = 0;
    const auto n = read<std::uint32_t>(in, at);
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto dtype = static_cast<DType>(read<std::uint8_t>(in, at));
      const auto rank = read<std::uint32_t>(in, at);
      std::vector<std::int64_t> dims(rank);
      for (auto& d : dims) d = read<std::int64_t>(in, at);
      const Shape shape(dims);
      const std::size_t bytes = static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype);
      if (at + bytes > in.size()) {
        throw InternalError("MultiWorkerMirroredStrategy: a gathered tensor list is truncated");
      }
      out.push_back(data::make_host_tensor(shape, dtype, [&](unsigned char* dst) {
        if (bytes != 0) std::memcpy(dst, in.data() + at, bytes);
      }));
      at += bytes;
    }
  }
  return out;
}

}  // namespace eagle::distribute::detail
