#include "cpu/onednn/onednn_conv.hpp"

#include <omp.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <dnnl.hpp>

#include "cpu/intra_op_pool.hpp"
#include "eagle/errors.hpp"

namespace eagle::cpu::onednn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using std::int64_t;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

enum class Kind : int64_t {
  kConvForward,
  kConvBackwardData,
  kConvBackwardWeights,
  kMaxPoolForward,
  kMaxPoolBackward,
  kAvgPoolForward,
  kAvgPoolBackward,
};

using Key = std::array<int64_t, 18>;

Key conv_key(Kind kind, const ops::Conv2DAttrs& a) {
  return {static_cast<int64_t>(kind),
          a.batch,
          a.in_height,
          a.in_width,
          a.in_channels,
          a.filter_height,
          a.filter_width,
          a.out_channels,
          a.out_height,
          a.out_width,
          a.stride_h,
          a.stride_w,
          a.dilation_h,
          a.dilation_w,
          a.pad_top,
          a.pad_bottom,
          a.pad_left,
          a.pad_right};
}

Key pool_key(Kind kind, const ops::Pool2DAttrs& a) {
  return {static_cast<int64_t>(kind),
          a.batch,
          a.in_height,
          a.in_width,
          a.channels,
          a.window_h,
          a.window_w,
          a.out_height,
          a.out_width,
          a.stride_h,
          a.stride_w,
          a.pad_top,
          a.pad_bottom,
          a.pad_left,
          a.pad_right,
          0,
          0,
          0};
}

// A primitive ready to run: what it needs beside its arguments.
struct Entry {
  dnnl::primitive primitive;
  memory::desc scratchpad;
  memory::desc workspace;  // max pooling: the forward's record of each window's maximum
  std::string implementation;
  // Max pooling backward: the forward-training primitive that fills the workspace.
  std::shared_ptr<const Entry> forward;
};

// Note [oneDNN primitives]: one cache for every kind.
std::shared_ptr<const Entry> cached(const Key& key,
                                    std::shared_ptr<const Entry> (*make)(const void*),
                                    const void* attrs) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Entry>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<const Entry> entry = make(attrs);  // outside the lock: creation may be slow
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(entry)).first->second;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

memory::desc nhwc(int64_t n, int64_t h, int64_t w, int64_t c) {
  return memory::desc({n, c, h, w}, memory::data_type::f32, tag::nhwc);
}

struct ConvDescs {
  memory::desc src, weights, dst;
  memory::dims strides, dilates, padding_l, padding_r;
};

ConvDescs conv_descs(const ops::Conv2DAttrs& a) {
  return {nhwc(a.batch, a.in_height, a.in_width, a.in_channels),
          memory::desc({a.out_channels, a.in_channels, a.filter_height, a.filter_width},
                       memory::data_type::f32, tag::hwio),
          nhwc(a.batch, a.out_height, a.out_width, a.out_channels),
          {a.stride_h, a.stride_w},
          {a.dilation_h - 1, a.dilation_w - 1},  // oneDNN counts the holes: 0 is no dilation
          {a.pad_top, a.pad_left},
          {a.pad_bottom, a.pad_right}};
}

dnnl::convolution_forward::primitive_desc conv_forward_pd(const ops::Conv2DAttrs& a,
                                                          dnnl::prop_kind kind) {
  const ConvDescs d = conv_descs(a);
  const dnnl::convolution_forward::desc desc(kind, dnnl::algorithm::convolution_direct, d.src,
                                             d.weights, d.dst, d.strides, d.dilates, d.padding_l,
                                             d.padding_r);
  return {desc, user_scratchpad(), engine()};
}

template <class PrimitiveDesc, class Primitive>
std::shared_ptr<const Entry> entry_of(const PrimitiveDesc& pd) {
  auto e = std::make_shared<Entry>();
  e->primitive = Primitive(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->workspace = pd.workspace_desc();
  e->implementation = pd.impl_info_str();
  return e;
}

std::shared_ptr<const Entry> make_conv_forward(const void* p) {
  const auto& a = *static_cast<const ops::Conv2DAttrs*>(p);
  return entry_of<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(
      conv_forward_pd(a, dnnl::prop_kind::forward_inference));
}

std::shared_ptr<const Entry> make_conv_backward_data(const void* p) {
  const auto& a = *static_cast<const ops::Conv2DAttrs*>(p);
  const ConvDescs d = conv_descs(a);
  const dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src,
                                                   d.weights, d.dst, d.strides, d.dilates,
                                                   d.padding_l, d.padding_r);
  const dnnl::convolution_backward_data::primitive_desc pd(
      desc, user_scratchpad(), engine(), conv_forward_pd(a, dnnl::prop_kind::forward_training));
  return entry_of<dnnl::convolution_backward_data::primitive_desc, dnnl::convolution_backward_data>(
      pd);
}

