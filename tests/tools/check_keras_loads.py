#!/usr/bin/env python3
"""Checks that Keras 3 loads a .weights.h5 file that eagle wrote.

tests/keras_weights_file_test.cpp writes the model of keras_weights_model.py with
the formula weights to $EAGLE_KERAS_WEIGHTS_OUT when that variable is set:
  EAGLE_KERAS_WEIGHTS_OUT=/tmp/eagle.weights.h5 build/default/tests/keras_weights_file_test
  /work/main/.venv/bin/python tests/tools/check_keras_loads.py /tmp/eagle.weights.h5
This loads the file into the same Keras model and compares every weight with the
formula exactly; exits 1 on any difference or loading error.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_weights_model import build_model, formula_weights  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} FILE.weights.h5")
    model = build_model()
    model.load_weights(sys.argv[1])
    count = 0
    for layer, expected in formula_weights(model):
        for w, e in zip(layer.get_weights(), expected):
            if w.shape != e.shape or not np.array_equal(w, e):
                sys.exit(f"FAIL: {layer.name} weight differs: {w} vs {e}")
            count += 1
    x = np.linspace(0, 1, 36, dtype=np.float32).reshape(1, 6, 6, 1)
    print(f"OK: Keras loaded {sys.argv[1]}: {count} weights equal the formula; "
          f"prediction {model.predict(x, verbose=0)[0]}")


if __name__ == "__main__":
    main()
