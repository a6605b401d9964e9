// eagle::data: IDX files, Fashion-MNIST and tf.data-style datasets.
#pragma once

#include "eagle/data/dataset.hpp"
#include "eagle/data/fashion_mnist.hpp"
#include "eagle/data/idx.hpp"
