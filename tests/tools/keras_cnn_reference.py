"""The seed CNN in Keras (TensorFlow-CPU) with samples/fashion_mnist_cnn's settings, for the
accuracy eagle's sample is compared with (docs/performance.md).

    .venv/bin/python tests/tools/keras_cnn_reference.py [--epochs 1] [--batch-size 32]
        [--train-size 10000] [--test-size 10000] [--seed 1]

Reads Debian's dataset-fashion-mnist files (as the sample does), prints Keras's bars and
`Test loss: ..., test accuracy: ...`. With --load-weights FILE (a .weights.h5 the eagle sample
saved) it trains nothing: it loads eagle's weights into the Keras model and evaluates them, so
the two libraries' test accuracies can be compared for the same weights.
"""
import argparse
import gzip
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=1)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--train-size", type=int, default=10000)
p.add_argument("--test-size", type=int, default=10000)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--learning-rate", type=float, default=0.001)
p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
p.add_argument("--load-weights", default="")
a = p.parse_args()


def idx(name):
    with gzip.open(os.path.join(a.data_dir, name)) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


x_train = (idx("train-images-idx3-ubyte.gz")[:a.train_size] / 255.0).astype("float32")[..., None]
y_train = idx("train-labels-idx1-ubyte.gz")[:a.train_size].astype("int32")
x_test = (idx("t10k-images-idx3-ubyte.gz")[:a.test_size] / 255.0).astype("float32")[..., None]
y_test = idx("t10k-labels-idx1-ubyte.gz")[:a.test_size].astype("int32")

keras.utils.set_random_seed(a.seed)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(32, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(64, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(64, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer=keras.optimizers.Adam(a.learning_rate), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
if a.load_weights:
    model.load_weights(a.load_weights)
else:
    model.fit(x_train, y_train, batch_size=a.batch_size, epochs=a.epochs, verbose=2)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"Test loss: {loss:.4f}, test accuracy: {accuracy:.4f}")
