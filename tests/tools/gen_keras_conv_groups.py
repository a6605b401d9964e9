#!/usr/bin/env python3
"""Prints what Keras 3 (TensorFlow backend) computes for Conv2D(4, 2, groups=2, padding="same")
on the input and weights of tests/keras_layers_test.cpp's "Conv2D with groups=2" case, its
parameter counts and its error texts for groups that do not divide; the test holds eagle to
these numbers (pasted there: every value is a multiple of 1/32, exact in float32).

Usage: .venv/bin/python tests/tools/gen_keras_conv_groups.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402


def values(n, mul, mod, scale):
    return ((np.arange(n) * mul) % mod - mod // 2).astype(np.float32) / scale


x = values(48, 7, 11, 4).reshape(1, 3, 4, 4)
layer = keras.layers.Conv2D(4, 2, groups=2, padding="same")
layer.build((None, 3, 4, 4))
print("kernel shape", tuple(layer.kernel.shape), "params", layer.count_params())
layer.set_weights([values(32, 5, 9, 8).reshape(2, 2, 2, 4),
                   np.array([0.5, -0.25, 0.125, -1], np.float32)])
print("y", layer(x).numpy().reshape(-1).tolist())
model = keras.Sequential([keras.Input((3, 4, 4)), keras.layers.Conv2D(6, 3, groups=2)])
print("Sequential params", model.count_params())
for make in (lambda: keras.layers.Conv2D(5, 3, groups=2),
             lambda: keras.layers.Conv2D(4, 3, groups=0),
             lambda: keras.Sequential([keras.Input((5, 5, 3)), keras.layers.Conv2D(4, 3, groups=2)])):
    try:
        make()
    except ValueError as e:
        print("ValueError:", e)
