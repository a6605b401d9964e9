// Direct float32 convolutions for inputs of few channels (Note [Narrow convolutions] in
// conv_narrow.cpp): a network's first layer, where oneDNN 2.6's kernels are slowest.
#pragma once

#include <cstdint>

#include "cpu/conv_epilogue.hpp"
#include "cpu/isa.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::cpu {

// Input depths up to this take the narrow kernels.
inline constexpr std::int64_t kNarrowConvMaxInChannels = 4;

// Whether the narrow kernels compute this convolution (ungrouped, 1 to 4 input channels).
inline bool is_narrow_conv(const opdefs::Conv2DAttrs& a) {
  return a.groups == 1 && a.in_channels >= 1 && a.in_channels <= kNarrowConvMaxInChannels;
}

// Conv2D and its two backprops on NHWC data and an HWIO filter, with the geometry's padding
// filled in (as the kernels receive it), for any stride and dilation.
struct NarrowConvKernels {
  // Applies the epilogue (none by default) to each output row as it is finished.
  void (*conv2d)(const opdefs::Conv2DAttrs& a, const float* input, const float* filter,
                 const ConvEpilogue& epilogue, float* output);
  void (*backprop_input)(const opdefs::Conv2DAttrs& a, const float* filter,
                         const float* out_backprop, float* input_backprop);
  void (*backprop_filter)(const opdefs::Conv2DAttrs& a, const float* input,
                          const float* out_backprop, float* filter_backprop);
};

// The kernels of the CPU variant whose kernels the table holds (Note [CPU kernel variants]); the
// library compile's until the kernel table is filled.
const NarrowConvKernels& narrow_conv_kernels();

namespace detail {
void set_narrow_conv_kernels(const NarrowConvKernels* kernels);
}  // namespace detail

EAGLE_CPU_ISA_BEGIN
// Makes this variant's kernels the ones narrow_conv_kernels() returns (called by the variant's
// register_variant_kernels).
void use_narrow_conv_kernels();
EAGLE_CPU_ISA_END

}  // namespace eagle::cpu
