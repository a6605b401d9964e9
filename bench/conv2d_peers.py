#!/usr/bin/env python3
"""TensorFlow-CPU's times for bench/conv2d.cpp's cases (tf.raw_ops Conv2D and both backprops,
NHWC float32), one JSON line each: median, min, max of --reps runs after a warm-up.

    .venv/bin/python bench/conv2d_peers.py [--reps N]
"""
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 10
CASES = [("seed conv1 28x28x1->32", 128, 28, 28, 1, 3, 32),
         ("seed conv2 13x13x32->64", 128, 13, 13, 32, 3, 64),
         ("seed conv3 5x5x64->64", 128, 5, 5, 64, 3, 64),
         ("resnet 56x56x64->64", 128, 56, 56, 64, 3, 64)]
for name, n, h, w, c, k, o in CASES:
    x = tf.random.uniform([n, h, w, c], -1, 1)
    f = tf.random.uniform([k, k, c, o], -1, 1)
    y = tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding="VALID")
    dy = tf.random.uniform(y.shape, -1, 1)
    ops = {
        "Conv2D": lambda: tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1],
                                            padding="VALID"),
        "Conv2DBackpropInput": lambda: tf.raw_ops.Conv2DBackpropInput(
            input_sizes=x.shape, filter=f, out_backprop=dy, strides=[1, 1, 1, 1],
            padding="VALID"),
        "Conv2DBackpropFilter": lambda: tf.raw_ops.Conv2DBackpropFilter(
            input=x, filter_sizes=f.shape, out_backprop=dy, strides=[1, 1, 1, 1],
            padding="VALID"),
    }
    for op, run in ops.items():
        run().numpy()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            run().numpy()
            times.append(time.perf_counter() - t0)
        times.sort()
        print(json.dumps({"bench": "conv2d", "peer": "tensorflow-cpu " + tf.__version__,
                          "case": name, "op": op, "median_ms": 1e3 * times[len(times) // 2],
                          "min_ms": 1e3 * times[0], "max_ms": 1e3 * times[-1], "reps": reps}))
        sys.stdout.flush()
