#!/usr/bin/env python3
"""Writes tests/fixtures/tf_gradients.json: the gradients TensorFlow computes for every
differentiable op eagle has (src/opdefs/op_defs.hpp rows marked kDifferentiable), so
tests/tf_gradient_fixture_test.cpp holds eagle's GradientTape to TensorFlow without CI needing it.

A "gradient" case names an eagle function ("op", dispatched by tests/fixture_ops.hpp, the table
tests/tf_fixture_test.cpp uses too), its inputs and attributes, which inputs are sources, an
optional output gradient, and TensorFlow's gradient for each source (null: TensorFlow's None).
A "scenario" case names a program written twice, here and in the C++ test (higher order, several
targets, persistent tapes, jacobian, unconnected sources, variables); its "results" are the
tensors the program produces, in order.

Every differentiable op of the table is covered, directly or (the fused activation gradients
ReluGrad, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad) through the second
derivative of its forward op, and ReadVariableOp through the variable scenarios. None skipped.

Usage (tensorflow-cpu 2.21, e.g. in bench/compare's .venv):
    .venv/bin/python tests/tools/gen_tf_grad_fixture.py > tests/fixtures/tf_gradients.json
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tf_fixture_encoding import encode, encode_value  # noqa: E402,F401

CASES = []
F64 = "float64"


def encode_grad(g):
    if g is None:
        return None
    if isinstance(g, tf.IndexedSlices):
        g = tf.convert_to_tensor(g)
    return encode(g)


def grad_case(name, op, inputs, fn, sources=None, attrs=None, output_gradient=None,
              unconnected="none", tolerance=1e-5):
    """fn(*tensors) -> target; sources: indices of the inputs differentiated (default all
    floating inputs)."""
    tensors = [tf.constant(v, dtype=d) for v, d in inputs]
    if sources is None:
        sources = [i for i, t in enumerate(tensors) if t.dtype.is_floating]
    with tf.GradientTape() as tape:
        for i in sources:
            tape.watch(tensors[i])
        y = fn(*tensors)
    og = None if output_gradient is None else tf.constant(output_gradient[0], output_gradient[1])
    grads = tape.gradient(y, [tensors[i] for i in sources], output_gradients=og,
                          unconnected_gradients=unconnected)
    entry = {"name": name, "kind": "gradient", "op": op, "attrs": attrs or {},
             "inputs": [encode(t) for t in tensors], "sources": sources,
             "target": encode(y), "grads": [encode_grad(g) for g in grads],
             "unconnected": unconnected, "tolerance": tolerance}
    if og is not None:
        entry["output_gradient"] = encode(og)
    CASES.append(entry)


def scenario(name, inputs, fn, tolerance=1e-5):
    tensors = [tf.constant(v, dtype=d) for v, d in inputs]
    results = fn(*tensors)
    CASES.append({"name": name, "kind": "scenario", "inputs": [encode(t) for t in tensors],
                  "results": [encode_grad(r) for r in results], "tolerance": tolerance})


A = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]          # [2, 3]
B = [[0.2, -0.7, 1.1]]                              # [1, 3]
POS = [[0.5, 1.25, 2.0], [1.5, 0.75, 3.0]]          # [2, 3], positive
V3 = [0.3, -0.8, 1.7]

# ---- elementwise binary, with broadcasting ([2, 3] with [1, 3], [3], a scalar) -----------------
BINARY = {"add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
          "squared_difference": tf.math.squared_difference, "maximum": tf.maximum,
          "minimum": tf.minimum}
for name, fn in BINARY.items():
    grad_case(f"{name} [2,3] with [1,3]", name, [(A, F64), (B, F64)], fn)
    grad_case(f"{name} [2,3] with a scalar", name, [(A, F64), (0.4, F64)], fn)
grad_case("add [2,3] with [3] float32", "add", [(A, "float32"), (V3, "float32")], tf.add)
grad_case("multiply [3,1] with [1,2]", "multiply", [([[1.0], [2.0], [3.0]], F64), ([[0.5, -2.0]], F64)],
          tf.multiply)
grad_case("pow [2,3] with [1,3]", "pow", [(POS, F64), ([[2.0, 0.5, -1.5]], F64)], tf.pow)
grad_case("pow with a scalar exponent", "pow", [(POS, F64), (3.0, F64)], tf.pow)
grad_case("floormod [2,3] with [1,3]", "floormod", [(A, F64), ([[0.7, 0.4, 0.9]], F64)],
          tf.math.floormod)
# Ties: Maximum and Minimum give the whole gradient to the first input where x == y.
grad_case("maximum ties go to x", "maximum", [([1.0, 2.0, 3.0], F64), ([1.0, 5.0, 3.0], F64)],
          tf.maximum)
grad_case("minimum ties go to x", "minimum", [([1.0, 2.0, 3.0], F64), ([1.0, 0.0, 3.0], F64)],
          tf.minimum)
grad_case("divide with output_gradients", "divide", [(A, F64), (B, F64)], tf.divide,
          output_gradient=([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]], F64))

# ---- elementwise unary ---------------------------------------------------------------------------
UNARY = {"negative": (tf.negative, A), "abs": (tf.abs, A), "exp": (tf.exp, A),
         "log": (tf.math.log, POS), "sqrt": (tf.sqrt, POS), "square": (tf.square, A),
         "relu": (tf.nn.relu, A), "sigmoid": (tf.sigmoid, A), "tanh": (tf.tanh, A),
         "sign": (tf.sign, A), "rsqrt": (tf.math.rsqrt, POS),
         "reciprocal": (tf.math.reciprocal, A), "log1p": (tf.math.log1p, POS),
         "erf": (tf.math.erf, A), "sin": (tf.sin, A), "cos": (tf.cos, A),
         "softmax": (tf.nn.softmax, A), "identity": (tf.identity, A)}
for name, (fn, values) in UNARY.items():
    grad_case(f"{name} float64", name, [(values, F64)], fn)
grad_case("tanh float32", "tanh", [(A, "float32")], tf.tanh)
grad_case("relu at 0 gives 0", "relu", [([-1.0, 0.0, 2.0], F64)], tf.nn.relu)
grad_case("abs at 0 gives 0", "abs", [([-1.0, 0.0, 2.0], F64)], tf.abs)
grad_case("sqrt of a size-0 tensor", "sqrt", [(np.zeros((0, 3)), F64)], tf.sqrt)
grad_case("softmax of a size-1 axis", "softmax", [([[0.3], [-2.0]], F64)], tf.nn.softmax)
grad_case("cast float32 to float64", "cast", [(A, "float32")], lambda x: tf.cast(x, F64),
          attrs={"dtype": F64})
grad_case("cast float64 to int32 has no gradient", "cast", [(A, F64)],
          lambda x: tf.cast(x, "int32"), attrs={"dtype": "int32"})

# ---- reductions: axes, keepdims, negative axes, size-0 and size-1 dims, ties --------------------
REDUCE = {"reduce_sum": tf.reduce_sum, "reduce_mean": tf.reduce_mean,
          "reduce_max": tf.reduce_max, "reduce_min": tf.reduce_min,
          "reduce_prod": tf.reduce_prod}
for name, fn in REDUCE.items():
    grad_case(f"{name} all", name, [(A, F64)], fn)
    grad_case(f"{name} axis -1 keepdims", name, [(A, F64)],
              lambda x, fn=fn: fn(x, axis=-1, keepdims=True), attrs={"axis": -1, "keepdims": True})
    grad_case(f"{name} axis 0", name, [(A, F64)], lambda x, fn=fn: fn(x, axis=0),
              attrs={"axis": 0})
grad_case("reduce_max splits equally among equal maxima", "reduce_max",
          [([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]], F64)], lambda x: tf.reduce_max(x, axis=1),
          attrs={"axis": 1})
grad_case("reduce_min splits equally among equal minima", "reduce_min",
          [([1.0, 4.0, 1.0, 1.0], F64)], tf.reduce_min)
grad_case("reduce_prod with a zero", "reduce_prod", [([2.0, 0.0, 3.0], F64)], tf.reduce_prod)
grad_case("reduce_sum over a size-0 axis", "reduce_sum", [(np.zeros((2, 0)), F64)],
          lambda x: tf.reduce_sum(x, axis=1), attrs={"axis": 1})
grad_case("reduce_mean over a size-1 axis", "reduce_mean", [([[1.5], [2.5]], F64)],
          lambda x: tf.reduce_mean(x, axis=-1), attrs={"axis": -1})

# ---- matmul, add_n, einsum ---------------------------------------------------------------------
M23 = [[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]]
M32 = [[0.3, -1.0], [2.0, 0.5], [1.5, -0.25]]
for ta in (False, True):
    for tb in (False, True):
        a = np.array(M23).T.tolist() if ta else M23
        b = np.array(M32).T.tolist() if tb else M32
        grad_case(f"matmul transpose_a={ta} transpose_b={tb}", "matmul", [(a, F64), (b, F64)],
                  lambda x, y, ta=ta, tb=tb: tf.linalg.matmul(x, y, transpose_a=ta,
                                                              transpose_b=tb),
                  attrs={"transpose_a": ta, "transpose_b": tb})
rng = np.random.default_rng(16)
grad_case("batch matmul [2,2,3] x [3,2]", "matmul",
          [(rng.normal(size=(2, 2, 3)).round(3), F64), (M32, F64)], tf.linalg.matmul,
          attrs={"transpose_a": False, "transpose_b": False})
grad_case("batch matmul broadcast [2,1,2,3] x [3,3,2]", "matmul",
          [(rng.normal(size=(2, 1, 2, 3)).round(3), F64), (rng.normal(size=(3, 3, 2)).round(3), F64)],
          tf.linalg.matmul, attrs={"transpose_a": False, "transpose_b": False})
grad_case("add_n of three", "add_n", [(A, F64), (POS, F64), (A, F64)], lambda *x: tf.add_n(x))
grad_case("einsum ij,jk->ik", "einsum", [(M23, F64), (M32, F64)],
          lambda x, y: tf.einsum("ij,jk->ik", x, y), attrs={"equation": "ij,jk->ik"})
grad_case("einsum bij,bj->bi", "einsum", [(rng.normal(size=(2, 2, 3)).round(3), F64), (A, F64)],
          lambda x, y: tf.einsum("bij,bj->bi", x, y), attrs={"equation": "bij,bj->bi"})
grad_case("einsum ij->j", "einsum", [(A, F64)], lambda x: tf.einsum("ij->j", x),
          attrs={"equation": "ij->j"})

# ---- shape ops ---------------------------------------------------------------------------------
grad_case("reshape [2,3] to [3,2]", "reshape", [(A, F64)], lambda x: tf.reshape(x, [3, 2]),
          attrs={"shape": [3, 2]}, output_gradient=([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], F64))
grad_case("transpose", "transpose", [(A, F64)], lambda x: tf.transpose(x, [1, 0]),
          attrs={"perm": [1, 0]}, output_gradient=([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], F64))
grad_case("expand_dims -1", "expand_dims", [(V3, F64)], lambda x: tf.expand_dims(x, -1),
          attrs={"axis": -1}, output_gradient=([[1.0], [2.0], [3.0]], F64))
grad_case("squeeze", "squeeze", [([[1.0], [2.0]], F64)], lambda x: tf.squeeze(x, [1]),
          attrs={"axes": [1]}, output_gradient=([5.0, -1.0], F64))
grad_case("concat axis -1", "concat", [(A, F64), ([[1.0], [2.0]], F64)],
          lambda x, y: tf.concat([x, y], -1), attrs={"axis": -1},
          output_gradient=([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], F64))
grad_case("slice", "slice", [(A, F64)], lambda x: tf.slice(x, [0, 1], [2, -1]),
          attrs={"begin": [0, 1], "size": [2, -1]}, output_gradient=([[1.0, 2.0], [3.0, 4.0]], F64))
grad_case("tile", "tile", [(A, F64)], lambda x: tf.tile(x, [2, 1]), attrs={"multiples": [2, 1]},
          output_gradient=(np.arange(12.0).reshape(4, 3).tolist(), F64))
grad_case("pad CONSTANT", "pad", [(A, F64)], lambda x: tf.pad(x, [[1, 0], [0, 2]]),
          attrs={"paddings": [[1, 0], [0, 2]]},
          output_gradient=(np.arange(15.0).reshape(3, 5).tolist(), F64))
grad_case("pad CONSTANT with a value (PadV2)", "pad", [(A, F64)],
          lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=2.0),
          attrs={"paddings": [[0, 1], [1, 1]], "constant_values": 2.0},
          output_gradient=(np.arange(15.0).reshape(3, 5).tolist(), F64))
grad_case("pad REFLECT (MirrorPad)", "pad", [(A, F64)],
          lambda x: tf.pad(x, [[1, 1], [2, 1]], mode="REFLECT"),
          attrs={"paddings": [[1, 1], [2, 1]], "mode": "REFLECT"},
          output_gradient=(np.arange(24.0).reshape(4, 6).tolist(), F64))
grad_case("pad SYMMETRIC (MirrorPad)", "pad", [(A, F64)],
          lambda x: tf.pad(x, [[1, 0], [1, 2]], mode="SYMMETRIC"),
          attrs={"paddings": [[1, 0], [1, 2]], "mode": "SYMMETRIC"},
          output_gradient=(np.arange(18.0).reshape(3, 6).tolist(), F64))
grad_case("reverse", "reverse", [(A, F64)], lambda x: tf.reverse(x, [-1]), attrs={"axis": [-1]},
          output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), F64))
for ex in (False, True):
    for rv in (False, True):
        grad_case(f"cumsum exclusive={ex} reverse={rv}", "cumsum", [(A, F64)],
                  lambda x, ex=ex, rv=rv: tf.cumsum(x, 1, exclusive=ex, reverse=rv),
                  attrs={"axis": 1, "exclusive": ex, "reverse": rv},
                  output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), F64))
grad_case("cumprod", "cumprod", [(POS, F64)], lambda x: tf.math.cumprod(x, 1),
          attrs={"axis": 1}, output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), F64))
grad_case("cumprod exclusive reverse", "cumprod", [(POS, F64)],
          lambda x: tf.math.cumprod(x, 0, exclusive=True, reverse=True),
          attrs={"axis": 0, "exclusive": True, "reverse": True},
          output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), F64))
grad_case("split into 3, part 1", "split", [(A, F64)], lambda x: tf.split(x, 3, 1)[1],
          attrs={"num_split": 3, "axis": 1, "index": 1})
grad_case("split sizes [1, 2], part 1", "split", [(A, F64)], lambda x: tf.split(x, [1, 2], 1)[1],
          attrs={"size_splits": [1, 2], "axis": 1, "index": 1},
          output_gradient=([[1.0, 2.0], [3.0, 4.0]], F64))
grad_case("stack axis 1", "stack", [(V3, F64), (V3, F64)], lambda x, y: tf.stack([x, y], 1),
          attrs={"axis": 1}, output_gradient=(np.arange(6.0).reshape(3, 2).tolist(), F64))
grad_case("unstack axis 1, part 2", "unstack", [(A, F64)], lambda x: tf.unstack(x, axis=1)[2],
          attrs={"axis": 1, "index": 2}, output_gradient=([3.0, -1.0], F64))
grad_case("broadcast_to", "broadcast_to", [(B, F64)], lambda x: tf.broadcast_to(x, [4, 3]),
          attrs={"shape": [4, 3]})
grad_case("strided_slice with a negative stride", "strided_slice", [(A, F64)],
          lambda x: x[::-1, ::-2],
          attrs={"begin": [0, 0], "end": [0, 0], "strides": [-1, -2], "masks": [3, 3, 0, 0, 0]},
          output_gradient=([[1.0, 2.0], [3.0, 4.0]], F64))
grad_case("strided_slice [:, ::2]", "strided_slice", [(A, F64)], lambda x: x[:, ::2],
          attrs={"begin": [0, 0], "end": [0, 0], "strides": [1, 2], "masks": [3, 3, 0, 0, 0]},
          output_gradient=([[1.0, 2.0], [3.0, 4.0]], F64))
grad_case("strided_slice shrink [1, 1:]", "strided_slice", [(A, F64)], lambda x: x[1, 1:],
          attrs={"begin": [1, 1], "end": [2, 0], "strides": [1, 1], "masks": [0, 2, 0, 0, 1]},
          output_gradient=([5.0, 7.0], F64))
grad_case("top_k values", "top_k", [([[1.0, 4.0, 2.0], [3.0, -1.0, 5.0]], F64)],
          lambda x: tf.math.top_k(x, 2).values, attrs={"k": 2},
          output_gradient=([[1.0, 2.0], [3.0, 4.0]], F64))

# ---- indexing -------------------------------------------------------------------------------------
T34 = np.arange(12.0).reshape(3, 4) / 4.0
grad_case("gather axis 0 with repeats", "gather", [(T34, F64), ([2, 0, 2], "int32")],
          lambda p, i: tf.gather(p, i), attrs={"axis": 0},
          output_gradient=(np.arange(12.0).reshape(3, 4).tolist(), F64))
grad_case("gather axis 1 int64", "gather", [(T34, F64), ([[3, 1], [1, 1]], "int64")],
          lambda p, i: tf.gather(p, i, axis=1), attrs={"axis": 1},
          output_gradient=(np.arange(12.0).reshape(3, 2, 2).tolist(), F64))
grad_case("gather batch_dims 1", "gather", [(T34, F64), ([[3, 3], [0, 1], [2, 2]], "int32")],
          lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), attrs={"axis": 1, "batch_dims": 1},
          output_gradient=(np.arange(6.0).reshape(3, 2).tolist(), F64))
grad_case("gather with no indices", "gather", [(T34, F64), (np.zeros((0,), np.int32), "int32")],
          lambda p, i: tf.gather(p, i), attrs={"axis": 0})
grad_case("gather_nd", "gather_nd", [(T34, F64), ([[2, 1], [0, 3], [2, 1]], "int32")],
          lambda p, i: tf.gather_nd(p, i), output_gradient=([1.0, 2.0, 3.0], F64))
grad_case("gather_nd rows", "gather_nd", [(T34, F64), ([[1], [1]], "int64")],
          lambda p, i: tf.gather_nd(p, i))
grad_case("gather_nd batch_dims 1", "gather_nd",
          [(np.arange(24.0).reshape(2, 3, 4), F64), ([[[1, 2]], [[2, 0]]], "int32")],
          lambda p, i: tf.gather_nd(p, i, batch_dims=1), attrs={"batch_dims": 1},
          output_gradient=([[1.0], [2.0]], F64))
grad_case("select with broadcasting", "select",
          [([[True, False, True]], "bool"), (A, F64), (0.5, F64)],
          lambda c, x, y: tf.where(c, x, y))
grad_case("unsorted_segment_sum with a dropped id", "unsorted_segment_sum",
          [(T34, F64), ([1, -1, 1], "int32")],
          lambda d, i: tf.math.unsorted_segment_sum(d, i, 3), attrs={"num_segments": 3},
          output_gradient=(np.arange(12.0).reshape(3, 4).tolist(), F64))
grad_case("unsorted_segment_sum 2-d ids", "unsorted_segment_sum",
          [(T34, F64), ([[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]], "int64")],
          lambda d, i: tf.math.unsorted_segment_sum(d, i, 2), attrs={"num_segments": 2},
          output_gradient=([2.0, -1.0], F64))
grad_case("check_numerics passes the gradient", "check_numerics", [(A, F64)],
          lambda x: tf.debugging.check_numerics(x, "fine"), attrs={"message": "fine"},
          output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), F64))
grad_case("identity_n passes each gradient, output 1", "identity_n", [(A, F64), (B, F64)],
          lambda x, y: tf.identity_n([x, y])[1], attrs={"index": 1},
          output_gradient=([[2.0, -1.0, 0.5]], F64))
grad_case("identity_n float32, output 0", "identity_n", [(A, "float32"), (V3, "float32")],
          lambda x, y: tf.identity_n([x, y])[0], attrs={"index": 0},
          output_gradient=(np.arange(6.0).reshape(2, 3).tolist(), "float32"))
grad_case("unconnected source gives None", "add", [(A, F64), (B, F64), (V3, F64)],
          lambda x, y, z: x + y, sources=[0, 2])
grad_case("unconnected source gives zeros when asked", "add", [(A, F64), (B, F64), (V3, F64)],
          lambda x, y, z: x + y, sources=[0, 2], unconnected="zero")
grad_case("an integer input has no gradient", "multiply", [([1, 2], "int32"), ([3, 4], "int32")],
          tf.multiply, sources=[0])


# ---- scenarios: programs written here and in tests/tf_gradient_fixture_test.cpp ----------------
def second_order(fn):
    def run(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            g = inner.gradient(y, x)
        return [g, outer.gradient(g, x)]
    return run


SECOND = {"relu": (tf.nn.relu, A), "sigmoid": (tf.sigmoid, A), "tanh": (tf.tanh, A),
          "sqrt": (tf.sqrt, POS), "rsqrt": (tf.math.rsqrt, POS),
          "reciprocal": (tf.math.reciprocal, POS), "exp": (tf.exp, A),
          "cube": (lambda x: x * x * x, A), "softmax": (lambda x: tf.nn.softmax(x) * [[1.0, 2.0, 3.0]], A)}
for name, (fn, values) in SECOND.items():
    scenario(f"second derivative of {name}", [(values, F64)], second_order(fn))


def third_order(x):
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x) * x
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    return [g1, g2, t3.gradient(g2, x)]


scenario("third derivative of x sin x", [(V3, F64)], third_order)


def persistent_twice(x, w):
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, w])
        y = tf.reduce_sum(tf.tanh(x * w))
        z = tf.reduce_sum(x * x)
    return [*t.gradient(y, [x, w]), *t.gradient(z, [x, w]), t.gradient(y, x)]


scenario("a persistent tape used twice", [(A, F64), (B, F64)], persistent_twice)


def several_targets(x):
    with tf.GradientTape() as t:
        t.watch(x)
        y1 = tf.reduce_sum(x * x)
        y2 = tf.exp(x)
    return t.gradient([y1, y2], [x])


scenario("several targets sum their gradients", [(A, F64)], several_targets)


def several_targets_output_gradients(x):
    with tf.GradientTape() as t:
        t.watch(x)
        y1 = x * 3.0
        y2 = tf.reduce_sum(tf.sin(x), axis=1)
    return t.gradient([y1, y2], [x], output_gradients=[tf.ones_like(x) * 0.5,
                                                          tf.constant([2.0, -1.0], F64)])


scenario("several targets with output_gradients", [(A, F64)], several_targets_output_gradients)


def jacobian(x):
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.sin(x) * tf.reduce_sum(x)
        u = x * 2.0
    return [t.jacobian(y, x), t.jacobian(u, x)]


scenario("jacobian of a vector target", [(V3, F64)], jacobian)


def source_twice(x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    return t.gradient(y, [x, x])


scenario("a source given twice gets its gradient twice", [(V3, F64)], source_twice)


def unrecorded_target_zero(x, c):
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x  # noqa: F841
    return t.gradient(c, [x]) + t.gradient(c, [x], unconnected_gradients="zero")


scenario("a target the tape did not record", [(V3, F64), (2.0, F64)], unrecorded_target_zero)


def variables(w0, b0, x):
    w = tf.Variable(w0)
    b = tf.Variable(b0)
    with tf.GradientTape() as t:
        loss = tf.reduce_mean(tf.square(tf.linalg.matmul(x, w) + b))
    return [loss, *t.gradient(loss, [w, b])]


scenario("variables are watched when read (ReadVariableOp)",
         [(M32, F64), ([0.1, -0.2], F64), (M23, F64)], variables)


def stop_recording(x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
        with t.stop_recording():
            z = y * 3.0
        w = y + z
    return t.gradient(w, [x])


scenario("stop_recording leaves ops out", [(V3, F64)], stop_recording)


def higher_order_matmul(a, b):
    with tf.GradientTape() as outer:
        outer.watch([a, b])
        with tf.GradientTape() as inner:
            inner.watch([a, b])
            y = tf.reduce_sum(tf.square(tf.linalg.matmul(a, b)))
        ga, gb = inner.gradient(y, [a, b])
        s = tf.reduce_sum(ga * ga) + tf.reduce_sum(gb)
    return [ga, gb, *outer.gradient(s, [a, b])]


scenario("second order through matmul", [(M23, F64), (M32, F64)], higher_order_matmul)


def segment_second_order(d):
    with tf.GradientTape() as outer:
        outer.watch(d)
        with tf.GradientTape() as inner:
            inner.watch(d)
            y = tf.reduce_sum(tf.square(tf.math.unsorted_segment_sum(d, [1, 0, 1], 2)))
        g = inner.gradient(y, d)
        s = tf.reduce_sum(g * g)
    return [g, outer.gradient(s, d)]


scenario("second order through unsorted_segment_sum", [(T34, F64)], segment_second_order)


def gather_second_order(p):
    with tf.GradientTape() as outer:
        outer.watch(p)
        with tf.GradientTape() as inner:
            inner.watch(p)
            y = tf.reduce_sum(tf.square(tf.gather(p, [2, 2, 0], axis=1)))
        g = inner.gradient(y, p)
        s = tf.reduce_sum(g * g * g)
    return [g, outer.gradient(s, p)]


scenario("second order through gather", [(T34, F64)], gather_second_order)

json.dump({"generator": "tests/tools/gen_tf_grad_fixture.py", "tensorflow": tf.__version__,
           "cases": CASES}, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