std::shared_ptr<const Entry> make_conv_backward_weights(const void* p) {
  const auto& a = *static_cast<const ops::Conv2DAttrs*>(p);
  const ConvDescs d = conv_descs(a);
  const dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src,
                                                      d.weights, d.dst, d.strides, d.dilates,
                                                      d.padding_l, d.padding_r);
  const dnnl::convolution_backward_weights::primitive_desc pd(
      desc, user_scratchpad(), engine(), conv_forward_pd(a, dnnl::prop_kind::forward_training));
  return entry_of<dnnl::convolution_backward_weights::primitive_desc,
                  dnnl::convolution_backward_weights>(pd);
}

dnnl::pooling_forward::primitive_desc pool_forward_pd(const ops::Pool2DAttrs& a,
                                                      dnnl::algorithm algorithm,
                                                      dnnl::prop_kind kind) {
  const dnnl::pooling_forward::desc desc(
      kind, algorithm, nhwc(a.batch, a.in_height, a.in_width, a.channels),
      nhwc(a.batch, a.out_height, a.out_width, a.channels), {a.stride_h, a.stride_w},
      {a.window_h, a.window_w}, {a.pad_top, a.pad_left}, {a.pad_bottom, a.pad_right});
  return {desc, user_scratchpad(), engine()};
}

dnnl::pooling_backward::primitive_desc pool_backward_pd(const ops::Pool2DAttrs& a,
                                                        dnnl::algorithm algorithm) {
  const dnnl::pooling_backward::desc desc(
      algorithm, nhwc(a.batch, a.in_height, a.in_width, a.channels),
      nhwc(a.batch, a.out_height, a.out_width, a.channels), {a.stride_h, a.stride_w},
      {a.window_h, a.window_w}, {a.pad_top, a.pad_left}, {a.pad_bottom, a.pad_right});
  return {desc, user_scratchpad(), engine(),
          pool_forward_pd(a, algorithm, dnnl::prop_kind::forward_training)};
}

// TensorFlow's AvgPool does not count SAME's padding.
constexpr dnnl::algorithm kAvg = dnnl::algorithm::pooling_avg_exclude_padding;
constexpr dnnl::algorithm kMax = dnnl::algorithm::pooling_max;

std::shared_ptr<const Entry> make_max_pool_forward(const void* p) {
  const auto& a = *static_cast<const ops::Pool2DAttrs*>(p);
  return entry_of<dnnl::pooling_forward::primitive_desc, dnnl::pooling_forward>(
      pool_forward_pd(a, kMax, dnnl::prop_kind::forward_inference));
}

std::shared_ptr<const Entry> make_avg_pool_forward(const void* p) {
  const auto& a = *static_cast<const ops::Pool2DAttrs*>(p);
  return entry_of<dnnl::pooling_forward::primitive_desc, dnnl::pooling_forward>(
      pool_forward_pd(a, kAvg, dnnl::prop_kind::forward_inference));
}

std::shared_ptr<const Entry> make_avg_pool_backward(const void* p) {
  const auto& a = *static_cast<const ops::Pool2DAttrs*>(p);
  return entry_of<dnnl::pooling_backward::primitive_desc, dnnl::pooling_backward>(
      pool_backward_pd(a, kAvg));
}

std::shared_ptr<const Entry> make_max_pool_backward(const void* p) {
  const auto& a = *static_cast<const ops::Pool2DAttrs*>(p);
  auto backward = std::const_pointer_cast<Entry>(
      entry_of<dnnl::pooling_backward::primitive_desc, dnnl::pooling_backward>(
          pool_backward_pd(a, kMax)));
  backward->forward = entry_of<dnnl::pooling_forward::primitive_desc, dnnl::pooling_forward>(
      pool_forward_pd(a, kMax, dnnl::prop_kind::forward_training));
  return backward;
}

memory wrap(const memory::desc& desc, const void* data) {
  return memory(desc, engine(), const_cast<void*>(data));
}

// Runs a primitive on the calling thread's OpenMP team of eagle's intra-op size, with its own
// scratchpad (and workspace).
void run(const Entry& e, std::unordered_map<int, memory> args) {
  omp_set_num_threads(intra_op_threads());
  // The scratchpad (gemm-based convolutions keep their im2col buffer there: hundreds of MB for
  // a batch of 128 56x56x64 images) is kept per thread and only grows: a fresh, zeroed one per
  // call cost more than the convolution (page faults and the memset).
  thread_local std::unique_ptr<std::uint8_t[]> scratchpad;
  thread_local std::size_t capacity = 0;
  const std::size_t bytes = e.scratchpad.get_size();
  if (bytes > capacity) {
    scratchpad.reset();
    scratchpad.reset(new std::uint8_t[bytes]);
    capacity = bytes;
  }
  args.emplace(DNNL_ARG_SCRATCHPAD, wrap(e.scratchpad, scratchpad.get()));
  dnnl::stream stream(engine());
  try {
    e.primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN ({}) failed: {}", e.implementation, error.what()));
  }
}

