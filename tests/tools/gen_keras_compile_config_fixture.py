#!/usr/bin/env python3
"""Writes the fixtures of tests/keras_compile_config_test.cpp:

  tests/fixtures/keras_configs.json     keras.saving.serialize_keras_object of optimizers (every
                                        class, options, each schedule), losses and metrics, and
                                        a compiled model's get_compile_config(), by case name
  tests/fixtures/compiled_model.keras   model.save of the optimizer-state model
                                        (gen_keras_optimizer_state_fixture.py) compiled with
                                        Adam(0.01), "mse" and ["mae"], after 3 train_on_batch
                                        steps; keras_configs.json's "after_fourth_step" holds its
                                        weights after one more step

Optimizers are given their default names explicitly: Keras numbers a second optimizer of a
class ("adam_1"), eagle does not.

Run with the venv that has TensorFlow and Keras 3:
  /opt/keras3-venv/bin/python tests/tools/gen_keras_compile_config_fixture.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gen_keras_optimizer_state_fixture import build_model  # noqa: E402
from keras_cnn_model import formula_values  # noqa: E402

import keras  # noqa: E402

O = keras.optimizers
S = keras.optimizers.schedules
L = keras.losses
M = keras.metrics


def optimizers():
    return {
        "sgd": O.SGD(name="sgd"),
        "adam": O.Adam(name="adam"),
        "adamw": O.AdamW(name="adam_w"),
        "rmsprop": O.RMSprop(name="rm_sprop"),
        "adagrad": O.Adagrad(name="adagrad"),
        "adamax": O.Adamax(name="adamax"),
        "nadam": O.Nadam(name="nadam"),
        "adadelta": O.Adadelta(name="adadelta"),
        "lion": O.Lion(name="lion"),
        "lamb": O.Lamb(name="lamb"),
        "adam_options": O.Adam(0.01, beta_1=0.8, epsilon=1e-5, amsgrad=True, clipnorm=1.0,
                               use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=10,
                               gradient_accumulation_steps=4, weight_decay=0.01, name="adam"),
        "sgd_momentum": O.SGD(0.1, momentum=0.9, nesterov=True, global_clipnorm=2.0, name="sgd"),
        "rmsprop_centered": O.RMSprop(0.005, rho=0.8, momentum=0.5, centered=True, clipvalue=0.5,
                                      name="rm_sprop"),
        "adamw_decay": O.AdamW(weight_decay=0.1, name="adam_w"),
        "exponential": O.Adam(S.ExponentialDecay(0.1, 10, 0.9, staircase=True), name="adam"),
        "piecewise": O.SGD(S.PiecewiseConstantDecay([10, 20], [0.1, 0.01, 0.001]), name="sgd"),
        "inverse_time": O.SGD(S.InverseTimeDecay(0.1, 10, 0.5), name="sgd"),
        "polynomial": O.SGD(S.PolynomialDecay(0.1, 100, 0.001, power=2.0, cycle=True),
                            name="sgd"),
        "cosine": O.Adam(S.CosineDecay(0.0, 100, alpha=0.1, warmup_target=0.1, warmup_steps=10),
                         name="adam"),
        "cosine_restarts": O.Adam(S.CosineDecayRestarts(0.1, 100, t_mul=1.5, m_mul=0.9),
                                  name="adam"),
    }


def losses():
    return {
        "sparse_logits": L.SparseCategoricalCrossentropy(from_logits=True),
        "categorical": L.CategoricalCrossentropy(),
        "binary_sum": L.BinaryCrossentropy(from_logits=True, reduction="sum"),
        "mse": L.MeanSquaredError(),
        "mae_none": L.MeanAbsoluteError(reduction="none"),
    }


def metrics():
    return {
        "sparse_accuracy": M.SparseCategoricalAccuracy(),
        "mean": M.Mean(name="m"),
        "categorical_accuracy": M.CategoricalAccuracy(),
        "binary_accuracy": M.BinaryAccuracy(threshold=0.7),
    }


def main():
    fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
    serialize = keras.saving.serialize_keras_object
    out = {
        "keras_version": keras.__version__,
        "optimizers": {k: serialize(v) for k, v in optimizers().items()},
        "losses": {k: serialize(v) for k, v in losses().items()},
        "metrics": {k: serialize(v) for k, v in metrics().items()},
    }
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizer=O.Adam(0.01, name="adam"),
                  loss=L.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", M.SparseCategoricalAccuracy(name="acc2")])
    out["compile_config"] = model.get_compile_config()

    model = build_model()
    model.compile(optimizer=O.Adam(0.01), loss="mse", metrics=["mae"])
    x = formula_values((8, 4))
    y = formula_values((8, 2))
    for _ in range(3):
        model.train_on_batch(x, y)
    path = os.path.join(fixtures, "compiled_model.keras")
    model.save(path)
    model.train_on_batch(x, y)
    out["after_fourth_step"] = [w.numpy().ravel().tolist() for w in model.weights]
    with open(os.path.join(fixtures, "keras_configs.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote keras_configs.json and {os.path.normpath(path)} with Keras {keras.__version__}")


if __name__ == "__main__":
    main()
