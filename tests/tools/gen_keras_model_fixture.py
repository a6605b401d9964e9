#!/usr/bin/env python3
"""Writes the .keras fixtures of tests/keras_model_saving_test.cpp:

  tests/fixtures/small_model.keras             Keras 3's model.save of keras_small_model.py's
                                               model, its weights random, BatchNormalization's
                                               moving statistics too (so inference uses them)
  tests/fixtures/small_model_predictions.json  Keras's predictions for 4 formula images
                                               (keras_cnn_model.formula_values((4, 6, 6, 1)))
  tests/fixtures/deflated.zip                  a zip Python's zipfile deflated (and one entry
                                               stored), for the zip reader

Run with the venv that has TensorFlow and Keras 3:
  /work/main/.venv/bin/python tests/tools/gen_keras_model_fixture.py
"""
import json
import os
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import formula_values  # noqa: E402
from keras_small_model import build_model  # noqa: E402

import keras  # noqa: E402


def main():
    keras.utils.set_random_seed(0)
    model = build_model()
    rng = np.random.default_rng(1)
    for layer in model.layers:
        values = [rng.normal(0, 0.5, w.shape).astype(np.float32) for w in layer.get_weights()]
        if layer.name == "norm":  # gamma, beta, moving_mean, moving_variance (positive)
            values[3] = rng.uniform(0.5, 2.0, values[3].shape).astype(np.float32)
        layer.set_weights(values)
    fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
    path = os.path.join(fixtures, "small_model.keras")
    model.save(path)
    predictions = model.predict(formula_values((4, 6, 6, 1)), verbose=0)
    with open(os.path.join(fixtures, "small_model_predictions.json"), "w") as f:
        json.dump({"keras_version": keras.__version__,
                   "predictions": [[float(v) for v in row] for row in predictions]}, f)
        f.write("\n")

    deflated = os.path.join(fixtures, "deflated.zip")
    with zipfile.ZipFile(deflated, "w") as z:
        z.writestr("text/repeated.txt", "eagle reads deflated entries. " * 40,
                   compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("stored.bin", bytes(range(256)), compress_type=zipfile.ZIP_STORED)
        z.writestr("empty.txt", b"", compress_type=zipfile.ZIP_DEFLATED)
    print(f"wrote {os.path.normpath(path)} ({os.path.getsize(path)} bytes), its predictions and "
          f"{os.path.normpath(deflated)} with Keras {keras.__version__}")


if __name__ == "__main__":
    main()
