// The whole public API.
#pragma once

#include "eagle/config.hpp"
#include "eagle/custom_gradient.hpp"
#include "eagle/debugging.hpp"
#include "eagle/device_name.hpp"
#include "eagle/dtype.hpp"
#include "eagle/errors.hpp"
#include "eagle/format.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/half.hpp"
#include "eagle/initializers.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/random_seed.hpp"
#include "eagle/scope.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"
#include "eagle/variable_creator.hpp"
// eagle::data: IDX files, Fashion-MNIST, tf.data-style datasets.
#include "eagle/data.hpp"
// Keras 2's layers, models and fit (eagle::keras).
#include "eagle/keras.hpp"
// NN ops (eagle::nn).
#include "eagle/ops/nn_activations.hpp"
#include "eagle/ops/nn_losses.hpp"
#include "eagle/ops/nn_normalization.hpp"
// Training on several devices (eagle::distribute).
#include "eagle/distribute.hpp"
// Checkpoints of variables, models and optimizers (eagle::train).
#include "eagle/train/checkpoint.hpp"
