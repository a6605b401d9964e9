// The op table and the kernel contract (Note [Op table], Note [Kernel contract]): every backend's
// kernels against the table, typed attributes, several outputs, listeners, resource inputs,
// input forwarding, device scopes from a resolved device, tensor ids. Runs on two simulated GPUs.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/context.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/scope_stack.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::DType;
using eagle::Tensor;
using eagle::opdefs::OpId;
using eagle::runtime::Context;
using eagle::runtime::DeviceType;
namespace runtime = eagle::runtime;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

runtime::Device& device_named(const std::string& name) {
  for (runtime::Device* d : Context::get().devices()) {
    if (d->name() == name) return *d;
  }
  FAIL("no device " << name);
  throw;
}

// Records what the dispatcher reports.
struct Recorder : runtime::OpListener {
  struct Record {
    opdefs::OpId op;
    opdefs::OpAttrs attrs;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    std::string device;
  };
  std::vector<Record> records;
  void on_op(const runtime::ExecutedOp& e) override {
    records.push_back({e.op,
                       e.attrs,
                       {e.inputs, e.inputs + e.num_inputs},
                       {e.outputs, e.outputs + e.num_outputs},
                       e.device.name()});
  }
};

void never_called(runtime::KernelContext&) {}
void other_kernel(runtime::KernelContext&) {}

}  // namespace

TEST_CASE("every backend registers exactly what the op table declares") {
  REQUIRE(eagle::config::list_logical_devices("GPU").size() == 2);
  const auto& kernels = Context::get().kernels();
  CHECK(kernels.differences_from_op_table(DeviceType::kCPU) == "");
  CHECK(kernels.differences_from_op_table(DeviceType::kGPU) == "");
  // The comparison can fail: a table with one kernel too many and one missing.
  runtime::KernelTable table;
  table.add(opdefs::OpId::kAddV2, DeviceType::kCPU, DType::kBool, &never_called);
  const std::string diff = table.differences_from_op_table(DeviceType::kCPU);
  CHECK_THAT(diff, Catch::Contains(" AddV2/bool(registered, not declared)"));
  CHECK_THAT(diff, Catch::Contains(" AddV2/float32(declared, not registered)"));
}

TEST_CASE("the op table's rows are consistent") {
  std::set<std::string_view> names;
  for (int o = 0; o < opdefs::kNumOps; ++o) {
    const opdefs::OpDef& def = opdefs::kOpDefs[static_cast<std::size_t>(o)];
    INFO(def.name);
    CHECK(names.insert(def.name).second);
    // Only the updates of a variable produce nothing (TensorFlow's AssignVariableOp family).
    const bool updates_a_resource =
        def.name == "AssignVariableOp" || def.name == "AssignAddVariableOp" ||
        def.name == "AssignSubVariableOp" || def.name.substr(0, 13) == "ResourceApply" ||
        def.name.substr(0, 6) == "_Keras";
    CHECK((def.num_outputs >= 1 || def.num_outputs == opdefs::kVariadic ||
           (def.num_outputs == 0 && updates_a_resource)));
    CHECK(def.attrs_index < std::variant_size_v<opdefs::OpAttrs>);
    // A GPU kernel set is a subset of the CPU's: simulated GPUs run the CPU kernels.
    CHECK((def.gpu_dtypes & ~def.cpu_dtypes) == 0u);
  }
  CHECK(opdefs::op_name(opdefs::OpId::kTopKV2) == "TopKV2");
  CHECK(opdefs::op_def(opdefs::OpId::kTopKV2).num_outputs == 2);
  CHECK(opdefs::op_def(opdefs::OpId::kAddN).num_inputs == opdefs::kVariadic);
  CHECK(opdefs::op_def(opdefs::OpId::kSplit).num_outputs == opdefs::kVariadic);
  CHECK(opdefs::op_def(opdefs::OpId::kUnpack).num_outputs == opdefs::kVariadic);
  CHECK(opdefs::op_def(opdefs::OpId::kPack).num_inputs == opdefs::kVariadic);
  CHECK(opdefs::op_def(opdefs::OpId::kMatMul).attrs_index ==
        opdefs::attrs_index<opdefs::MatMulAttrs>());
  CHECK(opdefs::op_def(opdefs::OpId::kLess).gradient == opdefs::Gradient::kNoGradient);
  CHECK(opdefs::op_def(opdefs::OpId::kMul).gradient == opdefs::Gradient::kDifferentiable);
  CHECK(opdefs::gpu_implements(opdefs::OpId::kMatMul, DType::kFloat32));
  CHECK_FALSE(opdefs::gpu_implements(opdefs::OpId::kMatMul, DType::kInt32));
  CHECK(opdefs::cpu_implements(opdefs::OpId::kMatMul, DType::kInt32));
}

