// Chooses the device an op runs on (docs/guide.md, "How an op is placed", steps 1-4 and 6).
#pragma once

#include <vector>

#include "eagle/device_name.hpp"
#include "eagle/dtype.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::runtime {

struct PlacementRequest {
  opdefs::OpId op;
  DType dtype;             // the kernel-table key
  const DeviceName* spec;  // merged scope spec, nullptr for automatic placement
  bool soft;               // soft placement
  bool prefer_host;        // automatic placement picks the host CPU (constants)
};

// The decision itself, free of thread state so it can be tested on any device list.
// `devices` is in priority order. Throws InvalidArgumentError or NotFoundError.
Device& select_device(const PlacementRequest& request, const std::vector<Device*>& devices,
                      const KernelTable& kernels);

// select_device for the calling thread's scope and the process flags, through a thread-local
// cache keyed by (op, dtype, scope spec id, soft flag, device-set version).
Device& place(opdefs::OpId op, DType dtype, bool prefer_host = false);

}  // namespace eagle::runtime
