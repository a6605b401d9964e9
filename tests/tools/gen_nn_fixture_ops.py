#!/usr/bin/env python3
"""Writes tests/fixtures/tf_nn_ops.json: what TensorFlow computes (or raises) for eagle::nn's ops,
values and gradients, so tests/nn_fixture_test.cpp holds eagle to TensorFlow without CI needing it.

Each case names an eagle::nn function ("op"), its inputs and attributes, and either TensorFlow's
outputs and the gradients of every floating input, or TensorFlow's error (class and message,
normalised as tests/tools/gen_tf_fixture.py does). The gradients are those of
loss = sum_k sum(outputs[k] * weights(k)) over the outputs listed in "loss_outputs", with
weights(k)[i] = 1 + 0.1 * ((i + k) % 7), which the test builds the same way.

Usage (tensorflow-cpu 2.21):
    .venv/bin/python tests/tools/gen_nn_fixture_ops.py > tests/fixtures/tf_nn_ops.json
"""
import json
import math
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tf_fixture_encoding import encode, encode_value, normalise_message  # noqa: E402,F401

CASES = []


def weights(n, k):
    return np.array([1 + 0.1 * ((i + k) % 7) for i in range(n)])


# The TensorFlow call of each eagle::nn function, given the case's inputs and attributes.
def call(op, xs, a):
    if op in ("relu6", "elu", "selu", "softplus", "softsign", "l2_loss"):
        return [getattr(tf.nn, op)(xs[0])]
    if op == "leaky_relu":
        return [tf.nn.leaky_relu(xs[0], alpha=a["alpha"])]
    if op == "gelu":
        return [tf.nn.gelu(xs[0], approximate=a["approximate"])]
    if op == "silu":
        return [tf.nn.silu(xs[0], beta=a["beta"])]
    if op == "log_softmax":
        return [tf.nn.log_softmax(xs[0], axis=a["axis"])]
    if op == "bias_add":
        return [tf.nn.bias_add(xs[0], xs[1])]
    if op == "softmax_cross_entropy_with_logits":
        return [tf.nn.softmax_cross_entropy_with_logits(labels=xs[0], logits=xs[1])]
    if op == "sparse_softmax_cross_entropy_with_logits":
        return [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=xs[0], logits=xs[1])]
    if op == "one_hot":
        return [tf.one_hot(xs[0], a["depth"], on_value=tf.constant(a["on_value"], a["dtype"]),
                           off_value=tf.constant(a["off_value"], a["dtype"]), axis=a["axis"],
                           dtype=a["dtype"])]
    if op == "moments":
        return list(tf.nn.moments(xs[0], a["axes"], keepdims=a["keepdims"]))
    if op == "batch_normalization":
        return [tf.nn.batch_normalization(xs[0], xs[1], xs[2], xs[3], xs[4], a["epsilon"])]
    if op == "fused_batch_norm":
        r = tf.raw_ops.FusedBatchNormV3(
            x=xs[0], scale=xs[1], offset=xs[2],
            mean=xs[3] if len(xs) > 3 else tf.zeros([0]),
            variance=xs[4] if len(xs) > 4 else tf.zeros([0]), epsilon=a["epsilon"],
            exponential_avg_factor=a["exponential_avg_factor"], is_training=a["is_training"])
        return list(r[:5])
    raise ValueError(op)


def case(name, op, inputs, attrs=None, loss_outputs=(0,), grads=True):
    attrs = attrs or {}
    xs = [tf.constant(x) if not isinstance(x, tf.Tensor) else x for x in inputs]
    entry = {"name": name, "op": op, "inputs": [encode(x) for x in xs],
             "attrs": {k: (v.name if isinstance(v, tf.DType) else v) for k, v in attrs.items()}}
    try:
        with tf.GradientTape(persistent=True) as tape:
            watched = [x for x in xs if x.dtype.is_floating]
            for x in watched:
                tape.watch(x)
            outs = call(op, xs, attrs)
            loss = 0
            for k in loss_outputs:
                w = tf.constant(weights(int(tf.size(outs[k])), k).reshape(outs[k].shape),
                                outs[k].dtype)
                loss += tf.reduce_sum(outs[k] * w)
        entry["outputs"] = [encode(o) for o in outs]
        entry["loss_outputs"] = list(loss_outputs)
        if grads and outs[0].dtype.is_floating:
            gs = []
            for x in xs:
                g = tape.gradient(loss, x) if x.dtype.is_floating else None
                gs.append(None if g is None else encode(tf.convert_to_tensor(g)))
            entry["grads"] = gs
    except (tf.errors.OpError, ValueError) as e:
        cls = type(e).__name__ if isinstance(e, tf.errors.OpError) else "InvalidArgumentError"
        entry["error"] = {"class": cls, "message": normalise_message(e.message if hasattr(
            e, "message") else str(e))}
    CASES.append(entry)