TEST_CASE("a second kernel for a slot is refused, replace is the explicit choice") {
  runtime::KernelTable table;
  table.add(opdefs::OpId::kRelu, DeviceType::kCPU, DType::kFloat32, &never_called);
  CHECK_THROWS_MATCHES(
      table.add(opdefs::OpId::kRelu, DeviceType::kCPU, DType::kFloat32, &other_kernel),
      eagle::InternalError,
      Catch::Message("A second Relu kernel for float32 on CPU was registered; "
                     "use KernelTable::replace to choose another provider"));
  CHECK(table.find(opdefs::OpId::kRelu, DeviceType::kCPU, DType::kFloat32) == &never_called);
  table.replace(opdefs::OpId::kRelu, DeviceType::kCPU, DType::kFloat32, &other_kernel);
  CHECK(table.find(opdefs::OpId::kRelu, DeviceType::kCPU, DType::kFloat32) == &other_kernel);
  CHECK_THROWS_MATCHES(
      table.replace(opdefs::OpId::kRelu, DeviceType::kGPU, DType::kFloat32, &never_called),
      eagle::InternalError, Catch::Message("No Relu kernel for float32 on GPU to replace"));
}

TEST_CASE("a call whose attributes or arity are not its op's row is an InternalError") {
  const Tensor x = eagle::constant({1.f, 2.f});
  const std::string message =
      "Relu was called with a signature its op table row does not have (inputs, outputs or "
      "attributes)";
  CHECK_THROWS_MATCHES(runtime::execute1(opdefs::OpId::kRelu, DType::kFloat32, &x, 1, x.shape(),
                                         DType::kFloat32, opdefs::OpAttrs{opdefs::AxisAttrs{0}}),
                       eagle::InternalError, Catch::Message(message));
  const Tensor two[2] = {x, x};
  CHECK_THROWS_MATCHES(
      runtime::execute1(opdefs::OpId::kRelu, DType::kFloat32, two, 2, x.shape(), DType::kFloat32),
      eagle::InternalError, Catch::Message(message));
  const auto& sum =
      Context::get().kernels().find(opdefs::OpId::kSum, DeviceType::kCPU, DType::kFloat32);
  REQUIRE(sum != nullptr);
}

