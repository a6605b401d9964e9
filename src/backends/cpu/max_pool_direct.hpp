// Direct float32 MaxPool and MaxPoolGrad on NHWC data (Note [Direct max pooling] in
// max_pool_direct.cpp): what the oneDNN provider runs for them.
#pragma once

#include "cpu/isa.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::cpu {

// Any window, stride and padding, with the geometry's padding filled in (as the kernels receive
// it). The results are bit-identical to reference::max_pool and reference::max_pool_grad.
struct MaxPoolKernels {
  void (*max_pool)(const opdefs::Pool2DAttrs& a, const float* input, float* output);
  void (*max_pool_grad)(const opdefs::Pool2DAttrs& a, const float* input, const float* grad,
                        float* input_grad);
};

// The kernels of the CPU variant whose kernels the table holds (Note [CPU kernel variants]); the
// library compile's until the kernel table is filled.
const MaxPoolKernels& direct_max_pool_kernels();

namespace detail {
void set_direct_max_pool_kernels(const MaxPoolKernels* kernels);
}  // namespace detail

EAGLE_CPU_ISA_BEGIN
// Makes this variant's kernels the ones direct_max_pool_kernels() returns (called by the
// variant's register_variant_kernels).
void use_direct_max_pool_kernels();
EAGLE_CPU_ISA_END

}  // namespace eagle::cpu
