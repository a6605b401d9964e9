#!/usr/bin/env python3
"""Writes the seed CNN interchange fixture: tests/fixtures/seed_cnn.weights.h5 and
tests/fixtures/seed_cnn_predictions.json.

The seed CNN of keras_cnn_model.py, seeded, trained three Adam steps on pseudo-random images
and labels, has its weights copied into a fresh uncompiled model (so the file holds no optimizer
state: 0.4 MB instead of 1.1 MB) and saved with Keras 3's model.save_weights. The JSON holds
Keras's predictions for the formula images. Run with the venv that has TensorFlow and Keras 3:
  /work/main/.venv/bin/python tests/tools/gen_keras_cnn_fixture.py
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import build_model, formula_images  # noqa: E402

import keras  # noqa: E402


def main():
    keras.utils.set_random_seed(0)
    model = build_model()
    model.compile(optimizer=keras.optimizers.Adam(0.001),
                  loss="sparse_categorical_crossentropy")
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.random((32, 28, 28, 1), dtype=np.float32)
        y = rng.integers(0, 10, 32)
        model.train_on_batch(x, y)
    fresh = build_model()
    fresh.set_weights(model.get_weights())

    fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
    weights = os.path.join(fixtures, "seed_cnn.weights.h5")
    fresh.save_weights(weights)
    predictions = fresh.predict(formula_images(), verbose=0)
    out = os.path.join(fixtures, "seed_cnn_predictions.json")
    with open(out, "w") as f:
        json.dump({"keras_version": keras.__version__,
                   "predictions": [[float(v) for v in row] for row in predictions]}, f)
        f.write("\n")
    print(f"wrote {os.path.normpath(weights)} ({os.path.getsize(weights)} bytes) and "
          f"{os.path.normpath(out)} with Keras {keras.__version__}")


if __name__ == "__main__":
    main()