TEST_CASE("top_k: two outputs from one op, TensorFlow's values, ties and NaN") {
  eagle_test::CapturedLog log;
  const Tensor x = eagle::constant({3.f, 1.f, 4.f, 1.f, 5.f, 9.f, 2.f, 6.f}, eagle::Shape{2, 4});
  const eagle::TopK top = eagle::top_k(x, 2);
  // A GPU kernel since TopKV2 has one: GPU:0 by default, as TensorFlow places it.
  CHECK(log.lines() == std::vector<std::string>{"Executing op TopKV2 in device " + kGpu0});
  CHECK(top.values.shape() == eagle::Shape{2, 2});
  CHECK(top.values.to_vector<float>() == std::vector<float>{4, 3, 9, 6});
  CHECK(top.indices.dtype() == DType::kInt32);
  CHECK(top.indices.to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 0, 1, 3});

  // Equal values keep their index order; NaN ranks above every number.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const eagle::TopK ties = eagle::top_k(eagle::constant({1.f, nan, 7.f, 7.f, nan}), 4);
  CHECK(ties.indices.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 4, 2, 3});
  // sorted=false: the same k entries, in index order.
  const eagle::TopK unsorted = eagle::top_k(eagle::constant({5, 1, 9, 7}), 2, false);
  CHECK(unsorted.values.to_vector<std::int32_t>() == std::vector<std::int32_t>{9, 7});
  CHECK(unsorted.indices.to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 3});
  CHECK(eagle::top_k(x, 0).values.shape() == eagle::Shape{2, 0});

  CHECK_THROWS_MATCHES(eagle::top_k(x, 5), eagle::InvalidArgumentError,
                       Catch::Message("input must have at least k columns. Had 4, needed 5 "
                                      "[Op:TopKV2]"));
  CHECK_THROWS_MATCHES(eagle::top_k(x, -1), eagle::InvalidArgumentError,
                       Catch::Message("Need k >= 0, got -1 [Op:TopKV2]"));
  CHECK_THROWS_MATCHES(eagle::top_k(eagle::constant(1.f), 1), eagle::InvalidArgumentError,
                       Catch::Message("input must be at least 1-dimensional, got shape [] "
                                      "[Op:TopKV2]"));
}

TEST_CASE("top_k runs on a GPU, hard placement included") {
  const Tensor x = eagle::constant({3.f, 1.f, 4.f});
  auto scope = eagle::device("/GPU:0");
  eagle::config::set_soft_device_placement(false);
  const eagle::TopK top = eagle::top_k(x, 2);
  eagle::config::set_soft_device_placement(true);
  CHECK(top.values.device() == kGpu0);
  CHECK(top.indices.device() == kGpu0);
  CHECK(top.values.to_vector<float>() == std::vector<float>{4.f, 3.f});
  CHECK(top.indices.to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 0});
}

TEST_CASE("a listener sees op, attributes, the caller's inputs, outputs and device") {
  Recorder recorder;
  const Tensor on_gpu1 = eagle::with_device("/GPU:1", [] { return eagle::constant({1.f, 2.f}); });
  Tensor sum, top_values;
  {
    runtime::ScopedOpListener listen(recorder);
    CHECK(runtime::this_thread_op_listener() == &recorder);
    auto scope = eagle::device("/GPU:0");
    const Tensor c = eagle::constant({3.f, 4.f});  // constants are not recorded
    sum = eagle::reduce_sum(on_gpu1 + c, 0);
    top_values = eagle::top_k(c, 1).values;
  }
  CHECK(runtime::this_thread_op_listener() == nullptr);
  REQUIRE(recorder.records.size() == 3);
  const auto& add = recorder.records[0];
  CHECK(add.op == opdefs::OpId::kAddV2);
  CHECK(add.device == kGpu0);
  // The caller's tensor on GPU:1, not the copy the dispatcher made on GPU:0.
  REQUIRE(add.inputs.size() == 2);
  CHECK(runtime::impl_of(add.inputs[0]) == runtime::impl_of(on_gpu1));
  const auto& reduce = recorder.records[1];
  CHECK(reduce.op == opdefs::OpId::kSum);
  CHECK(std::get<opdefs::ReduceAttrs>(reduce.attrs).axes == std::vector<int>{0});
  CHECK(runtime::impl_of(reduce.inputs[0]) == runtime::impl_of(add.outputs[0]));
  CHECK(runtime::impl_of(reduce.outputs[0]) == runtime::impl_of(sum));
  CHECK(sum.item<float>() == 10.f);
  const auto& top = recorder.records[2];
  CHECK(top.op == opdefs::OpId::kTopKV2);
  CHECK(top.device == kGpu0);
  REQUIRE(top.outputs.size() == 2);
  CHECK(runtime::impl_of(top.outputs[0]) == runtime::impl_of(top_values));
  CHECK(std::get<opdefs::TopKAttrs>(top.attrs).k == 1);
}

