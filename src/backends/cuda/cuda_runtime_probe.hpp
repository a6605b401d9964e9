// What the CUDA runtime reports, without ever throwing: a machine without a driver or a GPU
// has zero CUDA devices and everything else keeps working.
#pragma once

namespace eagle::cuda {

// Devices visible through the CUDA runtime (after CUDA_VISIBLE_DEVICES); 0 on any error.
int visible_device_count() noexcept;

// Runs a one-block kernel on `device` that writes 0..n-1; true when the values come back.
// Used by the GPU smoke test to prove the toolchain, driver and device work end to end.
bool run_smoke_kernel(int device) noexcept;

}  // namespace eagle::cuda
