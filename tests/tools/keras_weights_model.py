"""The small Keras 3 model that gen_keras_weights_fixture.py and check_keras_loads.py share.

Its weights follow a formula of exact float32 values (multiples of 1/8), which
tests/keras_weights_file_test.cpp computes too: variable j of the k-th layer
with weights, flat element i, is ((i % 13) - 6) / 8 + j + k / 4.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402


def build_model():
    keras.utils.set_random_seed(0)
    return keras.Sequential([
        keras.Input((6, 6, 1)),
        keras.layers.Conv2D(2, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(3, activation="relu"),
        keras.layers.Dense(2, activation="softmax"),
    ])


def formula_weights(model):
    """The formula's values for every layer with weights, in model order."""
    out = []
    k = 0
    for layer in model.layers:
        weights = layer.get_weights()
        if not weights:
            continue
        values = []
        for j, w in enumerate(weights):
            i = np.arange(w.size)
            v = ((i % 13) - 6) / 8.0 + j + k / 4.0
            values.append(v.astype(np.float32).reshape(w.shape))
        out.append((layer, values))
        k += 1
    return out