TEST_CASE("listeners nest and restore the one before") {
  Recorder outer, inner;
  const Tensor x = eagle::constant({1.f});
  {
    runtime::ScopedOpListener a(outer);
    (void)eagle::relu(x);
    {
      runtime::ScopedOpListener b(inner);
      CHECK(b.previous() == &outer);
      (void)eagle::exp(x);
    }
    (void)eagle::sqrt(x);
  }
  REQUIRE(outer.records.size() == 2);
  CHECK(outer.records[0].op == opdefs::OpId::kRelu);
  CHECK(outer.records[1].op == opdefs::OpId::kSqrt);
  REQUIRE(inner.records.size() == 1);
  CHECK(inner.records[0].op == opdefs::OpId::kExp);
}

TEST_CASE("ScopedDevice places ops on a resolved device, inside or outside other scopes") {
  eagle_test::CapturedLog log;
  const Tensor x = eagle::constant({1.f, -2.f});
  {
    auto outer = eagle::device("/CPU:0");
    runtime::ScopedDevice on_gpu1(device_named(kGpu1));
    CHECK(eagle::current_device_spec() == kGpu1);
    CHECK(eagle::relu(x).device() == kGpu1);
    {
      auto inner = eagle::device("/GPU:0");  // a user scope inside still wins
      CHECK(eagle::relu(x).device() == kGpu0);
    }
    CHECK(eagle::relu(x).device() == kGpu1);
  }
  CHECK(eagle::current_device_spec() == "");
  CHECK(eagle::relu(x).device() == kGpu0);  // automatic placement prefers GPU:0
  const auto lines = log.take();
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "Executing op Relu in device " + kGpu1);
  CHECK(lines[1] == "Executing op Relu in device " + kGpu0);
}

TEST_CASE("an op on a resource runs on the resource's device whatever the scope") {
  const Tensor resource = eagle::with_device("/GPU:1", [] {
    return eagle::constant({1.f, 2.f, 3.f});
  });
  const Tensor host = eagle::constant({1.f, 1.f, 1.f});
  auto scope = eagle::device("/CPU:0");
  const Tensor inputs[2] = {resource, host};
  const runtime::TensorSpec out{resource.shape(), DType::kFloat32};
  const Tensor y = runtime::execute1({opdefs::OpId::kAddV2, DType::kFloat32, inputs, 2, &out, 1,
                                      runtime::no_attrs(), false, 0b01u});
  CHECK(y.device() == kGpu1);
  CHECK(y.to_vector<float>() == std::vector<float>{2, 3, 4});
  // Without the resource bit the scope decides.
  CHECK(runtime::execute1({opdefs::OpId::kAddV2, DType::kFloat32, inputs, 2, &out, 1}).device() ==
        kCpu0);

  // Two resources on two devices cannot be colocated.
  const Tensor other = eagle::with_device("/GPU:0", [] {
    return eagle::constant({0.f, 0.f, 0.f});
  });
  const Tensor both[2] = {resource, other};
  CHECK_THROWS_MATCHES(
      runtime::execute1({opdefs::OpId::kAddV2, DType::kFloat32, both, 2, &out, 1,
                         runtime::no_attrs(), false, 0b11u}),
      eagle::InvalidArgumentError,
      Catch::Message("Cannot colocate the resources of AddV2: input #1 is on " + kGpu0 +
                     " but an earlier resource input is on " + kGpu1 + " [Op:AddV2]"));
  // A resource on a device without a kernel for the op: integer MatMul has no GPU kernel.
  const Tensor int_resource = eagle::with_device("/GPU:1", [] {
    return eagle::constant({1, 2, 3, 4}, eagle::Shape{2, 2});
  });
  const Tensor operands[2] = {int_resource, int_resource};
  const runtime::TensorSpec product{eagle::Shape{2, 2}, DType::kInt32};
  const opdefs::OpAttrs no_transposes{opdefs::MatMulAttrs{false, false}};
  CHECK_THROWS_AS(runtime::execute1({opdefs::OpId::kMatMul, DType::kInt32, operands, 2, &product, 1,
                                     no_transposes, false, 0b1u}),
                  eagle::NotFoundError);
}

