#include "cpu/onednn/onednn_conv.hpp"

#include <omp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <dnnl.hpp>

#include "cpu/conv_epilogue.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/onednn/onednn_common.hpp"
#include "eagle/errors.hpp"

namespace eagle::cpu::onednn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using std::int64_t;

enum class Kind : int64_t {
  kConvForward,
  kConvBackwardData,
  kConvBackwardWeights,
  kAvgPoolForward,
  kAvgPoolBackward,
};

using Key = std::array<int64_t, 19>;

Key conv_key(Kind kind, const opdefs::Conv2DAttrs& a) {
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
          a.pad_right,
          a.groups};
}

Key pool_key(Kind kind, const opdefs::Pool2DAttrs& a) {
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
          0,
          0};
}

// One argument of a convolution (Note [oneDNN layouts]): eagle's layout (`user`), the layout the
// primitive chose (`inner`), and the reorder between them when they differ (user -> inner for an
// input, inner -> user for the output).
struct LayoutArg {
  int id;  // DNNL_ARG_*
  memory::desc user;
  memory::desc inner;
  bool output;
  bool reordered;
  dnnl::reorder reorder;
  memory::desc reorder_scratchpad;
};

// A primitive ready to run: what it needs beside its arguments.
struct Entry {
  dnnl::primitive primitive;
  memory::desc scratchpad;
  std::string implementation;
  int threads = 1;  // the OpenMP team size it was made for, and runs on (Note [oneDNN primitives])
  // Convolutions: their three tensor arguments, in the order the callers pass the pointers.
  std::vector<LayoutArg> args;
};

// Note [oneDNN primitives]: one cache for every kind, keyed by the geometry and the team size.
template <class Make>
std::shared_ptr<const Entry> cached(const Key& key, int threads, Make make) {
  static PrimitiveCache<Key, Entry> cache;
  return cache.get(key, threads, make);
}

memory::desc nhwc(int64_t n, int64_t h, int64_t w, int64_t c) {
  return memory::desc({n, c, h, w}, memory::data_type::f32, tag::nhwc);
}

// Which layouts a convolution's descriptors name (Note [oneDNN layouts]): eagle's for every
// argument (nhwc, hwio), eagle's nhwc for the activations with the filter's left to oneDNN, or
// every one left to oneDNN (format_tag::any).
enum class Layouts { kEagle, kEagleActivations, kChosen };

// The dims of a Conv2D's arguments and their layouts. A grouped convolution's weights are
// oneDNN's [groups, out/groups, in/groups, h, w], whose hwigo layout is eagle's HWIO filter with
// its output channels split into (group, filter) (Note [Grouped convolution]).
struct ConvDescs {
  memory::desc src, weights, dst;
  memory::dims strides, dilates, padding_l, padding_r;
};

ConvDescs conv_descs(const opdefs::Conv2DAttrs& a, Layouts layouts = Layouts::kEagle) {
  const memory::dims src = {a.batch, a.in_channels, a.in_height, a.in_width};
  const bool grouped = a.groups > 1;
  const memory::dims weights =
      grouped ? memory::dims{a.groups, a.group_out_channels(), a.group_in_channels(),
                             a.filter_height, a.filter_width}
              : memory::dims{a.out_channels, a.in_channels, a.filter_height, a.filter_width};
  const memory::dims dst = {a.batch, a.out_channels, a.out_height, a.out_width};
  const auto f32 = memory::data_type::f32;
  const tag activations = layouts == Layouts::kChosen ? tag::any : tag::nhwc;
  const tag filter = layouts != Layouts::kEagle ? tag::any : grouped ? tag::hwigo : tag::hwio;
  return {memory::desc(src, f32, activations),
          memory::desc(weights, f32, filter),
          memory::desc(dst, f32, activations),
          {a.stride_h, a.stride_w},
          {a.dilation_h - 1, a.dilation_w - 1},  // oneDNN counts the holes: 0 is no dilation
          {a.pad_top, a.pad_left},
          {a.pad_bottom, a.pad_right}};
}

