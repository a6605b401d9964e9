// NcclAllReduce (TensorFlow's cross_device_ops.NcclAllReduce): NCCL's all-reduce across distinct
// CUDA GPUs, NCCL loaded at run time (Note [NCCL on demand] in
// src/backends/cuda/nccl_library.hpp).
#include <utility>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "distribute/nccl_support.hpp"
#include "eagle/device_name.hpp"
#include "eagle/distribute/cross_device_ops.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"

#ifdef EAGLE_WITH_CUDA
#include <map>
#include <mutex>

#include "cuda_device.hpp"
#include "nccl_communicators.hpp"
#include "nccl_library.hpp"
#include "runtime/context.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"
#endif

namespace eagle::distribute {

// Note [NcclAllReduce]
// ~~~~~~~~~~~~~~~~~~~~
// One process drives every GPU of the strategy, so the communicators come from ncclCommInitAll
// (no ncclGetUniqueId exchange), rank i on replica i's GPU, made once per device set when the
// strategy is built (prepare) and kept by the NcclAllReduce until it dies.
//
// Who issues the NCCL calls: one thread, for every rank, inside one ncclGroupStart/End. eagle's
// replicas do run on their own threads, but the all-reduce rendezvous (Note [Mirrored variables
// and the all-reduce rendezvous]) already brings every replica's pack to one place, where the last
// replica to arrive checks that all replicas sent the same variables, shapes and dtypes before
// anything is launched. Reducing there, from that thread, keeps that check in front of NCCL: a
// replica that sent other gradients, or left its function, is an error naming it, never a GPU
// waiting forever in a collective its peers did not join (NCCL itself would hang there, with no
// error naming the replica). With several devices driven from one thread, NCCL requires the calls
// to be grouped, which also lets it launch every rank's kernel before any of them has to wait for
// its peers. Each rank's call is queued on its device's stream, after the kernels that produced
// the pack (Note [Stream ordering]), and the call returns once the work is queued; the replicas'
// unpacking and updates are queued behind it.
//
// The sum goes into a fresh buffer on each GPU, not into the pack itself: a pack of one gradient
// is a reshape that shares the gradient's bytes, which must stay what the replica computed. The
// strategy's packs are already one flat buffer per dtype (TensorFlow's num_packs=1); num_packs
// here splits each buffer into that many contiguous ncclAllReduce calls within the group.
namespace detail {

#ifdef EAGLE_WITH_CUDA
class NcclCommunicatorCache {
 public:
  cuda::NcclCommunicators& get(const cuda::NcclLibrary& nccl,
                               const std::vector<cuda::CudaDevice*>& devices) {
    std::vector<int> ordinals;
    for (const cuda::CudaDevice* d : devices) ordinals.push_back(d->ordinal());
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_ordinals_.find(ordinals);
    if (it == by_ordinals_.end()) {
      it = by_ordinals_.emplace(ordinals, std::make_unique<cuda::NcclCommunicators>(nccl, devices))
               .first;
    }
    return *it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<int>, std::unique_ptr<cuda::NcclCommunicators>> by_ordinals_;
};
#else
class NcclCommunicatorCache {};
#endif

namespace {

#ifdef EAGLE_WITH_CUDA
runtime::Device* find_device(const std::string& full_name) {
  for (runtime::Device* d : runtime::Context::get().devices()) {
    if (d->name() == full_name) return d;
  }
  return nullptr;
}

// The CUDA GPUs behind `devices` (full names); empty, with the reason in `why`, when NCCL cannot
// run on them.
std::vector<cuda::CudaDevice*> nccl_devices(const std::vector<std::string>& devices,
                                            std::string& why) {
  if (devices.empty()) {
    why = "there are no devices";
    return {};
  }
  std::vector<cuda::CudaDevice*> out;
  for (const std::string& name : devices) {
    runtime::Device* device = find_device(name);
    if (device == nullptr) {
      why = fmt::format("'{}' is not a device of this process", name);
      return {};
    }
    if (device->type() != runtime::DeviceType::kGPU) {
      why = fmt::format("'{}' is not a GPU", name);
      return {};
    }
    auto* gpu = dynamic_cast<cuda::CudaDevice*>(device);
    if (gpu == nullptr) {
      why = fmt::format("'{}' is a simulated GPU, not a CUDA GPU", name);
      return {};
    }
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (out[j]->ordinal() == gpu->ordinal()) {
        why = fmt::format(
            "'{}' and '{}' are logical GPUs of one physical GPU (CUDA device {}); NCCL needs a "
            "GPU of its own for each replica",
            devices[j], name, gpu->ordinal());
        return {};
      }
    }
    out.push_back(gpu);
  }
  const cuda::NcclLoad& load = cuda::nccl();
  if (!load.library) {
    why = fmt::format("NCCL could not be loaded ({})", load.error);
    return {};
  }
  return out;
}

cuda::NcclDataType nccl_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return cuda::kNcclFloat32;
    case DType::kFloat64:
      return cuda::kNcclFloat64;
    case DType::kFloat16:
      return cuda::kNcclFloat16;
    case DType::kBFloat16:
      return cuda::kNcclBfloat16;
    case DType::kInt32:
      return cuda::kNcclInt32;
    case DType::kInt64:
      return cuda::kNcclInt64;
    case DType::kBool:
    case DType::kString:
      break;
  }
  throw InvalidArgumentError(fmt::format(
      "NcclAllReduce: NCCL cannot sum {} values; it sums float32, float64, float16, bfloat16, "
      "int32 and int64",
      dtype_name(dtype)));
}
#else
// Without the CUDA backend every GPU is simulated, so the first device already rules NCCL out.
std::vector<int> nccl_devices(const std::vector<std::string>& devices, std::string& why) {
  if (devices.empty()) {
    why = "there are no devices";
    return {};
  }
  const std::string& name = devices.front();
  const DeviceName parsed = DeviceName::parse(name);
  why = parsed.type && *parsed.type == "GPU"
            ? fmt::format("'{}' is a simulated GPU, not a CUDA GPU", name)
            : fmt::format("'{}' is not a GPU", name);
  return {};
}
#endif

std::vector<std::string> full_names(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  out.reserve(specs.size());
  for (const std::string& spec : specs) {
    const DeviceName name = DeviceName::parse(spec);
    if (!name.type) {
      throw InvalidArgumentError(
          fmt::format("NcclAllReduce: the device '{}' names no device type", spec));
    }
    out.push_back(DeviceName::local(*name.type, name.id.value_or(0)).to_string());
  }
  return out;
}

// The devices' GPUs for NCCL, or InvalidArgumentError saying why NCCL cannot run on them.
auto nccl_devices_or_throw(const std::vector<std::string>& names) {
  std::string why;
  auto gpus = nccl_devices(names, why);
  if (gpus.empty()) {
    throw InvalidArgumentError(
        fmt::format("NcclAllReduce cannot run on {}: {}", eagle::detail::tuple_repr(names), why));
  }
  return gpus;
}

}  // namespace