TEST_CASE("mutable_input is for resource inputs and drops the stale copies on other devices") {
  const Tensor value = eagle::constant({1.f, 2.f});
  runtime::Device& gpu0 = device_named(kGpu0);
  // Reading it on GPU:0 leaves a mirror on the CPU tensor.
  (void)eagle::with_device("/GPU:0", [&] { return eagle::relu(value); });
  REQUIRE(runtime::impl_of(value)->find_mirror(gpu0) != nullptr);

  const runtime::TensorSpec spec{value.shape(), DType::kFloat32};
  Tensor result;
  runtime::KernelContext plain(opdefs::OpId::kIdentity, device_named(kCpu0), &value, 1, &spec, 1,
                               runtime::no_attrs(), &result, 0u, 0u);
  CHECK_THROWS_MATCHES(plain.mutable_input(0), eagle::InternalError,
                       Catch::Message("A kernel asked to write input #0, which is not a resource"));
  runtime::KernelContext resource(opdefs::OpId::kIdentity, device_named(kCpu0), &value, 1, &spec, 1,
                                  runtime::no_attrs(), &result, 0u, 1u);
  resource.mutable_input(0).data<float>()[0] = 5.f;
  CHECK(runtime::impl_of(value)->find_mirror(gpu0) == nullptr);
  CHECK(value.to_vector<float>() == std::vector<float>{5, 2});
}

TEST_CASE("a donated input's bytes become the output, only when nothing else holds them") {
  const runtime::TensorSpec spec{eagle::Shape{3}, DType::kFloat32};
  const auto negate = [&](Tensor x, bool donate) {
    const Tensor inputs[1] = {std::move(x)};
    auto on_cpu = eagle::device("/CPU:0");
    return runtime::execute1({opdefs::OpId::kNeg, DType::kFloat32, inputs, 1, &spec, 1,
                              runtime::no_attrs(), false, 0u, donate ? 1u : 0u});
  };
  Tensor x = eagle::with_device("/CPU:0", [] { return eagle::constant({1.f, -2.f, 3.f}); });
  const void* bytes = runtime::impl_of(x)->data();
  Tensor y = negate(std::move(x), true);
  CHECK(runtime::impl_of(y)->data() == bytes);  // forwarded
  CHECK(y.to_vector<float>() == std::vector<float>{-1, 2, -3});
  CHECK(y.device() == kCpu0);

  // The caller still holds y: no forwarding, y keeps its values.
  const Tensor z = negate(y, true);
  CHECK(runtime::impl_of(z)->data() != runtime::impl_of(y)->data());
  CHECK(y.to_vector<float>() == std::vector<float>{-1, 2, -3});
  // Not donated: fresh bytes.
  const void* y_bytes = runtime::impl_of(y)->data();
  CHECK(runtime::impl_of(negate(std::move(y), false))->data() != y_bytes);

  // A listener is recording: the input must survive the kernel.
  Recorder recorder;
  runtime::ScopedOpListener listen(recorder);
  Tensor w = eagle::with_device("/CPU:0", [] { return eagle::constant({4.f, 5.f, 6.f}); });
  const void* w_bytes = runtime::impl_of(w)->data();
  const Tensor v = negate(std::move(w), true);
  CHECK(runtime::impl_of(v)->data() != w_bytes);
  REQUIRE(recorder.records.size() == 1);
  CHECK(recorder.records[0].inputs[0].to_vector<float>() == std::vector<float>{4, 5, 6});
}

TEST_CASE("tensor ids are unique across threads and stable for a tensor's life") {
  const Tensor x = eagle::constant({1.f});
  const std::uint64_t id = runtime::impl_of(x)->id();
  CHECK(id != 0);
  const Tensor copy = x;  // a handle copy is the same tensor
  CHECK(runtime::impl_of(copy)->id() == id);
  std::vector<std::vector<std::uint64_t>> ids(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ids, t] {
      const Tensor one = eagle::constant({1.f});
      for (int i = 0; i < 5000; ++i) ids[t].push_back((one + one).id());
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::uint64_t> all{id};
  for (const auto& v : ids) all.insert(v.begin(), v.end());
  CHECK(all.size() == 1 + 4 * 5000);
}
