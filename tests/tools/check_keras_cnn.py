#!/usr/bin/env python3
"""Checks in Keras 3 the seed CNN weights eagle trained and saved (eagle -> Keras).

tests/keras_cnn_interchange_test.cpp loads Keras's fixture weights, trains three Adam steps in
eagle and, when EAGLE_KERAS_CNN_OUT is set, writes eagle_seed_cnn.weights.h5 and eagle's
predictions for the formula images (eagle_seed_cnn_predictions.json) into that folder:
  EAGLE_KERAS_CNN_OUT=/tmp/cnn build/default/tests/keras_cnn_interchange_test
  /work/main/.venv/bin/python tests/tools/check_keras_cnn.py /tmp/cnn
This loads eagle's file into the Keras model and compares Keras's predictions with eagle's;
exits 1 when any differs by more than 1e-5 or the file does not load.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import build_model, formula_images  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} DIR (EAGLE_KERAS_CNN_OUT of the test's run)")
    weights = os.path.join(sys.argv[1], "eagle_seed_cnn.weights.h5")
    with open(os.path.join(sys.argv[1], "eagle_seed_cnn_predictions.json")) as f:
        expected = np.array(json.load(f)["predictions"], np.float32)
    model = build_model()
    model.load_weights(weights)
    got = model.predict(formula_images(), verbose=0)
    difference = float(np.max(np.abs(got - expected)))
    if got.shape != expected.shape or difference > 1e-5:
        sys.exit(f"FAIL: Keras's predictions differ from eagle's by {difference}")
    print(f"OK: Keras loaded {weights}: its predictions of {got.shape[0]} images equal eagle's "
          f"within {difference:.3g} (tolerance 1e-5)")


if __name__ == "__main__":
    main()