template <class Make>
const Entry& conv_entry(Kind kind, const ops::Conv2DAttrs& a, Make make) {
  thread_local std::shared_ptr<const Entry> held;  // keeps the entry alive while it runs
  try {
    held = cached(conv_key(kind, a), make, &a);
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN could not make a primitive: {}", error.what()));
  }
  return *held;
}

template <class Make>
const Entry& pool_entry(Kind kind, const ops::Pool2DAttrs& a, Make make) {
  thread_local std::shared_ptr<const Entry> held;
  try {
    held = cached(pool_key(kind, a), make, &a);
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN could not make a primitive: {}", error.what()));
  }
  return *held;
}

}  // namespace

void conv2d(const ops::Conv2DAttrs& a, const float* input, const float* filter, float* output) {
  const Entry& e = conv_entry(Kind::kConvForward, a, make_conv_forward);
  const ConvDescs d = conv_descs(a);
  run(e, {{DNNL_ARG_SRC, wrap(d.src, input)},
          {DNNL_ARG_WEIGHTS, wrap(d.weights, filter)},
          {DNNL_ARG_DST, wrap(d.dst, output)}});
}

void conv2d_backprop_input(const ops::Conv2DAttrs& a, const float* filter,
                           const float* out_backprop, float* input_backprop) {
  const Entry& e = conv_entry(Kind::kConvBackwardData, a, make_conv_backward_data);
  const ConvDescs d = conv_descs(a);
  run(e, {{DNNL_ARG_DIFF_SRC, wrap(d.src, input_backprop)},
          {DNNL_ARG_WEIGHTS, wrap(d.weights, filter)},
          {DNNL_ARG_DIFF_DST, wrap(d.dst, out_backprop)}});
}

void conv2d_backprop_filter(const ops::Conv2DAttrs& a, const float* input,
                            const float* out_backprop, float* filter_backprop) {
  const Entry& e = conv_entry(Kind::kConvBackwardWeights, a, make_conv_backward_weights);
  const ConvDescs d = conv_descs(a);
  run(e, {{DNNL_ARG_SRC, wrap(d.src, input)},
          {DNNL_ARG_DIFF_WEIGHTS, wrap(d.weights, filter_backprop)},
          {DNNL_ARG_DIFF_DST, wrap(d.dst, out_backprop)}});
}

void max_pool(const ops::Pool2DAttrs& a, const float* input, float* output) {
  const Entry& e = pool_entry(Kind::kMaxPoolForward, a, make_max_pool_forward);
  run(e, {{DNNL_ARG_SRC, wrap(nhwc(a.batch, a.in_height, a.in_width, a.channels), input)},
          {DNNL_ARG_DST, wrap(nhwc(a.batch, a.out_height, a.out_width, a.channels), output)}});
}

void avg_pool(const ops::Pool2DAttrs& a, const float* input, float* output) {
  const Entry& e = pool_entry(Kind::kAvgPoolForward, a, make_avg_pool_forward);
  run(e, {{DNNL_ARG_SRC, wrap(nhwc(a.batch, a.in_height, a.in_width, a.channels), input)},
          {DNNL_ARG_DST, wrap(nhwc(a.batch, a.out_height, a.out_width, a.channels), output)}});
}

void avg_pool_grad(const ops::Pool2DAttrs& a, const float* grad, float* input_grad) {
  const Entry& e = pool_entry(Kind::kAvgPoolBackward, a, make_avg_pool_backward);
  run(e,
      {{DNNL_ARG_DIFF_DST, wrap(nhwc(a.batch, a.out_height, a.out_width, a.channels), grad)},
       {DNNL_ARG_DIFF_SRC, wrap(nhwc(a.batch, a.in_height, a.in_width, a.channels), input_grad)}});
}

void max_pool_grad(const ops::Pool2DAttrs& a, const float* input, const float* grad,
                   float* input_grad) {
  const Entry& e = pool_entry(Kind::kMaxPoolBackward, a, make_max_pool_backward);
  const memory::desc in = nhwc(a.batch, a.in_height, a.in_width, a.channels);
  const memory::desc out = nhwc(a.batch, a.out_height, a.out_width, a.channels);
  // The forward again, for its workspace; its output is not needed but must go somewhere.
  std::vector<std::uint8_t> workspace(e.forward->workspace.get_size());
  std::vector<float> output(
      static_cast<std::size_t>(a.batch * a.out_height * a.out_width * a.channels));
  run(*e.forward, {{DNNL_ARG_SRC, wrap(in, input)},
                   {DNNL_ARG_DST, wrap(out, output.data())},
                   {DNNL_ARG_WORKSPACE, wrap(e.forward->workspace, workspace.data())}});
  run(e, {{DNNL_ARG_DIFF_DST, wrap(out, grad)},
          {DNNL_ARG_DIFF_SRC, wrap(in, input_grad)},
          {DNNL_ARG_WORKSPACE, wrap(e.workspace, workspace.data())}});
}

std::string conv2d_implementation(const ops::Conv2DAttrs& a) {
  return conv_entry(Kind::kConvForward, a, make_conv_forward).implementation;
}

}  // namespace eagle::cpu::onednn
