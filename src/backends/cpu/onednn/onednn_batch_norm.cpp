#include "cpu/onednn/onednn_batch_norm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <dnnl.hpp>

#include "cpu/batch_norm_reference.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/onednn/onednn_common.hpp"
#include "eagle/errors.hpp"

namespace eagle::cpu::onednn {
namespace {

using dnnl::memory;
using std::int64_t;

enum class Kind : int64_t { kForwardTraining, kForwardInference, kBackward, kBackwardInference };

// kind, N, H, W, C, epsilon's float bits.
using Key = std::array<int64_t, 6>;

struct Entry {
  dnnl::primitive primitive;
  memory::desc scratchpad;
  std::string implementation;
  int threads = 1;
};

float epsilon_of(const opdefs::FusedBatchNormAttrs& a) { return static_cast<float>(a.epsilon); }

Key key_of(Kind kind, const BatchNormShape& s, float epsilon) {
  std::uint32_t bits;
  std::memcpy(&bits, &epsilon, sizeof bits);
  return {static_cast<int64_t>(kind), s.batch, s.height, s.width, s.channels,
          static_cast<int64_t>(bits)};
}

memory::desc nhwc(const BatchNormShape& s) {
  return memory::desc({s.batch, s.channels, s.height, s.width}, memory::data_type::f32,
                      memory::format_tag::nhwc);
}

dnnl::normalization_flags flags_of(bool training) {
  const auto scale_shift =
      dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  return training ? scale_shift : scale_shift | dnnl::normalization_flags::use_global_stats;
}

dnnl::batch_normalization_forward::primitive_desc forward_pd(const BatchNormShape& s, float epsilon,
                                                             bool training, dnnl::prop_kind kind) {
  const dnnl::batch_normalization_forward::desc desc(kind, nhwc(s), epsilon, flags_of(training));
  return {desc, user_scratchpad(), engine()};
}

template <class PrimitiveDesc, class Primitive>
std::shared_ptr<const Entry> entry_of(const PrimitiveDesc& pd) {
  auto e = std::make_shared<Entry>();
  e->primitive = Primitive(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->implementation = pd.impl_info_str();
  e->threads = omp_get_max_threads();  // what oneDNN saw while making it (the cache sets it)
  return e;
}

std::shared_ptr<const Entry> make(Kind kind, const BatchNormShape& s, float epsilon) {
  switch (kind) {
    case Kind::kForwardTraining:
    case Kind::kForwardInference: {
      const bool training = kind == Kind::kForwardTraining;
      return entry_of<dnnl::batch_normalization_forward::primitive_desc,
                      dnnl::batch_normalization_forward>(forward_pd(
          s, epsilon, training,
          training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference));
    }
    case Kind::kBackward:
    case Kind::kBackwardInference: {
      const bool training = kind == Kind::kBackward;
      const dnnl::batch_normalization_backward::desc desc(dnnl::prop_kind::backward, nhwc(s),
                                                          nhwc(s), epsilon, flags_of(training));
      const dnnl::batch_normalization_backward::primitive_desc pd(
          desc, user_scratchpad(), engine(),
          forward_pd(s, epsilon, training, dnnl::prop_kind::forward_training));
      return entry_of<dnnl::batch_normalization_backward::primitive_desc,
                      dnnl::batch_normalization_backward>(pd);
    }
  }
  throw InternalError("oneDNN batch norm: unknown primitive kind");
}

// Note [Batch norm on oneDNN]: parallel_for's rule, with the bytes the primitive moves (passes
// over x, dy and the output).
int team_size(const BatchNormShape& s, int passes) {
  const int64_t bytes = s.batch * s.height * s.width * s.channels * int64_t{sizeof(float)} * passes;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(intra_op_threads(), bytes / kMinChunkBytes)));
}

std::shared_ptr<const Entry> entry(Kind kind, const BatchNormShape& s, float epsilon, int threads) {
  static PrimitiveCache<Key, Entry> cache;
  try {
    return cache.get(key_of(kind, s, epsilon), threads, [&] { return make(kind, s, epsilon); });
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN could not make a primitive: {}", error.what()));
  }
}

memory vector_of(int64_t channels, const float* data) {
  return wrap(memory::desc({channels}, memory::data_type::f32, memory::format_tag::a), data);
}

// Passes over the tensors: training forward reads x twice (statistics, then normalization) and
// writes y; inference reads x once. The backward reads dy and x twice and writes dx.
constexpr int kForwardTrainingPasses = 3;
constexpr int kForwardInferencePasses = 2;
constexpr int kBackwardPasses = 5;

}  // namespace

