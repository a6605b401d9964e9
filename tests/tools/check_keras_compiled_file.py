#!/usr/bin/env python3
"""Checks that Keras 3 loads a compiled .keras file eagle saved and resumes training as eagle did.

tests/keras_compile_config_test.cpp compiles the optimizer-state model with Nadam (an
ExponentialDecay schedule, use_ema), trains it 3 steps, saves it, and trains 2 more; with
EAGLE_KERAS_COMPILED_OUT set it leaves the file there (eagle_compiled.keras) with the optimizer's
variables at the save and the weights after the 2 steps (eagle_compiled.json):
  EAGLE_KERAS_COMPILED_OUT=/tmp/compiled build/default/tests/keras_compile_config_test
  /opt/keras3-venv/bin/python tests/tools/check_keras_compiled_file.py /tmp/compiled
Exits 1 when Keras's loaded optimizer state or its weights after the 2 steps differ from eagle's
by more than 1e-6 relative.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import formula_values  # noqa: E402

import keras  # noqa: E402


def worst(got, want):
    got = np.asarray(got, np.float64).ravel()
    want = np.asarray(want, np.float64).ravel()
    if got.shape != want.shape:
        sys.exit(f"FAIL: shapes differ: {got.shape} against {want.shape}")
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30), initial=0.0))


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} DIR (EAGLE_KERAS_COMPILED_OUT of the test's run)")
    model = keras.models.load_model(os.path.join(sys.argv[1], "eagle_compiled.keras"))
    with open(os.path.join(sys.argv[1], "eagle_compiled.json")) as f:
        expected = json.load(f)
    print("compile config:", json.dumps(model.get_compile_config()))
    state = [v.numpy() for v in model.optimizer.variables]
    if len(state) != len(expected["optimizer_variables"]):
        sys.exit(f"FAIL: Keras's optimizer has {len(state)} variables, eagle saved "
                 f"{len(expected['optimizer_variables'])}")
    state_difference = max(worst(a, b) for a, b in zip(state, expected["optimizer_variables"]))
    x = formula_values((8, 4))
    y = formula_values((8, 2))
    for _ in range(2):
        model.train_on_batch(x, y)
    weight_difference = max(worst(w.numpy(), e)
                            for w, e in zip(model.weights, expected["after_two_steps"]))
    if state_difference > 1e-6 or weight_difference > 1e-6:
        sys.exit(f"FAIL: optimizer state differs by {state_difference:.3g}, the weights after 2 "
                 f"steps by {weight_difference:.3g} (relative)")
    print(f"OK: Keras loaded eagle's compiled model: {len(state)} optimizer variables equal "
          f"within {state_difference:.3g}, the weights after 2 more steps within "
          f"{weight_difference:.3g} (relative; tolerance 1e-6)")


if __name__ == "__main__":
    main()
