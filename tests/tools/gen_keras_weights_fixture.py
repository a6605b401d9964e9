#!/usr/bin/env python3
"""Writes tests/fixtures/keras_model.weights.h5 with Keras 3's model.save_weights.

The model of keras_weights_model.py, compiled with Adam and trained one step (so
the file holds the optimizer's group too: iterations as an int64 scalar), then
given the formula weights. Run with the venv that has TensorFlow and Keras 3:
  /work/main/.venv/bin/python tests/tools/gen_keras_weights_fixture.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_weights_model import build_model, formula_weights  # noqa: E402

import keras  # noqa: E402


def main():
    model = build_model()
    model.compile(optimizer=keras.optimizers.Adam(0.001),
                  loss="sparse_categorical_crossentropy")
    model.train_on_batch(np.ones((4, 6, 6, 1), np.float32), np.array([0, 1, 0, 1]))
    for layer, values in formula_weights(model):
        layer.set_weights(values)
    out = os.path.join(os.path.dirname(__file__), "..", "fixtures", "keras_model.weights.h5")
    model.save_weights(out)
    print(f"wrote {os.path.normpath(out)} ({os.path.getsize(out)} bytes) with Keras "
          f"{keras.__version__}")


if __name__ == "__main__":
    main()
