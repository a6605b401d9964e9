// Kernel-table entries for the shape ops that move data: Transpose, ConcatV2, Slice, Split,
// SplitV, Pack and Unpack. Reshape, ExpandDims and Squeeze only relabel the bytes
// (portable/portable_kernels.cpp).
#include "cpu/layout.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
struct TransposeKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    transpose(x.data(), x.shape(), ctx.attrs<opdefs::TransposeAttrs>().perm, sizeof(T),
              out->data());
  }
};

template <class T>
struct ConcatKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      data.push_back(ctx.input(i).data());
      shapes.push_back(ctx.input(i).shape());
    }
    concat(data, shapes, ctx.attrs<opdefs::AxisAttrs>().axis, sizeof(T), out->data());
  }
};

template <class T>
struct SliceKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    slice(x.data(), x.shape(), ctx.attrs<opdefs::SliceAttrs>().begin, ctx.output_shape(), sizeof(T),
          out->data());
  }
};

// Split and SplitV: consecutive boxes along the axis, their sizes the outputs' shapes. One output
// is the input itself, as in TensorFlow.
template <class T>
struct SplitKernel {
  static void run(KernelContext& ctx) {
    const runtime::TensorImpl& x = ctx.input(0);
    if (ctx.num_outputs() == 1) {
      ctx.set_output(0, ctx.input_tensor(0));
      return;
    }
    const int axis = ctx.attrs<opdefs::AxisAttrs>().axis;
    std::vector<std::int64_t> begin(static_cast<std::size_t>(x.shape().rank()), 0);
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      slice(x.data(), x.shape(), begin, ctx.output_shape(i), sizeof(T),
            ctx.allocate_output(i)->data());
      begin[static_cast<std::size_t>(axis)] += ctx.output_shape(i)[axis];
    }
  }
};

// Output i is the box of size 1 at i along the axis, which has the bytes of the output's shape.
template <class T>
struct UnpackKernel {
  static void run(KernelContext& ctx) {
    const runtime::TensorImpl& x = ctx.input(0);
    const int axis = ctx.attrs<opdefs::AxisAttrs>().axis;
    std::vector<std::int64_t> begin(static_cast<std::size_t>(x.shape().rank()), 0);
    Shape box = x.shape();
    box[axis] = 1;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      begin[static_cast<std::size_t>(axis)] = i;
      slice(x.data(), x.shape(), begin, box, sizeof(T), ctx.allocate_output(i)->data());
    }
  }
};

// A concat of the inputs seen with a dimension of 1 inserted at the axis.
template <class T>
struct PackKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const int axis = ctx.attrs<opdefs::AxisAttrs>().axis;
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      data.push_back(ctx.input(i).data());
      Shape s = ctx.output_shape();
      s[axis] = 1;
      shapes.push_back(s);
    }
    concat(data, shapes, axis, sizeof(T), out->data());
  }
};

}  // namespace

void register_shape_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kTranspose, DeviceType::kCPU, TransposeKernel>(table);
  kernels::register_op<opdefs::OpId::kConcatV2, DeviceType::kCPU, ConcatKernel>(table);
  kernels::register_op<opdefs::OpId::kSlice, DeviceType::kCPU, SliceKernel>(table);
  kernels::register_op<opdefs::OpId::kSplit, DeviceType::kCPU, SplitKernel>(table);
  kernels::register_op<opdefs::OpId::kSplitV, DeviceType::kCPU, SplitKernel>(table);
  kernels::register_op<opdefs::OpId::kPack, DeviceType::kCPU, PackKernel>(table);
  kernels::register_op<opdefs::OpId::kUnpack, DeviceType::kCPU, UnpackKernel>(table);
}

}  // namespace eagle::cpu
