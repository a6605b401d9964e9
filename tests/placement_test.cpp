// The placement decision (docs/guide.md, "How an op is placed") on device lists the CPU-only
// runtime cannot have: fake GPUs, a kernel table with GPU and CPU kernels.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <vector>

#include "eagle/errors.hpp"
#include "runtime/placer.hpp"

namespace opdefs = eagle::opdefs;

using eagle::DeviceName;
using eagle::DType;
using eagle::opdefs::OpId;
using eagle::runtime::Device;
using eagle::runtime::DeviceType;
using eagle::runtime::KernelTable;
using eagle::runtime::PlacementRequest;
using eagle::runtime::select_device;

namespace {

class FakeDevice final : public Device {
 public:
  FakeDevice(DeviceType type, int id) : Device(type, id) {}
  void* allocate(std::size_t bytes, const eagle::Shape&, DType) override {
    return std::malloc(bytes);
  }
  void deallocate(void* p, std::size_t) noexcept override { std::free(p); }
  bool host_accessible() const override { return true; }
  void copy_to_host(void*, const void*, std::size_t) override {}
  void copy_from_host(void*, const void*, std::size_t) override {}
};

void never_called(eagle::runtime::KernelContext&) {}

// GPU:0, GPU:1 (if gpus == 2), CPU:0 in priority order.
struct Machine {
  std::vector<std::unique_ptr<FakeDevice>> owned;
  std::vector<Device*> devices;
  KernelTable kernels;

  explicit Machine(int gpus) {
    for (int i = 0; i < gpus; ++i)
      owned.push_back(std::make_unique<FakeDevice>(DeviceType::kGPU, i));
    owned.push_back(std::make_unique<FakeDevice>(DeviceType::kCPU, 0));
    for (auto& d : owned) devices.push_back(d.get());
    // MatMul: GPU and CPU for float32; CPU only for int32 (as TensorFlow registers it).
    kernels.add(opdefs::OpId::kMatMul, DeviceType::kGPU, DType::kFloat32, never_called);
    kernels.add(opdefs::OpId::kMatMul, DeviceType::kCPU, DType::kFloat32, never_called);
    kernels.add(opdefs::OpId::kMatMul, DeviceType::kCPU, DType::kInt32, never_called);
    // Const exists everywhere.
    kernels.add(opdefs::OpId::kConst, DeviceType::kGPU, DType::kFloat32, never_called);
    kernels.add(opdefs::OpId::kConst, DeviceType::kCPU, DType::kFloat32, never_called);
  }

  std::string place(const char* spec, bool soft, DType dtype = DType::kFloat32,
                    opdefs::OpId op = opdefs::OpId::kMatMul, bool prefer_host = false) {
    std::optional<DeviceName> parsed;
    if (spec) parsed = DeviceName::parse(spec);
    const PlacementRequest request{op, dtype, parsed ? &*parsed : nullptr, soft, prefer_host};
    return select_device(request, devices, kernels).name();
  }
};

const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

}  // namespace

TEST_CASE("automatic placement prefers a GPU that has a kernel for the dtype") {
  Machine m(2);
  CHECK(m.place(nullptr, true) == kGpu0);
  CHECK(m.place(nullptr, false) == kGpu0);
  CHECK(m.place(nullptr, true, DType::kInt32) == kCpu0);  // no GPU kernel for int32
}

TEST_CASE("constants default to the host even when a GPU exists") {
  Machine m(1);
  CHECK(m.place(nullptr, true, DType::kFloat32, opdefs::OpId::kConst, true) == kCpu0);
  CHECK(m.place(kGpu0.c_str(), true, DType::kFloat32, opdefs::OpId::kConst, true) == kGpu0);
}

TEST_CASE("a requested device is used when it exists and has the kernel") {
  Machine m(2);
  CHECK(m.place(kGpu1.c_str(), false) == kGpu1);
  CHECK(m.place("/job:localhost/replica:0/task:0/device:CPU:0", false) == kCpu0);
  CHECK(m.place("/device:GPU:*", false) == kGpu0);  // type only: the first GPU
  CHECK(m.place("/job:localhost", false) == kGpu0);
}

TEST_CASE("soft placement clears type and id when nothing matches") {
  Machine m(1);
  CHECK(m.place("/job:localhost/replica:0/task:0/device:GPU:7", true) == kGpu0);
  // An op without a GPU kernel for the dtype falls back to the CPU.
  CHECK(m.place(kGpu0.c_str(), true, DType::kInt32) == kCpu0);
  // Unknown device types match nothing; soft placement rescues them too.
  CHECK(m.place("/job:localhost/replica:0/task:0/device:TPU:0", true) == kGpu0);
}

TEST_CASE("hard placement failure reproduces the seed's error text exactly") {
  Machine m(1);
  // Seed 003 (samples/soft_placement.cpp): tf.device('/GPU:1') on a machine with one GPU and
  // soft placement off.
  CHECK_THROWS_MATCHES(
      m.place(kGpu1.c_str(), false), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:1'. enable_soft_placement=0. "
                     "Supported device types [GPU, CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:GPU:0, "
                     "/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
}

TEST_CASE("supported device types list only the types with a kernel for the dtype") {
  Machine m(2);
  CHECK_THROWS_MATCHES(
      m.place(kGpu0.c_str(), false, DType::kInt32), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. "
                     "Supported device types [CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:GPU:0, "
                     "/job:localhost/replica:0/task:0/device:GPU:1, "
                     "/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
}

TEST_CASE("soft placement cannot invent a job that does not exist") {
  Machine m(1);
  CHECK_THROWS_MATCHES(
      m.place("/job:worker/replica:0/task:1/device:CPU:0", true), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:worker/replica:0/task:1/device:CPU:0'. enable_soft_placement=1. "
                     "Supported device types [GPU, CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:GPU:0, "
                     "/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
}

TEST_CASE("no kernel for the dtype anywhere is NotFoundError listing the registered kernels") {
  Machine m(1);
  CHECK_THROWS_MATCHES(m.place(nullptr, true, DType::kBool), eagle::NotFoundError,
                       Catch::Message("Could not find device for node: MatMul with dtype bool. "
                                      "All kernels registered for op MatMul: device='GPU'; T in "
                                      "[float32] | device='CPU'; T in [float32, int32]"));
  CHECK_THROWS_AS(m.place(kGpu0.c_str(), false, DType::kBool), eagle::NotFoundError);
}

TEST_CASE("a CPU-only machine places everything on CPU:0 and lists only it") {
  Machine m(0);
  CHECK(m.place(nullptr, true) == kCpu0);
  CHECK(m.place(kGpu0.c_str(), true) == kCpu0);
  CHECK_THROWS_MATCHES(
      m.place(kGpu0.c_str(), false), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. "
                     "Supported device types [GPU, CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:CPU:0]. [Op:MatMul]"));
}
