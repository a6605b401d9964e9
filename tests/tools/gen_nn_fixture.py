#!/usr/bin/env python3
"""Writes tests/fixtures/tf_nn_conv.json: what TensorFlow computes for conv2d, max_pool2d and
avg_pool2d, forward and backward, and the errors it raises for bad calls, so
tests/nn_conv_test.cpp holds eagle to TensorFlow without CI needing it.

Values are computed in float64 from inputs that are exact float32 numbers (pattern()), so one case checks
both dtypes: float64 tightly, float32 at 1e-5 relative. Each case records the forward inputs,
the upstream gradient "dy" and the gradients tf.GradientTape gives for sum(y * dy), which are
Conv2DBackpropInput / Conv2DBackpropFilter / MaxPoolGrad / AvgPoolGrad of dy.

Messages are normalised as gen_tf_fixture.py does: TensorFlow's "{{function_node ...}}"
decoration and the trailing " name: " are dropped.

Usage (tensorflow-cpu from bench/requirements-cpu.txt):
    .venv/bin/python tests/tools/gen_nn_fixture.py > tests/fixtures/tf_nn_conv.json
"""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# TensorFlow's own kernels: with oneDNN on, a malformed Conv2D aborts the process inside
# _MklConv2D instead of raising (seen with tensorflow-cpu 2.21).
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402