rng = np.random.RandomState(17)
line = np.array([-20, -6.5, -3, -1, -0.5, 0, 0.25, 1, 3, 6, 6.5, 20])
for dt in (np.float32, np.float64):
    d = np.dtype(dt).name
    x = line.astype(dt)
    m = rng.uniform(-3, 3, [2, 3]).astype(dt)
    for op in ("relu6", "elu", "selu", "softplus", "softsign"):
        case(f"{op} {d}", op, [x])
        case(f"{op} {d} matrix", op, [m])
    case(f"leaky_relu {d}", "leaky_relu", [x], {"alpha": 0.2})
    case(f"leaky_relu {d} alpha 0.01", "leaky_relu", [m], {"alpha": 0.01})
    case(f"gelu {d}", "gelu", [x], {"approximate": False})
    case(f"gelu approximate {d}", "gelu", [x], {"approximate": True})
    case(f"silu {d}", "silu", [x], {"beta": 1.0})
    case(f"silu beta 0.5 {d}", "silu", [m], {"beta": 0.5})
    case(f"l2_loss {d}", "l2_loss", [m])
    case(f"log_softmax {d}", "log_softmax", [m], {"axis": -1})
    case(f"log_softmax axis 0 {d}", "log_softmax", [m], {"axis": 0})
    case(f"log_softmax large logits {d}", "log_softmax",
         [np.array([[1000, 0, -1000], [5, 5, 5]], dt)], {"axis": -1})
    case(f"log_softmax -inf {d}", "log_softmax", [np.array([[-np.inf, 0, 1]], dt)], {"axis": -1},
         grads=False)
    case(f"bias_add {d}", "bias_add", [m, np.array([1, -2, 0.5], dt)])
    case(f"bias_add rank 3 {d}", "bias_add",
         [rng.uniform(-1, 1, [2, 2, 3]).astype(dt), np.array([1, -2, 0.5], dt)])
    labels = np.array([[0.2, 0.7, 0.1], [0, 0, 1]], dt)
    case(f"softmax_cross_entropy {d}", "softmax_cross_entropy_with_logits", [labels, m])
    case(f"softmax_cross_entropy large logits {d}", "softmax_cross_entropy_with_logits",
         [labels, np.array([[1000, -1000, 0], [-500, 500, 500]], dt)])
    case(f"softmax_cross_entropy rank 3 {d}", "softmax_cross_entropy_with_logits",
         [np.full([2, 2, 3], 1 / 3, dt), rng.uniform(-2, 2, [2, 2, 3]).astype(dt)])
    # TensorFlow 2.21's gradient fails here (it reshapes the [2, 3] labels gradient to [1, 3]);
    # eagle's sums it over the broadcast axis (gradient_check_test checks it).
    case(f"softmax_cross_entropy broadcast labels {d}", "softmax_cross_entropy_with_logits",
         [np.array([[0.5, 0.5, 0]], dt), m], grads=False)
    case(f"softmax_cross_entropy rank 1 {d}", "softmax_cross_entropy_with_logits",
         [np.array([0, 1, 0], dt), np.array([1, 2, 3], dt)])
    for it in (np.int32, np.int64):
        i = np.dtype(it).name
        case(f"sparse_softmax_cross_entropy {d} {i}", "sparse_softmax_cross_entropy_with_logits",
             [np.array([2, 0], it), m])
        case(f"sparse_softmax_cross_entropy ties {d} {i}",
             "sparse_softmax_cross_entropy_with_logits",
             [np.array([1, 0], it), np.array([[1, 1, 1], [1000, 1000, -1000]], dt)])
    case(f"sparse_softmax_cross_entropy zero batch {d}",
         "sparse_softmax_cross_entropy_with_logits",
         [np.zeros([0], np.int32), np.zeros([0, 3], dt)])
    case(f"sparse_softmax_cross_entropy rank 3 {d}", "sparse_softmax_cross_entropy_with_logits",
         [np.array([[1, 2]], np.int64), rng.uniform(-2, 2, [1, 2, 3]).astype(dt)])
    case(f"moments {d}", "moments", [m], {"axes": [0], "keepdims": False}, loss_outputs=(0, 1))
    case(f"moments keepdims {d}", "moments", [rng.uniform(-2, 2, [2, 2, 3]).astype(dt)],
         {"axes": [0, 1], "keepdims": True}, loss_outputs=(0, 1))
    case(f"batch_normalization {d}", "batch_normalization",
         [m, np.array([0.1, -0.2, 0.3], dt), np.array([0.5, 1.5, 2.0], dt),
          np.array([0, 1, -1], dt), np.array([1, 2, 0.5], dt)], {"epsilon": 1e-3})

x4 = rng.uniform(-2, 2, [2, 2, 2, 3]).astype(np.float32)
scale = np.array([1, 2, 0.5], np.float32)
offset = np.array([0, 1, -1], np.float32)
pop_mean = np.array([0.1, -0.2, 0.3], np.float32)
pop_var = np.array([0.5, 1.5, 2.0], np.float32)
fbn = "fused_batch_norm"
case("fused_batch_norm training", fbn, [x4, scale, offset],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})
case("fused_batch_norm training running averages", fbn, [x4, scale, offset, pop_mean, pop_var],
     {"epsilon": 0.01, "exponential_avg_factor": 0.3, "is_training": True})
