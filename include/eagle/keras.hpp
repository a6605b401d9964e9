// eagle::keras: Keras 2's layers, models and training loop (docs/guide.md, "Keras layers and
// models"), on eagle's variables, gradient tapes, optimizers and initializers.
#pragma once

#include "eagle/keras/activations.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/callbacks.hpp"
#include "eagle/keras/conv_layers.hpp"
#include "eagle/keras/layer.hpp"
#include "eagle/keras/layer_config.hpp"
#include "eagle/keras/layers.hpp"
#include "eagle/keras/losses.hpp"
#include "eagle/keras/metrics.hpp"
#include "eagle/keras/models.hpp"
#include "eagle/keras/normalization.hpp"
#include "eagle/keras/progbar.hpp"
#include "eagle/keras/regularizers.hpp"
#include "eagle/keras/trainer.hpp"
#include "eagle/keras/utils.hpp"
