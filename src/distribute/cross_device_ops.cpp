// ReductionToOneDevice (TensorFlow's cross_device_ops.py): AddN on one device, copies back.
#include "eagle/distribute/cross_device_ops.hpp"

#include <atomic>
#include <utility>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::distribute {
namespace {

// TensorFlow's logging.log_first_n(INFO, ..., 10).
std::atomic<int> g_reduce_lines_logged{0};

}  // namespace

ReductionToOneDevice::ReductionToOneDevice(std::optional<std::string> reduce_to_device)
    : reduce_to_device_(std::move(reduce_to_device)) {}

Tensor ReductionToOneDevice::sum_on(const std::string& device_name, ReduceOp op,
                                    const std::vector<Tensor>& values,
                                    const std::vector<std::string>& destinations) {
  if (values.empty()) throw InvalidArgumentError("ReductionToOneDevice: no values to reduce");
  if (debugging::get_log_level() == debugging::LogLevel::kInfo &&
      g_reduce_lines_logged.fetch_add(1) < 10) {
    runtime::emit_info(fmt::format("Reduce to {} then broadcast to {}.", device_name,
                                   eagle::detail::tuple_repr(destinations)));
  }
  auto scope = device(device_name);
  // Copies first (Identity moves values under every device policy), then one AddN there.
  std::vector<Tensor> local;
  local.reserve(values.size());
  for (const Tensor& v : values) local.push_back(identity(v));
  Tensor sum = local.size() == 1 ? local[0] : add_n(local);
  if (op == ReduceOp::kMean) sum = sum / scalar_like(sum, static_cast<double>(values.size()));
  return sum;
}

Tensor ReductionToOneDevice::reduce(ReduceOp op, const std::vector<Tensor>& values,
                                    const std::string& destination) {
  const Tensor sum = sum_on(reduce_to_device_.value_or(destination), op, values, {destination});
  auto scope = device(destination);
  return identity(sum);
}

std::vector<Tensor> ReductionToOneDevice::all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                                     const std::vector<std::string>& destinations) {
  if (destinations.empty()) {
    throw InvalidArgumentError("ReductionToOneDevice: no destinations to broadcast to");
  }
  const Tensor sum = sum_on(reduce_to_device_.value_or(destinations[0]), op, values, destinations);
  std::vector<Tensor> out;
  out.reserve(destinations.size());
  for (const std::string& d : destinations) {
    auto scope = device(d);
    out.push_back(identity(sum));
  }
  return out;
}

}  // namespace eagle::distribute
