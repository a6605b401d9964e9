// What Model::compile and the distributed steps share (src/keras/distributed_step.cpp).
#pragma once

#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/keras/models.hpp"

namespace eagle::keras {

// Every weight of `model` is mirrored by `strategy`; otherwise InvalidArgumentError with Keras's
// text ("Variable (...) was not created in the distribution strategy scope of (...)").
void check_weights_in_scope(const Model& model, const distribute::MirroredStrategy& strategy);

}  // namespace eagle::keras