def pattern(shape, salt, ties=False):
    """The inputs, which tests/nn_conv_test.cpp computes the same way: element i of a tensor is
    ((i * 7919 + salt * 104729) % 2049 - 1024) / 1024, exact in float32 and float64 (ties: the
    same modulo 3, few distinct values, many equal maxima in a window)."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    k = (i * 7919 + salt * 104729) % (3 if ties else 2049)
    a = k.astype(np.float64) if ties else (k - 1024).astype(np.float64) / 1024
    return a.reshape(shape)


def values(a):
    return [float("%.10g" % v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def normalise_message(text):
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", text)
    return re.sub(r"\s*name:\s*[\w/]*$", "", text.strip())


CONV = []
POOL = []
ERRORS = []


def spread_filter(f, dilations):
    """The dilated filter as an undilated one: zeros between the taps."""
    dh, dw = dilations
    spread = np.zeros([(f.shape[0] - 1) * dh + 1, (f.shape[1] - 1) * dw + 1, *f.shape[2:]])
    spread[::dh, ::dw] = f
    return spread


def conv_case(name, x_shape, f_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    x, f = pattern(x_shape, 1), pattern(f_shape, 2)
    # TensorFlow's float64 CPU kernels have no dilated backprops ("Current CPU implementations do
    # not yet support dilation rates larger than 1"): a dilated filter is the undilated
    # convolution with zeros between the taps, whose gradient is read back at the taps.
    dh, dw = dilations
    xt, ft = tf.constant(x), tf.constant(spread_filter(f, dilations))
    with tf.GradientTape() as tape:
        tape.watch([xt, ft])
        y = tf.nn.conv2d(xt, ft, strides=list(strides), padding=padding)
        dy = tf.constant(pattern(y.shape.as_list(), 3))
        loss = tf.reduce_sum(y * dy)
    dx, df = tape.gradient(loss, [xt, ft])
    df = df.numpy()[::dh, ::dw]
    if dilations != (1, 1):  # the spread filter agrees with TensorFlow's own dilated forward
        direct = tf.nn.conv2d(xt, tf.constant(f), strides=list(strides), padding=padding,
                              dilations=list(dilations))
        assert np.allclose(direct.numpy(), y.numpy(), rtol=1e-12, atol=1e-12), name
    CONV.append({"name": name, "strides": list(strides), "padding": padding,
                 "dilations": list(dilations),
                 "x_shape": list(x_shape), "filter_shape": list(f_shape),
                 "y_shape": y.shape.as_list(), "y": values(y),
                 "dx": values(dx), "dfilter": values(df)})


def grouped_conv_case(name, x_shape, f_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    """A grouped convolution (input depth a multiple of the filter's). TensorFlow's own CPU
    kernels compute the grouped forward but not its backprops ("Gradients for grouped
    convolutions are not supported on CPU"; only its oneDNN float32 kernels have them), so the
    values and gradients come from the per-group composition (each group's input channels
    convolved with its filters, the results concatenated), which must agree with TensorFlow's
    direct grouped Conv2D. Dilations: the spread filter of conv_case."""
    x, f = pattern(x_shape, 1), pattern(f_shape, 2)
    groups = x_shape[3] // f_shape[2]
    cg, og = f_shape[2], f_shape[3] // groups
    dh, dw = dilations
    xt, ft = tf.constant(x), tf.constant(spread_filter(f, dilations))
    with tf.GradientTape() as tape:
        tape.watch([xt, ft])
        y = tf.concat([tf.nn.conv2d(xt[..., g * cg:(g + 1) * cg], ft[..., g * og:(g + 1) * og],
                                    strides=list(strides), padding=padding)
                       for g in range(groups)], axis=3)
        dy = tf.constant(pattern(y.shape.as_list(), 3))
        loss = tf.reduce_sum(y * dy)
    dx, df = tape.gradient(loss, [xt, ft])
    df = df.numpy()[::dh, ::dw]
    direct = tf.raw_ops.Conv2D(input=xt, filter=tf.constant(f), strides=[1, *strides, 1],
                               padding=padding, dilations=[1, *dilations, 1])
    assert np.allclose(direct.numpy(), y.numpy(), rtol=1e-12, atol=1e-12), name
    CONV.append({"name": name, "strides": list(strides), "padding": padding,
                 "dilations": list(dilations),
                 "x_shape": list(x_shape), "filter_shape": list(f_shape),
                 "y_shape": y.shape.as_list(), "y": values(y),
                 "dx": values(dx), "dfilter": values(df)})


INT_POOL = []


def int_max_pool_case(name, dtype, x_shape, ksize, strides, padding):
    """MaxPool of an integer tensor (TensorFlow's CPU kernel): the values are the pattern scaled
    to integers, all negative in places, so SAME's padding (TensorFlow pads with the lowest value)
    must never win a window."""
    x = (pattern(x_shape, 1) * 1024).astype(np.int64) - 900
    if dtype == "int64":
        x = x * 4000000000  # beyond int32 and float's 24 bits
    y = tf.nn.max_pool2d(tf.constant(x, dtype=dtype), ksize=list(ksize), strides=list(strides),
                         padding=padding)
    INT_POOL.append({"name": name, "dtype": dtype, "ksize": list(ksize),
                     "strides": list(strides), "padding": padding, "x_shape": list(x_shape),
                     "x": [int(v) for v in x.reshape(-1)], "y_shape": y.shape.as_list(),
                     "y": [int(v) for v in y.numpy().reshape(-1)]})


def pool_case(name, x_shape, ksize, strides, padding, ties=False):
    x = pattern(x_shape, 1, ties)
    xt = tf.constant(x)
    case = {"name": name, "ksize": list(ksize), "strides": list(strides), "padding": padding,
            "x_shape": list(x_shape), "ties": ties}
    for kind, fn in (("max", tf.nn.max_pool2d), ("avg", tf.nn.avg_pool2d)):
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = fn(xt, ksize=list(ksize), strides=list(strides), padding=padding)
            dy = tf.constant(pattern(y.shape.as_list(), 3))
            loss = tf.reduce_sum(y * dy)
        dx = tape.gradient(loss, xt)
        case["y_shape"] = y.shape.as_list()
        case[kind] = {"y": values(y), "dx": values(dx)}
    POOL.append(case)


def error_case(name, op, run, **call):
    try:
        run()
    except tf.errors.OpError as e:
        ERRORS.append({"name": name, "op": op, **call, "error": type(e).__name__,
                       "message": normalise_message(str(e))})
        return
    raise SystemExit(f"error case {name!r} did not raise")


# The seed CNN's three convolutions (issue 17), at small batch.
conv_case("seed conv1 28x28x1 to 32", [2, 28, 28, 1], [3, 3, 1, 32])
conv_case("seed conv2 13x13x32 to 64", [1, 13, 13, 32], [3, 3, 32, 64])
conv_case("seed conv3 5x5x64 to 64", [1, 5, 5, 64], [3, 3, 64, 64])
conv_case("stride 2 SAME", [2, 9, 9, 3], [3, 3, 3, 4], (2, 2), "SAME")
conv_case("stride 2 VALID odd sizes", [2, 9, 8, 3], [3, 2, 3, 5], (2, 2), "VALID")
conv_case("even kernel SAME pads more after", [1, 7, 6, 2], [4, 4, 2, 3], (1, 1), "SAME")
conv_case("strides 3x2 SAME", [1, 10, 7, 2], [3, 3, 2, 2], (3, 2), "SAME")
conv_case("dilation 2 VALID", [2, 11, 10, 3], [3, 3, 3, 4], (1, 1), "VALID", (2, 2))
conv_case("dilations 2x3 SAME", [1, 8, 9, 2], [3, 2, 2, 3], (1, 1), "SAME", (2, 3))
conv_case("dilation 2 stride 2 SAME", [1, 12, 11, 2], [3, 3, 2, 2], (2, 2), "SAME", (2, 2))
conv_case("odd 5x3 kernel strides 1x2", [3, 7, 5, 5], [5, 3, 5, 7], (1, 2), "VALID")
conv_case("1x1 kernel stride 2 SAME", [2, 4, 4, 3], [1, 1, 3, 2], (2, 2), "SAME")
conv_case("kernel larger than input SAME", [1, 3, 2, 2], [5, 4, 2, 2], (1, 1), "SAME")
conv_case("stride larger than kernel VALID", [1, 9, 9, 1], [2, 2, 1, 2], (3, 4), "VALID")

# Grouped convolutions (Keras Conv2D(groups=...)).
grouped_conv_case("grouped 2 groups 3x3 SAME", [2, 6, 5, 6], [3, 3, 3, 4], (1, 1), "SAME")
grouped_conv_case("grouped 3 groups stride 2 VALID", [1, 9, 8, 6], [3, 2, 2, 6], (2, 2), "VALID")
grouped_conv_case("grouped 4 groups 1x1", [2, 4, 4, 4], [1, 1, 1, 8])
grouped_conv_case("grouped even kernel SAME pads more after", [1, 7, 6, 4], [4, 4, 2, 6], (1, 1),
                  "SAME")
grouped_conv_case("grouped dilation 2 SAME", [1, 8, 9, 4], [3, 3, 2, 4], (1, 1), "SAME", (2, 2))
grouped_conv_case("depthwise-like 3 groups of 1 channel", [1, 6, 6, 3], [3, 3, 1, 3], (1, 2),
                  "SAME")

int_max_pool_case("int32 2x2 SAME of 5x5 pads after", "int32", [2, 5, 5, 3], (2, 2), (2, 2),
                  "SAME")
int_max_pool_case("int32 3x3 stride 1 SAME", "int32", [1, 4, 6, 2], (3, 3), (1, 1), "SAME")
int_max_pool_case("int32 3x2 strides 2x1 VALID", "int32", [1, 7, 5, 2], (3, 2), (2, 1), "VALID")
int_max_pool_case("int64 3x3 stride 2 SAME", "int64", [1, 7, 7, 2], (3, 3), (2, 2), "SAME")
int_max_pool_case("int64 2x2 VALID", "int64", [2, 4, 5, 1], (2, 2), (2, 2), "VALID")

pool_case("seed pool 2x2 of 26x26", [2, 26, 26, 4], (2, 2), (2, 2), "VALID")
pool_case("2x2 VALID of odd 11x11 drops the edge", [2, 11, 11, 3], (2, 2), (2, 2), "VALID")
pool_case("3x3 stride 2 SAME", [1, 7, 7, 2], (3, 3), (2, 2), "SAME")
pool_case("2x2 SAME of 6x5 pads after", [1, 6, 5, 3], (2, 2), (2, 2), "SAME")
pool_case("3x3 stride 1 SAME overlapping", [1, 8, 8, 2], (3, 3), (1, 1), "SAME")
pool_case("3x2 strides 2x1 VALID", [2, 9, 7, 2], (3, 2), (2, 1), "VALID")
pool_case("ties 3x3 stride 1 VALID", [1, 7, 7, 2], (3, 3), (1, 1), "VALID", ties=True)
pool_case("ties 2x2 stride 2 SAME", [2, 5, 5, 3], (2, 2), (2, 2), "SAME", ties=True)
pool_case("ties 3x3 stride 2 SAME", [1, 9, 8, 2], (3, 3), (2, 2), "SAME", ties=True)


def conv_error(name, x_shape, f_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    error_case(name, "conv2d",
               lambda: tf.raw_ops.Conv2D(input=tf.zeros(x_shape), filter=tf.zeros(f_shape),
                                         strides=[1, *strides, 1], padding=padding,
                                         dilations=[1, *dilations, 1]),
               x_shape=list(x_shape), filter_shape=list(f_shape), strides=list(strides),
               padding=padding, dilations=list(dilations))


def pool_error(name, kind, x_shape, ksize, strides, padding="VALID"):
    raw = tf.raw_ops.MaxPool if kind == "max_pool2d" else tf.raw_ops.AvgPool
    key = "input" if kind == "max_pool2d" else "value"
    error_case(name, kind,
               lambda: raw(**{key: tf.zeros(x_shape)}, ksize=[1, *ksize, 1],
                           strides=[1, *strides, 1], padding=padding),
               x_shape=list(x_shape), ksize=list(ksize), strides=list(strides), padding=padding)


conv_error("conv2d input of rank 3", [5, 5, 2], [3, 3, 2, 4])
conv_error("conv2d input of rank 5", [1, 1, 5, 5, 2], [3, 3, 2, 4])
conv_error("conv2d filter of rank 3", [1, 5, 5, 2], [3, 3, 2])
conv_error("conv2d channel mismatch", [1, 5, 5, 2], [3, 3, 3, 4])
conv_error("conv2d filter depth 0", [1, 5, 5, 0], [3, 3, 0, 4])
conv_error("conv2d output depth not a multiple of the groups", [1, 5, 5, 6], [3, 3, 3, 5])
conv_error("conv2d output depth not a multiple of 3 groups", [1, 5, 5, 6], [3, 3, 2, 4])
conv_error("conv2d filter with no elements", [1, 5, 5, 2], [0, 3, 2, 4])
conv_error("conv2d stride 0", [1, 5, 5, 2], [3, 3, 2, 4], (0, 1))
conv_error("conv2d negative stride", [1, 5, 5, 2], [3, 3, 2, 4], (1, -1))
conv_error("conv2d dilation 0", [1, 5, 5, 2], [3, 3, 2, 4], (1, 1), "VALID", (0, 1))
conv_error("conv2d dilated kernel larger than input VALID", [1, 5, 5, 2], [3, 3, 2, 4],
           (1, 1), "VALID", (3, 1))
conv_error("conv2d kernel larger than input VALID stride 2", [1, 5, 5, 2], [9, 3, 2, 4], (2, 1))
pool_error("max_pool2d input of rank 3", "max_pool2d", [5, 5, 2], (2, 2), (2, 2))
pool_error("max_pool2d input of rank 5", "max_pool2d", [1, 1, 5, 5, 2], (2, 2), (2, 2))
pool_error("max_pool2d ksize 0", "max_pool2d", [1, 5, 5, 2], (0, 2), (2, 2))
pool_error("max_pool2d stride 0", "max_pool2d", [1, 5, 5, 2], (2, 2), (2, 0))
pool_error("max_pool2d window larger than input VALID", "max_pool2d", [1, 5, 5, 2], (7, 2),
           (1, 1))
pool_error("avg_pool2d input of rank 3", "avg_pool2d", [5, 5, 2], (2, 2), (2, 2))
pool_error("avg_pool2d ksize 0", "avg_pool2d", [1, 5, 5, 2], (2, 0), (2, 2))
pool_error("avg_pool2d stride 0", "avg_pool2d", [1, 5, 5, 2], (2, 2), (0, 2))
pool_error("avg_pool2d window larger than input VALID", "avg_pool2d", [1, 5, 5, 2], (2, 7),
           (1, 1))

json.dump({"generator": "tests/tools/gen_nn_fixture.py", "tensorflow": tf.__version__,
           "conv2d": CONV, "pool2d": POOL, "int_max_pool2d": INT_POOL, "errors": ERRORS}, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