std::optional<std::string> nccl_unusable_reason(const std::vector<std::string>& devices) {
  std::string why;
  if (!nccl_devices(devices, why).empty()) return std::nullopt;
  return why;
}

}  // namespace detail

NcclAllReduce::NcclAllReduce(int num_packs)
    : num_packs_(num_packs), communicators_(std::make_unique<detail::NcclCommunicatorCache>()) {
  if (num_packs < 0) {
    throw InvalidArgumentError(
        fmt::format("NCCL all-reduce requires num_packs >= 0, but {} is specified", num_packs));
  }
}

NcclAllReduce::~NcclAllReduce() = default;

void NcclAllReduce::prepare(const std::vector<std::string>& devices) {
  const std::vector<std::string> names = detail::full_names(devices);
  const auto gpus = detail::nccl_devices_or_throw(names);
#ifdef EAGLE_WITH_CUDA
  communicators_->get(*cuda::nccl().library, gpus);
#endif
}

Tensor NcclAllReduce::reduce(ReduceOp op, const std::vector<Tensor>& values,
                             const std::string& destination) {
  return to_one_device_.reduce(op, values, destination);
}

std::vector<Tensor> NcclAllReduce::all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                              const std::vector<std::string>& destinations) {
  if (values.empty()) throw InvalidArgumentError("NcclAllReduce: no values to reduce");
  if (values.size() != destinations.size()) {
    throw InvalidArgumentError(fmt::format(
        "NcclAllReduce: {} values for {} destinations; it reduces one value per destination GPU",
        values.size(), destinations.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i].defined()) {
      throw InvalidArgumentError(fmt::format("NcclAllReduce: value {} is undefined", i));
    }
    if (values[i].dtype() != values[0].dtype() || values[i].shape() != values[0].shape()) {
      throw InvalidArgumentError(fmt::format(
          "NcclAllReduce: every value needs one shape and dtype; value 0 is {} {}, value {} is "
          "{} {}",
          values[0].shape().to_tuple_string(), dtype_name(values[0].dtype()), i,
          values[i].shape().to_tuple_string(), dtype_name(values[i].dtype())));
    }
  }
  const std::vector<std::string> names = detail::full_names(destinations);
  const auto gpus = detail::nccl_devices_or_throw(names);
#ifdef EAGLE_WITH_CUDA
  const DType dtype = values[0].dtype();
  const Shape shape = values[0].shape();
  const cuda::NcclDataType datatype = detail::nccl_dtype(dtype);
  cuda::NcclCommunicators& comms = communicators_->get(*cuda::nccl().library, gpus);
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<const void*> send;
  std::vector<void*> receive;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Tensor input = values[i];
    if (&runtime::impl_of(input)->device() != gpus[i]) {
      auto scope = device(names[i]);
      input = identity(input);
    }
    auto output = runtime::allocate_tensor(*gpus[i], shape, dtype);
    send.push_back(runtime::impl_of(input)->data());
    receive.push_back(output->data());
    inputs.push_back(std::move(input));
    outputs.push_back(runtime::wrap(std::move(output)));
  }
  comms.all_reduce_sum(send, receive, static_cast<std::size_t>(shape.num_elements()),
                       dtype_size(dtype), datatype, num_packs_);
  if (op == ReduceOp::kMean) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto scope = device(names[i]);
      outputs[i] = outputs[i] / scalar_like(outputs[i], static_cast<double>(values.size()));
    }
  }
  return outputs;
#else
  (void)op;
  return {};  // unreachable: nccl_devices finds no CUDA GPU in a build without CUDA
#endif
}

}  // namespace eagle::distribute
