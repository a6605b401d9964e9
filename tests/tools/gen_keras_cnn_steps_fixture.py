#!/usr/bin/env python3
"""Writes the seed CNN's step-by-step fixture: Keras 3's gradients of three Adam steps from the
weights of tests/fixtures/seed_cnn.weights.h5, and the weights the steps end at.

A CNN's trajectory is chaotic (weights one ulp apart end 40 steps 1e-2 apart), so the test does
not replay training; it checks what is deterministic: at each step eagle's gradients at Keras's
weights against Keras's gradients (1e-5 relative), and, applying Keras's gradients with eagle's
Adam, Keras's weights after every step, bit for bit (the test reaches Keras's weights at step k
that way, so no weights but the last are stored).

Step k (0, 1, 2) trains on 32 formula images starting at flat index 100000 * (k + 1)
(keras_cnn_model.py's formula) with labels i % 10, the loss SparseCategoricalCrossentropy() of
the softmax outputs (Keras's default reduction), Adam(0.001), under tf.GradientTape with
training=True, then optimizer.apply(grads, model.trainable_variables).

Files (Keras 3 .weights.h5, each gradient stored as the weight it belongs to):
    tests/fixtures/seed_cnn_gradients_<k>.weights.h5   the gradients of step k
    tests/fixtures/seed_cnn_after_steps.weights.h5     the weights after the three steps
    tests/fixtures/seed_cnn_steps.json                 the losses, versions
Run from the repository root with the venv that has TensorFlow 2.21 and Keras 3:
    TF_ENABLE_ONEDNN_OPTS=0 /opt/keras3-venv/bin/python tests/tools/gen_keras_cnn_steps_fixture.py
"""
import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from keras_cnn_model import build_model  # noqa: E402

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

STEPS = 3
BATCH = 32


def formula_images(n, first):
    i = np.arange(n * 784, dtype=np.uint64) + np.uint64(first)
    v = ((i * np.uint64(1103515245) + np.uint64(12345)) % np.uint64(2**31)) >> np.uint64(23)
    return (v.astype(np.float64) / 255.0).astype(np.float32).reshape((n, 28, 28, 1))


def main():
    fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
    model = build_model()
    model.load_weights(os.path.join(fixtures, "seed_cnn.weights.h5"))
    optimizer = keras.optimizers.Adam(0.001)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    holder = build_model()
    losses = []
    for k in range(STEPS):
        x = formula_images(BATCH, 100000 * (k + 1))
        y = np.arange(BATCH) % 10
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        losses.append(float(loss.numpy()))
        holder.set_weights([g.numpy() for g in grads])
        holder.save_weights(os.path.join(fixtures, f"seed_cnn_gradients_{k}.weights.h5"))
        optimizer.apply(grads, model.trainable_variables)
    model.save_weights(os.path.join(fixtures, "seed_cnn_after_steps.weights.h5"))
    with open(os.path.join(fixtures, "seed_cnn_steps.json"), "w") as f:
        json.dump({"generator": "tests/tools/gen_keras_cnn_steps_fixture.py",
                   "keras_version": keras.__version__, "tensorflow_version": tf.__version__,
                   "steps": STEPS, "batch": BATCH, "losses": losses}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
