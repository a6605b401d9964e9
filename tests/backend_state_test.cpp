// Variables and optimizer updates on every GPU against the CPU: the resource ops, which the
// OpInfo table leaves out (their calls are sequences on a variable; op_info.cpp's exclusions).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_support.hpp"
#include "op_info/op_info.hpp"
#include "real_gpu.hpp"

namespace opdefs = eagle::opdefs;

using eagle::Axes;
using eagle::opdefs::gpu_implements;
using namespace eagle_test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("optimizer updates (ResourceApply*) match the CPU over three steps") {
  HardPlacement hard;
  namespace opt = eagle::optimizers;
  const auto run = [](const std::function<std::unique_ptr<opt::Optimizer>()>& make,
                      const Tensor& init, const Tensor& grad) {
    auto optimizer = make();
    eagle::Variable v(init);
    for (int step = 0; step < 3; ++step) optimizer->apply_gradients({{grad, v}});
    return v.read_value();
  };
  const std::vector<std::pair<opdefs::OpId, std::function<std::unique_ptr<opt::Optimizer>()>>>
      cases = {
          {opdefs::OpId::kResourceApplyGradientDescent,
           [] { return std::make_unique<opt::SGD>(); }},
          {opdefs::OpId::kResourceApplyKerasMomentum,
           [] {
             return std::make_unique<opt::SGD>(opt::SGDOptions{0.1, 0.9, true});
           }},
          {opdefs::OpId::kResourceApplyAdam, [] { return std::make_unique<opt::legacy::Adam>(); }},
          {opdefs::OpId::kResourceApplyAdamWithAmsgrad,
           [] {
             return std::make_unique<opt::legacy::Adam>(
                 opt::AdamOptions{0.1, 0.9, 0.999, 1e-7, true});
           }},
          {opdefs::OpId::kResourceApplyRMSProp,
           [] {
             return std::make_unique<opt::legacy::RMSprop>(opt::RMSpropOptions{0.01, 0.9, 0.5});
           }},
          {opdefs::OpId::kResourceApplyCenteredRMSProp,
           [] {
             return std::make_unique<opt::legacy::RMSprop>(
                 opt::RMSpropOptions{0.01, 0.9, 0.5, 1e-7, true});
           }},
          {opdefs::OpId::kResourceApplyAdagradV2,
           [] { return std::make_unique<opt::legacy::Adagrad>(); }},
          {opdefs::OpId::k_KerasAdam, [] { return std::make_unique<opt::Adam>(); }},
          {opdefs::OpId::k_KerasAdamWithAmsgrad,
           [] {
             return std::make_unique<opt::Adam>(opt::AdamOptions{0.1, 0.9, 0.999, 1e-7, true});
           }},
          {opdefs::OpId::k_KerasRMSprop,
           [] {
             return std::make_unique<opt::RMSprop>(opt::RMSpropOptions{0.01, 0.9, 0.5});
           }},
          {opdefs::OpId::k_KerasCenteredRMSprop,
           [] {
             return std::make_unique<opt::RMSprop>(opt::RMSpropOptions{0.01, 0.9, 0.0, 1e-7, true});
           }},
          {opdefs::OpId::k_KerasAdagrad, [] { return std::make_unique<opt::Adagrad>(); }},
          {opdefs::OpId::k_KerasAdamax, [] { return std::make_unique<opt::Adamax>(0.01); }},
          {opdefs::OpId::k_KerasNadam, [] { return std::make_unique<opt::Nadam>(0.01); }},
          {opdefs::OpId::k_KerasAdadelta, [] { return std::make_unique<opt::Adadelta>(0.5); }},
          {opdefs::OpId::k_KerasLion, [] { return std::make_unique<opt::Lion>(0.01); }},
      };
  for (const auto& [op, make_optimizer] : cases) {
    for (DType d : gpu_dtypes(op)) {
      const Tensor init = make(d, {5, 7}, Domain::kGeneral, 71, true);
      const Tensor grad = make(d, {5, 7}, Domain::kGeneral, 72, true);
      compare_op(
          op, d, "[5,7] three steps", [&] { return run(make_optimizer, init, grad); },
          float_tol(d));
    }
  }
}

TEST_CASE("variables: create, read, assign, assign_add and assign_sub on the GPU") {
  HardPlacement hard;
  for (opdefs::OpId op :
       {opdefs::OpId::kVarHandleOp, opdefs::OpId::kReadVariableOp, opdefs::OpId::kAssignVariableOp,
        opdefs::OpId::kAssignAddVariableOp, opdefs::OpId::kAssignSubVariableOp}) {
    for (DType d : gpu_dtypes(op)) {
      const Tensor init = make(d, {3, 5}, Domain::kSmall, 61, true);
      const Tensor delta = make(d, {3, 5}, Domain::kSmall, 62, true);
      compare_op(
          op, d, "[3,5]",
          [&] {
            eagle::Variable v(init);
            const Tensor before = v.read_value();
            if (op == opdefs::OpId::kAssignAddVariableOp) v.assign_add(delta);
            if (op == opdefs::OpId::kAssignSubVariableOp) v.assign_sub(delta);
            if (op == opdefs::OpId::kAssignVariableOp) v.assign(delta);
            // The value read first must not have changed (copy on write).
            return eagle::concat({before, v.read_value()}, 0);
          },
          exact());
    }
  }
}
