"""The seed CNN (samples/fashion_mnist_cnn.cpp) in Keras 3 and the inputs its interchange fixture
predicts, shared by gen_keras_cnn_fixture.py and check_keras_cnn.py.

The inputs follow a formula tests/keras_cnn_interchange_test.cpp computes too, so the fixture
stores no images: image n, pixel p (flat index i = n * 784 + p) is
((i * 1103515245 + 12345) mod 2^31 >> 23) / 255, a float32 in [0, 1].
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

NUM_IMAGES = 8


def build_model():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ])


def formula_values(shape):
    """The formula's float32 values in `shape` (flat index i from 0)."""
    i = np.arange(int(np.prod(shape)), dtype=np.uint64)
    v = ((i * np.uint64(1103515245) + np.uint64(12345)) % np.uint64(2**31)) >> np.uint64(23)
    return (v.astype(np.float64) / 255.0).astype(np.float32).reshape(shape)


def formula_images(n=NUM_IMAGES):
    return formula_values((n, 28, 28, 1))
