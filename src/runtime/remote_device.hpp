// A device of another task of the cluster this process joined (Note [Remote devices]).
#pragma once

#include <string>

#include "runtime/device.hpp"

namespace eagle {
class Tensor;
}

namespace eagle::runtime {

struct OpCall;

// Note [Remote devices]
// ~~~~~~~~~~~~~~~~~~~~~
// Another task's device is a Device of this process whose memory is that task's: allocate()
// returns a handle id in place of a pointer (never dereferenced; a Storage holds it as it holds a
// GPU pointer), deallocate() releases the task's tensor, copy_from_host / copy_to_host send and
// fetch values, so the copies the dispatcher and the tensor reads already make (Note [Mirrors],
// Tensor::copy_to_host) move tensors between tasks without knowing it. Strings travel as strings:
// the device remembers each handle's dtype and shape from allocate(). The dispatcher hands an op
// placed on a remote device to execute() instead of a kernel; its outputs are handles the client
// names before the call, with the shapes and dtypes the op's front-end inferred. The cluster room
// implements this interface (src/cluster/remote_task_device.cpp); the core only calls it.
class RemoteDevice : public Device {
 public:
  RemoteDevice(DeviceType type, int id, const DeviceName& name) : Device(type, id, name, true) {}

  // Runs the op on the device's task: `inputs` are on this device; each results[i] is set.
  virtual void execute(const OpCall& call, const Tensor* inputs, Tensor* results) = 0;

  bool host_accessible() const final { return false; }
};

}  // namespace eagle::runtime