// Whether oneDNN runs a primitive on one of its direct kernels (jit:..., brgconv:...), not on
// im2col + sgemm (gemm:...) or its reference loops (ref:...).
bool direct_kernel(const std::string& implementation) {
  return implementation.find("gemm") == std::string::npos &&
         implementation.rfind("ref", 0) == std::string::npos;
}

// make(layouts)'s primitive descriptor for eagle's nhwc activations when oneDNN has a direct
// kernel for them, else for the layouts it chooses (Note [oneDNN layouts]).
template <class Make>
auto preferred_pd(Make make) {
  auto pd = make(Layouts::kEagleActivations);
  if (direct_kernel(pd.impl_info_str())) return pd;
  return make(Layouts::kChosen);
}

dnnl::convolution_forward::primitive_desc conv_forward_pd(const opdefs::Conv2DAttrs& a,
                                                          dnnl::prop_kind kind, Layouts layouts) {
  const ConvDescs d = conv_descs(a, layouts);
  const dnnl::convolution_forward::desc desc(kind, dnnl::algorithm::convolution_direct, d.src,
                                             d.weights, d.dst, d.strides, d.dilates, d.padding_l,
                                             d.padding_r);
  return {desc, user_scratchpad(), engine()};
}

// True when the two descriptions put every element at the same offset: equal, or both plain
// (unblocked) with the same strides along every axis longer than 1 (nhwc and nchw with one
// channel: the first convolution's input).
bool same_bytes(const memory::desc& a, const memory::desc& b) {
  if (a == b) return true;
  const dnnl_memory_desc_t& x = a.data;
  const dnnl_memory_desc_t& y = b.data;
  if (x.format_kind != dnnl_blocked || y.format_kind != dnnl_blocked) return false;
  if (x.ndims != y.ndims || x.data_type != y.data_type || x.offset0 != y.offset0) return false;
  const auto& bx = x.format_desc.blocking;
  const auto& by = y.format_desc.blocking;
  if (bx.inner_nblks != 0 || by.inner_nblks != 0) return false;
  for (int i = 0; i < x.ndims; ++i) {
    if (x.dims[i] != y.dims[i] || x.padded_dims[i] != y.padded_dims[i]) return false;
    if (x.dims[i] > 1 && bx.strides[i] != by.strides[i]) return false;
  }
  return true;
}

LayoutArg layout_arg(int id, const memory::desc& user, const memory::desc& inner, bool output) {
  LayoutArg arg{id, user, inner, output, !same_bytes(user, inner), {}, {}};
  if (arg.reordered) {
    const dnnl::reorder::primitive_desc pd =
        output ? dnnl::reorder::primitive_desc(engine(), inner, engine(), user, user_scratchpad())
               : dnnl::reorder::primitive_desc(engine(), user, engine(), inner, user_scratchpad());
    arg.reorder = dnnl::reorder(pd);
    arg.reorder_scratchpad = pd.scratchpad_desc();
  }
  return arg;
}