case("fused_batch_norm inference", fbn, [x4, scale, offset, pop_mean, pop_var],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": False})
case("fused_batch_norm one element per channel", fbn,
     [np.array([[[[1, 2, 3]]]], np.float32), scale, offset],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})

for it in (np.int32, np.int64):
    i = np.dtype(it).name
    idx = np.array([[1, 2], [-1, 3]], it)
    case(f"one_hot {i}", "one_hot", [idx],
         {"depth": 3, "on_value": 1.0, "off_value": 0.0, "axis": -1, "dtype": tf.float32})
    case(f"one_hot axis 0 {i}", "one_hot", [idx],
         {"depth": 3, "on_value": 5.0, "off_value": -1.0, "axis": 0, "dtype": tf.float64})
    case(f"one_hot axis 1 int32 output {i}", "one_hot", [idx],
         {"depth": 4, "on_value": 7, "off_value": 2, "axis": 1, "dtype": tf.int32})
case("one_hot depth 0", "one_hot", [np.array([0, 1], np.int32)],
     {"depth": 0, "on_value": 1.0, "off_value": 0.0, "axis": -1, "dtype": tf.float32})

# Errors.
f32 = np.float32
case("bias_add 1-D value", "bias_add", [np.ones([3], f32), np.ones([3], f32)])
case("bias_add bias size", "bias_add", [np.ones([2, 3], f32), np.ones([2], f32)])
case("bias_add 2-D bias", "bias_add", [np.ones([2, 3], f32), np.ones([1, 3], f32)])
case("bias_add dtypes", "bias_add", [np.ones([2, 3], f32), np.ones([3], np.float64)])
case("softmax_cross_entropy shapes", "softmax_cross_entropy_with_logits",
     [np.ones([2, 4], f32), np.ones([2, 3], f32)])
case("softmax_cross_entropy scalar", "softmax_cross_entropy_with_logits",
     [np.float32(1), np.float32(1)])
case("sparse_softmax_cross_entropy label too large", "sparse_softmax_cross_entropy_with_logits",
     [np.array([3, 10] + [1] * 8, np.int32), np.ones([10, 10], f32)])
case("sparse_softmax_cross_entropy negative label int64",
     "sparse_softmax_cross_entropy_with_logits", [np.array([-1, 1], np.int64), np.ones([2, 3], f32)])
case("sparse_softmax_cross_entropy ranks", "sparse_softmax_cross_entropy_with_logits",
     [np.array([[1, 2]], np.int32), np.ones([2, 3], f32)])
case("sparse_softmax_cross_entropy shapes", "sparse_softmax_cross_entropy_with_logits",
     [np.array([1, 2, 0], np.int32), np.ones([2, 3], f32)])
case("sparse_softmax_cross_entropy float labels", "sparse_softmax_cross_entropy_with_logits",
     [np.array([1, 2], f32), np.ones([2, 3], f32)])
case("sparse_softmax_cross_entropy no classes", "sparse_softmax_cross_entropy_with_logits",
     [np.array([0, 0], np.int32), np.ones([2, 0], f32)])
case("one_hot axis too large", "one_hot", [np.array([1, 2], np.int32)],
     {"depth": 3, "on_value": 1.0, "off_value": 0.0, "axis": 3, "dtype": tf.float32})
case("one_hot axis -2", "one_hot", [np.array([1, 2], np.int32)],
     {"depth": 3, "on_value": 1.0, "off_value": 0.0, "axis": -2, "dtype": tf.float32})
case("one_hot negative depth", "one_hot", [np.array([1, 2], np.int32)],
     {"depth": -1, "on_value": 1.0, "off_value": 0.0, "axis": -1, "dtype": tf.float32})
case("log_softmax scalar", "log_softmax", [np.float32(1)], {"axis": -1})
for op in ("elu", "selu", "softplus", "softsign", "l2_loss"):
    case(f"{op} int32", op, [np.array([1, 2], np.int32)])
case("log_softmax int32", "log_softmax", [np.array([1, 2], np.int32)], {"axis": -1})
case("fused_batch_norm 2-D x", fbn, [np.ones([2, 3], f32), scale, offset],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})
case("fused_batch_norm scale size", fbn, [x4, np.ones([2], f32), offset],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})
case("fused_batch_norm offset size", fbn, [x4, scale, np.ones([2], f32)],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})
case("fused_batch_norm 2-D scale", fbn, [x4, np.ones([1, 3], f32), offset],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": True})
case("fused_batch_norm inference mean size", fbn, [x4, scale, offset, np.ones([2], f32), pop_var],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": False})
case("fused_batch_norm inference variance size", fbn,
     [x4, scale, offset, pop_mean, np.ones([2], f32)],
     {"epsilon": 0.001, "exponential_avg_factor": 1.0, "is_training": False})

json.dump({"tensorflow": tf.__version__, "cases": CASES}, sys.stdout, indent=None,
          separators=(",", ":"))
sys.stdout.write("\n")
