// Tile, Pad, PadV2, MirrorPad and ReverseV2, written once for every backend: each op is an index
// map (Note [Index maps]) that the backend's Runner executes with
// `Runner::template run<T>(ctx, map, fill)`: a loop over rows on the CPU, a gather kernel on CUDA.
#pragma once

#include "kernels/index_map.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/kernel_context.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::kernels {

template <class Runner>
struct IndexMapKernels {
  template <class T>
  struct Tile {
    static void run(runtime::KernelContext& ctx) {
      Runner::template run<T>(ctx, tile_map(ctx.input(0).shape(), ctx.output_shape()), T{});
    }
  };

  // Pad and PadV2. The fill is converted on the host with the CPU's rounding.
  template <class T>
  struct Pad {
    static void run(runtime::KernelContext& ctx) {
      const auto& attrs = ctx.attrs<opdefs::PadAttrs>();
      Runner::template run<T>(ctx, pad_map(ctx.input(0).shape(), ctx.output_shape(), attrs, false),
                              convert<T>(attrs.constant_value));
    }
  };

  template <class T>
  struct MirrorPad {
    static void run(runtime::KernelContext& ctx) {
      const auto& attrs = ctx.attrs<opdefs::PadAttrs>();
      Runner::template run<T>(ctx, pad_map(ctx.input(0).shape(), ctx.output_shape(), attrs, true),
                              T{});
    }
  };

  template <class T>
  struct Reverse {
    static void run(runtime::KernelContext& ctx) {
      Runner::template run<T>(
          ctx, reverse_map(ctx.input(0).shape(), ctx.attrs<opdefs::ReverseAttrs>().axes), T{});
    }
  };

  template <runtime::DeviceType kType>
  static void register_kernels(runtime::KernelTable& table) {
    register_op<opdefs::OpId::kTile, kType, Tile>(table);
    register_op<opdefs::OpId::kPad, kType, Pad>(table);
    register_op<opdefs::OpId::kPadV2, kType, Pad>(table);
    register_op<opdefs::OpId::kMirrorPad, kType, MirrorPad>(table);
    register_op<opdefs::OpId::kReverseV2, kType, Reverse>(table);
  }
};

}  // namespace eagle::kernels