template <class PrimitiveDesc, class Primitive>
std::shared_ptr<const Entry> entry_of(const PrimitiveDesc& pd) {
  auto e = std::make_shared<Entry>();
  e->primitive = Primitive(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->implementation = pd.impl_info_str();
  e->threads = omp_get_max_threads();  // what oneDNN saw while making it (cached() sets it)
  return e;
}

// The convolutions' entries list their arguments in the order of the public functions' pointers:
// the two inputs, then the output.
std::shared_ptr<const Entry> make_conv_forward(const void* p) {
  const auto& a = *static_cast<const opdefs::Conv2DAttrs*>(p);
  const auto pd = preferred_pd([&](Layouts layouts) {
    return conv_forward_pd(a, dnnl::prop_kind::forward_inference, layouts);
  });
  auto e = std::const_pointer_cast<Entry>(
      entry_of<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(pd));
  const ConvDescs u = conv_descs(a);
  e->args = {layout_arg(DNNL_ARG_SRC, u.src, pd.src_desc(), false),
             layout_arg(DNNL_ARG_WEIGHTS, u.weights, pd.weights_desc(), false),
             layout_arg(DNNL_ARG_DST, u.dst, pd.dst_desc(), true)};
  return e;
}

std::shared_ptr<const Entry> make_conv_backward_data(const void* p) {
  const auto& a = *static_cast<const opdefs::Conv2DAttrs*>(p);
  const auto pd = preferred_pd([&](Layouts layouts) {
    const ConvDescs d = conv_descs(a, layouts);
    const dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src,
                                                     d.weights, d.dst, d.strides, d.dilates,
                                                     d.padding_l, d.padding_r);
    return dnnl::convolution_backward_data::primitive_desc(
        desc, user_scratchpad(), engine(),
        conv_forward_pd(a, dnnl::prop_kind::forward_training, layouts));
  });
  auto e = std::const_pointer_cast<Entry>(
      entry_of<dnnl::convolution_backward_data::primitive_desc, dnnl::convolution_backward_data>(
          pd));
  const ConvDescs u = conv_descs(a);
  e->args = {layout_arg(DNNL_ARG_WEIGHTS, u.weights, pd.weights_desc(), false),
             layout_arg(DNNL_ARG_DIFF_DST, u.dst, pd.diff_dst_desc(), false),
             layout_arg(DNNL_ARG_DIFF_SRC, u.src, pd.diff_src_desc(), true)};
  return e;
}

std::shared_ptr<const Entry> make_conv_backward_weights(const void* p) {
  const auto& a = *static_cast<const opdefs::Conv2DAttrs*>(p);
  const auto pd = preferred_pd([&](Layouts layouts) {
    const ConvDescs d = conv_descs(a, layouts);
    const dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src,
                                                        d.weights, d.dst, d.strides, d.dilates,
                                                        d.padding_l, d.padding_r);
    return dnnl::convolution_backward_weights::primitive_desc(
        desc, user_scratchpad(), engine(),
        conv_forward_pd(a, dnnl::prop_kind::forward_training, layouts));
  });
  auto e =
      std::const_pointer_cast<Entry>(entry_of<dnnl::convolution_backward_weights::primitive_desc,
                                              dnnl::convolution_backward_weights>(pd));
  const ConvDescs u = conv_descs(a);
  e->args = {layout_arg(DNNL_ARG_SRC, u.src, pd.src_desc(), false),
             layout_arg(DNNL_ARG_DIFF_DST, u.dst, pd.diff_dst_desc(), false),
             layout_arg(DNNL_ARG_DIFF_WEIGHTS, u.weights, pd.diff_weights_desc(), true)};
  return e;
}

dnnl::pooling_forward::primitive_desc pool_forward_pd(const opdefs::Pool2DAttrs& a,
                                                      dnnl::algorithm algorithm,
                                                      dnnl::prop_kind kind) {
  const dnnl::pooling_forward::desc desc(
      kind, algorithm, nhwc(a.batch, a.in_height, a.in_width, a.channels),
      nhwc(a.batch, a.out_height, a.out_width, a.channels), {a.stride_h, a.stride_w},
      {a.window_h, a.window_w}, {a.pad_top, a.pad_left}, {a.pad_bottom, a.pad_right});
  return {desc, user_scratchpad(), engine()};
}

