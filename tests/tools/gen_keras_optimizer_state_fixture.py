#!/usr/bin/env python3
"""Writes the optimizer-state fixtures of tests/keras_optimizer_state_test.cpp:

  tests/fixtures/optimizer_state_<name>.weights.h5   Keras 3's model.save_weights of a compiled
                                                     Dense model after 3 train_on_batch steps:
                                                     the layers and the optimizer's variables
                                                     (group "optimizer")

The model is Dense(3, relu, name="hidden") -> Dense(2, name="out") on 4 inputs, its initial
weights formula_values of their shapes minus 0.5, trained with "mse" on x = formula_values((8, 4))
and y = formula_values((8, 2)) by Adam(0.01) and Nadam(0.01). eagle trains the same model and
compares its optimizer.variables() with the file, then loads the file into a fresh model.

Run with the venv that has TensorFlow and Keras 3:
  /opt/keras3-venv/bin/python tests/tools/gen_keras_optimizer_state_fixture.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import formula_values  # noqa: E402

import keras  # noqa: E402

OPTIMIZERS = {
    "adam": lambda: keras.optimizers.Adam(0.01),
    "nadam": lambda: keras.optimizers.Nadam(0.01),
}


def build_model():
    model = keras.Sequential([
        keras.Input((4,)),
        keras.layers.Dense(3, activation="relu", name="hidden"),
        keras.layers.Dense(2, name="out"),
    ])
    for layer in model.layers:
        layer.set_weights([formula_values(w.shape) - 0.5 for w in layer.get_weights()])
    return model


def main():
    fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
    x = formula_values((8, 4))
    y = formula_values((8, 2))
    for name, make in OPTIMIZERS.items():
        model = build_model()
        model.compile(optimizer=make(), loss="mse")
        for _ in range(3):
            model.train_on_batch(x, y)
        path = os.path.join(fixtures, f"optimizer_state_{name}.weights.h5")
        model.save_weights(path)
        print(f"wrote {os.path.normpath(path)}: {len(model.optimizer.variables)} optimizer "
              f"variables, Keras {keras.__version__}")


if __name__ == "__main__":
    main()
