#!/usr/bin/env python3
"""Checks that Keras 3 loads a .keras file eagle saved, and predicts what eagle predicted.

tests/keras_model_saving_test.cpp builds a model of every layer class .keras files carry (with
settings other than the defaults), trains it a step and, when EAGLE_KERAS_MODEL_OUT is set,
saves it there as eagle_model.keras with its predictions for the formula images
(eagle_model_predictions.json):
  EAGLE_KERAS_MODEL_OUT=/tmp/keras_model build/default/tests/keras_model_saving_test
  /work/main/.venv/bin/python tests/tools/check_keras_model_file.py /tmp/keras_model
This loads the file with keras.models.load_model, prints its summary, and compares Keras's
predictions with eagle's; exits 1 when any differs by more than 1e-5 or the file does not load.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import formula_values  # noqa: E402

import keras  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} DIR (EAGLE_KERAS_MODEL_OUT of the test's run)")
    path = os.path.join(sys.argv[1], "eagle_model.keras")
    with open(os.path.join(sys.argv[1], "eagle_model_predictions.json")) as f:
        expected = np.array(json.load(f)["predictions"], np.float32)
    model = keras.models.load_model(path)
    model.summary()
    x = formula_values((4,) + tuple(model.input_shape[1:]))
    got = model.predict(x, verbose=0).reshape(-1)
    difference = float(np.max(np.abs(got - expected)))
    if got.shape != expected.shape or difference > 1e-5:
        sys.exit(f"FAIL: Keras's predictions differ from eagle's by {difference}")
    print(f"OK: Keras loaded {path} ({len(model.layers)} layers); its predictions of "
          f"{x.shape[0]} images equal eagle's within {difference:.3g} (tolerance 1e-5)")


if __name__ == "__main__":
    main()