dnnl::pooling_backward::primitive_desc pool_backward_pd(const opdefs::Pool2DAttrs& a,
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

std::shared_ptr<const Entry> make_avg_pool_forward(const void* p) {
  const auto& a = *static_cast<const opdefs::Pool2DAttrs*>(p);
  return entry_of<dnnl::pooling_forward::primitive_desc, dnnl::pooling_forward>(
      pool_forward_pd(a, kAvg, dnnl::prop_kind::forward_inference));
}

std::shared_ptr<const Entry> make_avg_pool_backward(const void* p) {
  const auto& a = *static_cast<const opdefs::Pool2DAttrs*>(p);
  return entry_of<dnnl::pooling_backward::primitive_desc, dnnl::pooling_backward>(
      pool_backward_pd(a, kAvg));
}

// Runs a primitive on the calling thread's OpenMP team of the size it was made for, with its own
// scratchpad.
void run(const Entry& e, std::unordered_map<int, memory> args) {
  run_primitive(e.primitive, e.implementation, e.threads, e.scratchpad, std::move(args));
}

// Runs a convolution on eagle's buffers, `data[i]` being e.args[i]'s (Note [oneDNN layouts]):
// inputs in another layout are reordered into this thread's buffers first, the output written
// there and reordered into eagle's buffer after. Every primitive here runs to completion inside
// execute (a CPU stream with the OpenMP runtime is synchronous), so they share one scratchpad.
void run_convolution(const Entry& e, const std::array<const void*, 3>& data) {
  omp_set_num_threads(e.threads);
  thread_local std::array<GrowingBuffer, 3> staging;
  dnnl::stream stream(engine());
  std::unordered_map<int, memory> args;
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    const LayoutArg& arg = e.args[i];
    if (!arg.reordered) {
      args.emplace(arg.id, wrap(arg.inner, data[i]));
      continue;
    }
    memory inner = wrap(arg.inner, staging[i].get(arg.inner.get_size()));
    if (!arg.output) {
      const memory user = wrap(arg.user, data[i]);
      execute(arg.reorder, "reorder", stream,
              {{DNNL_ARG_FROM, user},
               {DNNL_ARG_TO, inner},
               {DNNL_ARG_SCRATCHPAD, scratchpad_of(arg.reorder_scratchpad)}});
    }
    args.emplace(arg.id, inner);
  }
  args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad_of(e.scratchpad));
  execute(e.primitive, e.implementation, stream, args);
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    const LayoutArg& arg = e.args[i];
    if (!arg.output || !arg.reordered) continue;
    execute(arg.reorder, "reorder", stream,
            {{DNNL_ARG_FROM, args.at(arg.id)},
             {DNNL_ARG_TO, wrap(arg.user, data[i])},
             {DNNL_ARG_SCRATCHPAD, scratchpad_of(arg.reorder_scratchpad)}});
  }
  stream.wait();
}

// The entry for this geometry on an OpenMP team of `threads`.
template <class Make>
std::shared_ptr<const Entry> conv_entry(Kind kind, const opdefs::Conv2DAttrs& a, Make make,
                                        int threads) {
  try {
    return cached(conv_key(kind, a), threads, [&] { return make(&a); });
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN could not make a primitive: {}", error.what()));
  }
}

template <class Make>
std::shared_ptr<const Entry> pool_entry(Kind kind, const opdefs::Pool2DAttrs& a, Make make,
                                        int threads) {
  try {
    return cached(pool_key(kind, a), threads, [&] { return make(&a); });
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN could not make a primitive: {}", error.what()));
  }
}

// Note [Batch blocks]
// ~~~~~~~~~~~~~~~~~~~
// oneDNN threads a primitive over its OpenMP team with static partitions and barriers (the
// direct convolutions' backward-weights reduces per-thread partial sums behind one): every
// parallel region waits for its slowest thread, and on a 2-core machine shared with other
// processes one of the two is often off its core, so a step on two threads took longer than on
// one (docs/performance.md, "Seed CNN: where the time goes"). So convolutions and pools cut the
// batch into blocks of kBatchBlock images and run one single-threaded primitive per block on
// eagle's intra-op pool (Note [Intra-op parallelism]), whose calling thread takes every block no
// worker has started: a worker that is off its core delays at most the block it holds. The
// blocks depend on the batch alone, never on the thread count, and the filter gradient adds the
// blocks' partial sums in block order, so results are the same on any number of threads. A batch
// of fewer blocks than threads (one image at a large resolution, say) cannot keep the threads
// busy this way and runs as one primitive on an OpenMP team of all the threads instead.
constexpr std::int64_t kBatchBlock = 16;

std::int64_t batch_blocks(std::int64_t batch) { return (batch + kBatchBlock - 1) / kBatchBlock; }

// True when an op over `batch` images runs in blocks (else: one primitive on a team).
bool in_blocks(std::int64_t batch) {
  const int threads = intra_op_threads();
  return threads == 1 || batch_blocks(batch) >= threads;
}