void fused_batch_norm(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s, const float* x,
                      const float* scale, const float* offset, const float* old_mean,
                      const float* old_variance, float* y, float* batch_mean, float* batch_variance,
                      float* reserve_mean, float* reserve_variance) {
  const float epsilon = epsilon_of(a);
  const memory::desc data = nhwc(s);
  const int64_t rows = s.batch * s.height * s.width;
  if (a.is_training) {
    // The batch's statistics go to the reserve spaces, then batch_mean and batch_variance follow
    // from them (Note [Batch norm on oneDNN]).
    const auto e = entry(Kind::kForwardTraining, s, epsilon, team_size(s, kForwardTrainingPasses));
    std::vector<float> mean(static_cast<std::size_t>(s.channels)), variance(mean.size());
    run_primitive(e->primitive, e->implementation, e->threads, e->scratchpad,
                  {{DNNL_ARG_SRC, wrap(data, x)},
                   {DNNL_ARG_DST, wrap(data, y)},
                   {DNNL_ARG_SCALE, vector_of(s.channels, scale)},
                   {DNNL_ARG_SHIFT, vector_of(s.channels, offset)},
                   {DNNL_ARG_MEAN, vector_of(s.channels, mean.data())},
                   {DNNL_ARG_VARIANCE, vector_of(s.channels, variance.data())}});
    reference::batch_norm_statistics(a, rows, s.channels, mean.data(), variance.data(), old_mean,
                                     old_variance, batch_mean, batch_variance, reserve_mean,
                                     reserve_variance);
    return;
  }
  const auto e = entry(Kind::kForwardInference, s, epsilon, team_size(s, kForwardInferencePasses));
  run_primitive(e->primitive, e->implementation, e->threads, e->scratchpad,
                {{DNNL_ARG_SRC, wrap(data, x)},
                 {DNNL_ARG_DST, wrap(data, y)},
                 {DNNL_ARG_SCALE, vector_of(s.channels, scale)},
                 {DNNL_ARG_SHIFT, vector_of(s.channels, offset)},
                 {DNNL_ARG_MEAN, vector_of(s.channels, old_mean)},
                 {DNNL_ARG_VARIANCE, vector_of(s.channels, old_variance)}});
  reference::batch_norm_statistics(a, rows, s.channels, old_mean, old_variance, old_mean,
                                   old_variance, batch_mean, batch_variance, reserve_mean,
                                   reserve_variance);
}

void fused_batch_norm_grad(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s,
                           const float* dy, const float* x, const float* scale, const float* mean,
                           const float* variance, float* dx, float* scale_backprop,
                           float* offset_backprop) {
  const memory::desc data = nhwc(s);
  // oneDNN 2.6's backward with use_shift lists the shift among its inputs though no gradient
  // reads it (TensorFlow's gradient op has no offset input): zeros stand in.
  const std::vector<float> unused_shift(static_cast<std::size_t>(s.channels));
  const auto e = entry(a.is_training ? Kind::kBackward : Kind::kBackwardInference, s, epsilon_of(a),
                       team_size(s, kBackwardPasses));
  run_primitive(e->primitive, e->implementation, e->threads, e->scratchpad,
                {{DNNL_ARG_SRC, wrap(data, x)},
                 {DNNL_ARG_DIFF_DST, wrap(data, dy)},
                 {DNNL_ARG_MEAN, vector_of(s.channels, mean)},
                 {DNNL_ARG_VARIANCE, vector_of(s.channels, variance)},
                 {DNNL_ARG_SCALE, vector_of(s.channels, scale)},
                 {DNNL_ARG_SHIFT, vector_of(s.channels, unused_shift.data())},
                 {DNNL_ARG_DIFF_SRC, wrap(data, dx)},
                 {DNNL_ARG_DIFF_SCALE, vector_of(s.channels, scale_backprop)},
                 {DNNL_ARG_DIFF_SHIFT, vector_of(s.channels, offset_backprop)}});
}

bool threaded_team(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s, bool backward) {
  const int passes = backward        ? kBackwardPasses
                     : a.is_training ? kForwardTrainingPasses
                                     : kForwardInferencePasses;
  return team_size(s, passes) > 1;
}

std::string batch_norm_implementation(const opdefs::FusedBatchNormAttrs& a,
                                      const BatchNormShape& s) {
  const Kind kind = a.is_training ? Kind::kForwardTraining : Kind::kForwardInference;
  const int passes = a.is_training ? kForwardTrainingPasses : kForwardInferencePasses;
  return entry(kind, s, epsilon_of(a), team_size(s, passes))->implementation;
}

}  // namespace eagle::cpu::onednn
