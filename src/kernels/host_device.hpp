// EAGLE_HOST_DEVICE marks code compiled for the host and, under nvcc, for the device too: the
// scalar math and the functors shared by the CPU and CUDA kernels.
#pragma once

#if defined(__CUDACC__)
#define EAGLE_HOST_DEVICE __host__ __device__
#else
#define EAGLE_HOST_DEVICE
#endif