// Calls block(begin, count) for each block of the batch, on the intra-op pool.
template <class Block>
void for_each_block(std::int64_t batch, Block block) {
  struct Context {
    std::int64_t batch;
    Block* block;
  } context{batch, &block};
  detail::run_chunks(
      batch_blocks(batch),
      [](void* p, std::int64_t b) {
        const auto& c = *static_cast<const Context*>(p);
        const std::int64_t begin = b * kBatchBlock;
        (*c.block)(begin, std::min(kBatchBlock, c.batch - begin));
      },
      &context);
}

template <class Attrs>
Attrs with_batch(Attrs a, std::int64_t batch) {
  a.batch = batch;
  return a;
}

std::int64_t image_size(std::int64_t h, std::int64_t w, std::int64_t c) { return h * w * c; }

}  // namespace

// The epilogue runs on each batch block's output just after the block's convolution, while it is
// in cache (Note [Fused convolutions]).
void conv2d(const opdefs::Conv2DAttrs& a, const float* input, const float* filter, float* output,
            const ConvEpilogue& epilogue) {
  const std::int64_t pixels = a.out_height * a.out_width;
  if (!in_blocks(a.batch)) {
    run_convolution(*conv_entry(Kind::kConvForward, a, make_conv_forward, intra_op_threads()),
                    {input, filter, output});
    apply_conv_epilogue(epilogue, output, a.batch * pixels, a.out_channels);
    return;
  }
  const std::int64_t in = image_size(a.in_height, a.in_width, a.in_channels);
  const std::int64_t out = image_size(a.out_height, a.out_width, a.out_channels);
  for_each_block(a.batch, [&](std::int64_t begin, std::int64_t count) {
    const auto e = conv_entry(Kind::kConvForward, with_batch(a, count), make_conv_forward, 1);
    run_convolution(*e, {input + begin * in, filter, output + begin * out});
    apply_conv_epilogue(epilogue, output + begin * out, count * pixels, a.out_channels);
  });
}

// Note [Backprop-input as a forward convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With unit strides, Conv2D's input gradient is itself a forward convolution:
// dx[ih, iw, i] = sum over kh, kw, o of dy[ih + pad_top - kh * dh, iw + pad_left - kw * dw, o] *
// w[kh, kw, i, o] is dy, padded by extent - 1 - pad on each side, convolved with the filter
// turned 180 degrees and its input and output channels swapped. oneDNN 2.6's forward kernel
// (brgconv on AVX-512) is faster than its backward-data one (jit) where the padding is a thin
// border: on the ResNet layer (54x54 gradients padded to 58x58) the input gradient took 57 ms this
// way against 62 ms (2 threads, alternating runs); oneDNN 3.x's brgconv backward-data works the
// same way. Where the padding is most of the padded image it was slower (the seed's third layer,
// 3x3 gradients padded to 7x7: 0.33 against 0.27 ms) or level (the second, 11x11 to 15x15), so
// only gradients that padding grows by at most half go this way. Strided and grouped
// convolutions, and padding wider than the filter's extent (none of TensorFlow's SAME or VALID),
// keep backward-data.

// The forward convolution whose output is a's input gradient, if it has one.
std::optional<opdefs::Conv2DAttrs> backprop_input_as_forward(const opdefs::Conv2DAttrs& a) {
  if (a.groups != 1 || a.stride_h != 1 || a.stride_w != 1) return std::nullopt;
  const std::int64_t eh = (a.filter_height - 1) * a.dilation_h;
  const std::int64_t ew = (a.filter_width - 1) * a.dilation_w;
  opdefs::Conv2DAttrs f = a;
  f.in_height = a.out_height;
  f.in_width = a.out_width;
  f.in_channels = a.out_channels;
  f.out_height = a.in_height;
  f.out_width = a.in_width;
  f.out_channels = a.in_channels;
  f.pad_top = eh - a.pad_top;
  f.pad_bottom = eh - a.pad_bottom;
  f.pad_left = ew - a.pad_left;
  f.pad_right = ew - a.pad_right;
  if (f.pad_top < 0 || f.pad_bottom < 0 || f.pad_left < 0 || f.pad_right < 0) return std::nullopt;
  // At most half as much padding as gradient (2 * padded <= 3 * unpadded area).
  const std::int64_t padded =
      (f.in_height + f.pad_top + f.pad_bottom) * (f.in_width + f.pad_left + f.pad_right);
  if (2 * padded > 3 * f.in_height * f.in_width) return std::nullopt;
  return f;
}

