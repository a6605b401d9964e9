"""Writes tests/fixtures/keras_training.json: what Keras computes for eagle::keras's tests.

Losses on fixed values (Keras 2's formulas: Keras 3 in the venv computes the same numbers for
every loss here but binary_crossentropy of probabilities, whose Keras 2 form adds epsilon inside
the logs, so that one is computed with Keras 2's formula in TensorFlow ops); a fixed-weight MLP's
loss, one SGD step and one Adam step with train_on_batch; and two epochs of fit without
shuffling (history and final weights).

Run: /work/main/.venv/bin/python tests/tools/gen_keras_fixture.py
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
import keras

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "keras_training.json")


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def losses():
    logits = np.array([[2.0, -1.0, 0.5], [0.1, 0.2, 0.3], [-3.0, 4.0, 1.0], [1.5, 1.5, -2.0]],
                      np.float32)
    labels = np.array([2, 0, 1, 0], np.int32)
    probs = np.array([[0.2, 0.3, 0.5], [0.0, 0.3, 0.7], [0.1, 0.8, 0.1], [0.6, 0.4, 0.0]],
                     np.float32)
    onehot = np.eye(3, dtype=np.float32)[labels]
    unnormalized = probs * np.array([[1.0], [2.0], [0.5], [1.0]], np.float32)
    bin_true = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
    bin_prob = np.array([[0.9, 0.2], [0.0, 0.4], [1.0, 0.7], [0.3, 0.6]], np.float32)
    bin_logits = np.array([[2.0, -1.0], [-0.5, 0.3], [3.0, 0.1], [-1.0, 0.4]], np.float32)
    reg_true = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]], np.float32)
    reg_pred = np.array([[1.5, 1.0], [0.0, -0.5], [2.0, 0.5], [-1.0, 1.0]], np.float32)

    L = keras.losses
    eps = 1e-7
    p = tf.clip_by_value(bin_prob, eps, 1 - eps)
    keras2_bce = -(bin_true * tf.math.log(p + eps) + (1 - bin_true) * tf.math.log(1 - p + eps))
    keras2_bce = float(tf.reduce_mean(tf.reduce_mean(keras2_bce, axis=-1)))
    softmax_out = keras.activations.softmax(tf.constant(logits))
    sigmoid_out = keras.activations.sigmoid(tf.constant(bin_logits))
    return {
        "logits": flat(logits), "labels": [int(v) for v in labels], "probs": flat(probs),
        "unnormalized": flat(unnormalized), "bin_true": flat(bin_true),
        "bin_prob": flat(bin_prob), "bin_logits": flat(bin_logits), "reg_true": flat(reg_true),
        "reg_pred": flat(reg_pred),
        "scce_logits": float(L.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)),
        "scce_probs": float(L.SparseCategoricalCrossentropy()(labels, probs)),
        "scce_softmax": float(L.SparseCategoricalCrossentropy()(labels, softmax_out)),
        "cce_logits": float(L.CategoricalCrossentropy(from_logits=True)(onehot, logits)),
        "cce_unnormalized": float(L.CategoricalCrossentropy()(onehot, unnormalized)),
        "cce_softmax": float(L.CategoricalCrossentropy()(onehot, softmax_out)),
        "bce_logits": float(L.BinaryCrossentropy(from_logits=True)(bin_true, bin_logits)),
        "bce_sigmoid": float(L.BinaryCrossentropy()(bin_true, sigmoid_out)),
        "bce_probs_keras2": keras2_bce,
        "mse": float(L.MeanSquaredError()(reg_true, reg_pred)),
        "mae": float(L.MeanAbsoluteError()(reg_true, reg_pred)),
    }


def mlp(rng):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    weights = [rng.uniform(-1, 1, w.shape).astype(np.float32) for w in model.get_weights()]
    model.set_weights(weights)
    return model, weights


def training():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (6, 3)).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0, 2], np.int32)
    out = {"x": flat(x), "y": [int(v) for v in y]}

    model, weights = mlp(rng)
    out["initial_weights"] = [flat(w) for w in weights]
    out["weight_shapes"] = [list(w.shape) for w in weights]
    out["predict"] = flat(model.predict(x, verbose=0))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    loss, acc = model.evaluate(x, y, verbose=0)
    out["loss"], out["accuracy"] = float(loss), float(acc)
    logs = model.train_on_batch(x, y, return_dict=True)
    out["sgd_step_loss"] = float(logs["loss"])
    out["sgd_step_weights"] = [flat(w) for w in model.get_weights()]

    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.train_on_batch(x, y)
    model.train_on_batch(x, y)
    out["adam_two_steps_weights"] = [flat(w) for w in model.get_weights()]

    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out["fit_loss"] = flat(history.history["loss"])
    out["fit_accuracy"] = flat(history.history["accuracy"])
    out["fit_weights"] = [flat(w) for w in model.get_weights()]
    return out


def main():
    fixture = {"losses": losses(), "training": training(),
               "generator": "tests/tools/gen_keras_fixture.py",
               "tensorflow": tf.__version__, "keras": keras.__version__}
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