namespace {

// a's filter (HWIO) turned 180 degrees with I and O swapped, into this thread's buffer.
const float* turned_filter(const opdefs::Conv2DAttrs& a, const float* filter) {
  thread_local GrowingBuffer buffer;
  const std::int64_t kh = a.filter_height, kw = a.filter_width;
  const std::int64_t in = a.in_channels, out = a.out_channels;
  auto* turned = static_cast<float*>(buffer.get(sizeof(float) * kh * kw * in * out));
  for (std::int64_t y = 0; y < kh; ++y) {
    for (std::int64_t x = 0; x < kw; ++x) {
      const float* from = filter + ((kh - 1 - y) * kw + (kw - 1 - x)) * in * out;
      float* to = turned + (y * kw + x) * out * in;
      for (std::int64_t i = 0; i < in; ++i) {
        for (std::int64_t o = 0; o < out; ++o) to[o * in + i] = from[i * out + o];
      }
    }
  }
  return turned;
}

}  // namespace

void conv2d_backprop_input(const opdefs::Conv2DAttrs& a, const float* filter,
                           const float* out_backprop, float* input_backprop) {
  if (const auto forward = backprop_input_as_forward(a)) {
    conv2d(*forward, out_backprop, turned_filter(a, filter), input_backprop);
    return;
  }
  if (!in_blocks(a.batch)) {
    run_convolution(
        *conv_entry(Kind::kConvBackwardData, a, make_conv_backward_data, intra_op_threads()),
        {filter, out_backprop, input_backprop});
    return;
  }
  const std::int64_t in = image_size(a.in_height, a.in_width, a.in_channels);
  const std::int64_t out = image_size(a.out_height, a.out_width, a.out_channels);
  for_each_block(a.batch, [&](std::int64_t begin, std::int64_t count) {
    const auto e =
        conv_entry(Kind::kConvBackwardData, with_batch(a, count), make_conv_backward_data, 1);
    run_convolution(*e, {filter, out_backprop + begin * out, input_backprop + begin * in});
  });
}

void conv2d_backprop_filter(const opdefs::Conv2DAttrs& a, const float* input,
                            const float* out_backprop, float* filter_backprop) {
  if (!in_blocks(a.batch)) {
    run_convolution(
        *conv_entry(Kind::kConvBackwardWeights, a, make_conv_backward_weights, intra_op_threads()),
        {input, out_backprop, filter_backprop});
    return;
  }
  // Note [Batch blocks]: block b's partial sum goes to partials[b] (block 0's to the output), then
  // they are added in block order.
  const std::int64_t in = image_size(a.in_height, a.in_width, a.in_channels);
  const std::int64_t out = image_size(a.out_height, a.out_width, a.out_channels);
  const std::int64_t size =
      a.filter_height * a.filter_width * a.group_in_channels() * a.out_channels;
  const std::int64_t blocks = batch_blocks(a.batch);
  std::vector<float> partials(static_cast<std::size_t>((blocks - 1) * size));
  for_each_block(a.batch, [&](std::int64_t begin, std::int64_t count) {
    const std::int64_t b = begin / kBatchBlock;
    float* sum = b == 0 ? filter_backprop : partials.data() + (b - 1) * size;
    const auto e =
        conv_entry(Kind::kConvBackwardWeights, with_batch(a, count), make_conv_backward_weights, 1);
    run_convolution(*e, {input + begin * in, out_backprop + begin * out, sum});
  });
  for (std::int64_t b = 1; b < blocks; ++b) {
    const float* partial = partials.data() + (b - 1) * size;
    for (std::int64_t i = 0; i < size; ++i) filter_backprop[i] += partial[i];
  }
}

// Pools: one primitive per block (Note [Batch blocks]) or on the whole batch.
template <class Make, class Run>
void pool_in_blocks(Kind kind, const opdefs::Pool2DAttrs& a, Make make, Run run_block) {
  if (!in_blocks(a.batch)) {
    run_block(*pool_entry(kind, a, make, intra_op_threads()), a, 0);
    return;
  }
  for_each_block(a.batch, [&](std::int64_t begin, std::int64_t count) {
    const opdefs::Pool2DAttrs block = with_batch(a, count);
    run_block(*pool_entry(kind, block, make, 1), block, begin);
  });
}

void avg_pool(const opdefs::Pool2DAttrs& a, const float* input, float* output) {
  const std::int64_t in = image_size(a.in_height, a.in_width, a.channels);
  const std::int64_t out = image_size(a.out_height, a.out_width, a.channels);
  pool_in_blocks(Kind::kAvgPoolForward, a, make_avg_pool_forward,
                 [&](const Entry& e, const opdefs::Pool2DAttrs& b, std::int64_t begin) {
                   run(e, {{DNNL_ARG_SRC, wrap(nhwc(b.batch, b.in_height, b.in_width, b.channels),
                                               input + begin * in)},
                           {DNNL_ARG_DST, wrap(nhwc(b.batch, b.out_height, b.out_width, b.channels),
                                               output + begin * out)}});
                 });
}

void avg_pool_grad(const opdefs::Pool2DAttrs& a, const float* grad, float* input_grad) {
  const std::int64_t in = image_size(a.in_height, a.in_width, a.channels);
  const std::int64_t out = image_size(a.out_height, a.out_width, a.channels);
  pool_in_blocks(
      Kind::kAvgPoolBackward, a, make_avg_pool_backward,
      [&](const Entry& e, const opdefs::Pool2DAttrs& b, std::int64_t begin) {
        run(e, {{DNNL_ARG_DIFF_DST,
                 wrap(nhwc(b.batch, b.out_height, b.out_width, b.channels), grad + begin * out)},
                {DNNL_ARG_DIFF_SRC, wrap(nhwc(b.batch, b.in_height, b.in_width, b.channels),
                                         input_grad + begin * in)}});
      });
}

namespace {

// The entry that computes `pass` for geometry a (the first block's, when the batch runs in blocks).
std::shared_ptr<const Entry> entry_of_pass(const opdefs::Conv2DAttrs& a, ConvPass pass) {
  const bool whole = !in_blocks(a.batch);
  const opdefs::Conv2DAttrs g = whole ? a : with_batch(a, std::min(kBatchBlock, a.batch));
  const int threads = whole ? intra_op_threads() : 1;
  switch (pass) {
    case ConvPass::kBackwardData:
      if (const auto forward = backprop_input_as_forward(g)) {
        return conv_entry(Kind::kConvForward, *forward, make_conv_forward, threads);
      }
      return conv_entry(Kind::kConvBackwardData, g, make_conv_backward_data, threads);
    case ConvPass::kBackwardWeights:
      return conv_entry(Kind::kConvBackwardWeights, g, make_conv_backward_weights, threads);
    default:
      return conv_entry(Kind::kConvForward, g, make_conv_forward, threads);
  }
}

}  // namespace

std::string conv2d_implementation(const opdefs::Conv2DAttrs& a, ConvPass pass) {
  return entry_of_pass(a, pass)->implementation;
}

bool conv2d_activations_in_place(const opdefs::Conv2DAttrs& a, ConvPass pass) {
  for (const LayoutArg& arg : entry_of_pass(a, pass)->args) {
    if (arg.id != DNNL_ARG_WEIGHTS && arg.id != DNNL_ARG_DIFF_WEIGHTS && arg.reordered) {
      return false;
    }
  }
  return true;
}

}  // namespace eagle::cpu::onednn
