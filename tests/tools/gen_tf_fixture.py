#!/usr/bin/env python3
"""Writes tests/fixtures/tf_ops.json: what TensorFlow itself computes (or raises) for the cases of
issue 15 §6, so tests/tf_fixture_test.cpp holds eagle to TensorFlow without CI needing it.

Each case names an eagle function ("op"), its inputs, its attributes, and either TensorFlow's
result or TensorFlow's error (class and message). Messages are normalised the way eagle writes
them: TensorFlow's "{{function_node ...}}" decoration, its NodeDef dump and the trailing
" name: " are dropped, and lists of allowed dtypes keep only the dtypes eagle has.
Float values that JSON cannot hold, and -0.0, are strings: "nan", "inf", "-inf", "-0.0".

Usage (tensorflow-cpu from bench/requirements-cpu.txt, e.g. in bench/compare's .venv):
    .venv/bin/python tests/tools/gen_tf_fixture.py > tests/fixtures/tf_ops.json
"""
import json
import math
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

NAN, INF = float("nan"), float("inf")
from tf_fixture_encoding import encode, encode_value, normalise_message  # noqa: E402,F401


CASES = []


# Where eagle deliberately differs from TensorFlow: the case name and eagle's error instead.
EAGLE_DIFFERS = {
    # tf.split(x, []) converts [] to a float32 tensor and fails on its dtype; eagle's empty size
    # list is an op with no outputs, which SplitV's num_split attribute refuses.
    "split sizes of nothing": ("InvalidArgumentError",
                               "Value for attr 'num_split' of 0 must be at least minimum 1 [Op:SplitV]"),
    # TensorFlow 2.21 reports its own bug here ("Unexpected error in binary operator").
    "truncatediv int32 by zero": ("InvalidArgumentError", "Integer division by zero [Op:TruncateDiv]"),
    "truncatemod int32 by zero": ("InvalidArgumentError", "Integer division by zero [Op:TruncateMod]"),
    # TensorFlow's Einsum op allows every T and then finds no bool kernel (NotFoundError with its
    # kernel list); eagle refuses a dtype outside the op's row before placement (docs/design.md).
    # oneDNN's _MklEinsum says "In[0] and In[1] must have compatible batch dimensions: ..."; eagle
    # keeps the text of TensorFlow's own Einsum kernel (TF_ENABLE_ONEDNN_OPTS=0).
    "einsum ...i,...i->... float32[2, 3],float32[4, 3]": (
        "InvalidArgumentError", "Invalid broadcasting dimensions: [2,3,1] vs. [4,3,1] [Op:Einsum]"),
    "einsum ij->ji bool[1, 1]": ("InvalidArgumentError",
                           "Value for attr 'T' of bool is not in the list of allowed values: "
                           "bfloat16, half, float, double, int32, int64 [Op:Einsum]"),
}


def case(name, op, inputs, run, attrs=None, tolerance=0.0):
    tensors = [tf.constant(v, dtype=d) for v, d in inputs]
    entry = {"name": name, "op": op, "inputs": [encode(t) for t in tensors],
             "attrs": attrs or {}, "tolerance": tolerance}
    try:
        result = run(*tensors)
        entry["result"] = encode(result)
    except tf.errors.OpError as e:
        entry["error"] = {"type": type(e).__name__, "message": normalise_message(e.message)}
    except (TypeError, ValueError) as e:  # TensorFlow's Python checks: eagle's InvalidArgument
        entry["error"] = {"type": "InvalidArgumentError", "message": str(e)}
    if name in EAGLE_DIFFERS:
        entry["tensorflow_error"] = entry.pop("error")
        kind, message = EAGLE_DIFFERS[name]
        entry["error"] = {"type": kind, "message": message}
    CASES.append(entry)


SPECIALS = [-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.7, -3.7, NAN, INF, -INF]
POSITIVE = [1e-6, 0.001, 0.25, 0.5, 1.0, 2.0, 10.0, 123.456]
WIDE = [-20.0, -3.0, -1.0, -0.25, -0.0, 0.0, 0.3, 1.0, 2.5, 7.0, 20.0]

# Unary ops that round or compare: exact, signed zeros included.
EXACT_UNARY = {"negative": tf.negative, "abs": tf.abs, "relu": tf.nn.relu, "sign": tf.sign,
               "floor": tf.floor, "ceil": tf.math.ceil, "round": tf.round, "square": tf.square,
               "is_nan": tf.math.is_nan,
               "is_inf": tf.math.is_inf, "is_finite": tf.math.is_finite}
for name, fn in EXACT_UNARY.items():
    for dtype in ["float32", "float64"]:
        case(f"{name} {dtype} specials", name, [(SPECIALS, dtype)], fn)
# Transcendental ops: TensorFlow's Eigen kernels and eagle's libm calls may differ by an ulp or two.
TRANSCENDENTAL = {"exp": (tf.exp, WIDE), "log": (tf.math.log, POSITIVE),
                  "log1p": (tf.math.log1p, POSITIVE + [-0.5, -0.0]), "sqrt": (tf.sqrt, POSITIVE),
                  "rsqrt": (tf.math.rsqrt, POSITIVE), "erf": (tf.math.erf, WIDE),
                  "sin": (tf.sin, WIDE), "cos": (tf.cos, WIDE), "tanh": (tf.tanh, WIDE),
                  "sigmoid": (tf.sigmoid, WIDE),
                  # Eigen's float32 reciprocal is an estimate refined once: an ulp from 1/x.
                  "reciprocal": (tf.math.reciprocal, SPECIALS)}
for name, (fn, values) in TRANSCENDENTAL.items():
    case(f"{name} float32", name, [(values, "float32")], fn, tolerance=4e-7)
    case(f"{name} float64", name, [(values, "float64")], fn, tolerance=1e-15)
INT32_EDGES = [-2**31, -7, -1, 0, 1, 7, 2**31 - 1]
for name in ["negative", "abs", "sign", "round", "square"]:
    case(f"{name} int32 edges", name, [(INT32_EDGES, "int32")], EXACT_UNARY[name])
case("logical_not", "logical_not", [([True, False], "bool")], tf.logical_not)

# Binary ops.
A_INT = [-7, 7, -7, 7, 0, -8, 9, -2**31, 2**31 - 1]
B_INT = [2, -2, -2, 2, 3, 3, -4, -1, -1]
A_F = [-7.0, 7.0, -7.0, 7.0, -0.0, -7.5, 5.0, 1.0, -1.0, NAN]
B_F = [2.0, -2.0, -2.0, 2.0, 3.0, 2.0, 0.0, INF, 0.0, 1.0]
BINARY = {"floordiv": tf.math.floordiv, "floormod": tf.math.floormod,
          "truncatediv": tf.truncatediv, "truncatemod": tf.truncatemod}
for name, fn in BINARY.items():
    case(f"{name} int32", name, [(A_INT, "int32"), (B_INT, "int32")], fn)
    case(f"{name} int64", name, [(A_INT, "int64"), (B_INT, "int64")], fn)
    case(f"{name} float32", name, [(A_F, "float32"), (B_F, "float32")], fn)
    case(f"{name} int32 by zero", name, [([1, 2], "int32"), ([1, 0], "int32")], fn)
case("squared_difference float32", "squared_difference",
     [([1.5, -2.0, NAN, INF], "float32"), ([0.5, 3.0, 1.0, 1.0], "float32")],
     tf.math.squared_difference)
case("squared_difference int32", "squared_difference",
     [([3, -4, 2**16], "int32"), ([1, 4, 0], "int32")], tf.math.squared_difference)
case("logical_and", "logical_and", [([True, True, False, False], "bool"),
                                     ([True, False, True, False], "bool")], tf.logical_and)
case("logical_or", "logical_or", [([True, True, False, False], "bool"),
                                   ([True, False, True, False], "bool")], tf.logical_or)
# Signed zeros through maximum and minimum (8 elements: TensorFlow's vectorised path).
for name, fn in {"maximum": tf.maximum, "minimum": tf.minimum}.items():
    case(f"{name} +0 -0", name, [([0.0] * 8, "float32"), ([-0.0] * 8, "float32")], fn)
    case(f"{name} -0 +0", name, [([-0.0] * 8, "float32"), ([0.0] * 8, "float32")], fn)
    case(f"{name} NaN", name, [([NAN, 1.0, 2.0, NAN] * 2, "float32"),
                               ([1.0, NAN, 1.0, NAN] * 2, "float32")], fn)
case("pow int32", "pow", [([2, -2, 3, 0], "int32"), ([3, 3, 0, 0], "int32")], tf.pow)

# argmax / argmin and NaN.
for name, fn in {"argmax": tf.argmax, "argmin": tf.argmin}.items():
    for values in ([1.0, NAN, 3.0, NAN], [NAN, 5.0], [5.0, NAN], [NAN, NAN], [-INF, NAN],
                   [NAN, -INF, 4.0], [2.0, 7.0, 7.0, -1.0, -1.0]):
        case(f"{name} {values}", name, [(values, "float32")], lambda x, fn=fn: fn(x, axis=0),
             attrs={"axis": 0})
    case(f"{name} rows", name, [([[1.0, NAN, 3.0], [NAN, 2.0, -5.0]], "float32")],
         lambda x, fn=fn: fn(x, axis=1), attrs={"axis": 1})
    case(f"{name} columns", name, [([[1.0, NAN, 3.0], [NAN, 2.0, -5.0]], "float32")],
         lambda x, fn=fn: fn(x, axis=0), attrs={"axis": 0})
    case(f"{name} bool", name, [([False, True, True], "bool")], lambda x, fn=fn: fn(x, axis=0),
         attrs={"axis": 0})
    case(f"{name} int32 ties", name, [([3, 1, 3, 1], "int32")], lambda x, fn=fn: fn(x, axis=0),
         attrs={"axis": 0})
case("argmax axis out of range", "argmax", [([[1.0]], "float32")],
     lambda x: tf.argmax(x, axis=5), attrs={"axis": 5})
case("argmax of a scalar", "argmax", [(1.0, "float32")], lambda x: tf.argmax(x, axis=0),
     attrs={"axis": 0})

# Reductions new in issue 15 and TensorFlow's composites.
M = [[1.5, -2.0, 4.0], [0.5, 3.0, -1.0]]
for name, fn in {"reduce_prod": tf.reduce_prod, "reduce_variance": tf.math.reduce_variance,
                 "reduce_std": tf.math.reduce_std, "reduce_logsumexp": tf.reduce_logsumexp}.items():
    for axis in (None, 0, 1):
        for keepdims in (False, True):
            attrs = {"keepdims": keepdims}
            if axis is not None:
                attrs["axis"] = axis
            case(f"{name} axis {axis} keepdims {keepdims}", name, [(M, "float32")],
                 lambda x, fn=fn, a=axis, k=keepdims: fn(x, axis=a, keepdims=k), attrs=attrs,
                 tolerance=4e-7)
case("reduce_logsumexp of large values", "reduce_logsumexp", [([1000.0, 1000.0, -INF], "float32")],
     lambda x: tf.reduce_logsumexp(x), tolerance=4e-7)
case("reduce_logsumexp of -inf", "reduce_logsumexp", [([-INF, -INF], "float32")],
     lambda x: tf.reduce_logsumexp(x))
case("reduce_logsumexp with +inf", "reduce_logsumexp", [([1.0, INF], "float32")],
     lambda x: tf.reduce_logsumexp(x))
case("reduce_prod int32 wraps", "reduce_prod", [([65536, 65536, 3], "int32")],
     lambda x: tf.reduce_prod(x))
case("reduce_prod of nothing", "reduce_prod", [(np.zeros([0, 2], np.float32), "float32")],
     lambda x: tf.reduce_prod(x, axis=0), attrs={"axis": 0})
B = [[True, False, True], [True, True, True]]
for name, fn in {"reduce_any": tf.reduce_any, "reduce_all": tf.reduce_all}.items():
    for axis in (None, 0, 1):
        attrs = {} if axis is None else {"axis": axis}
        case(f"{name} axis {axis}", name, [(B, "bool")], lambda x, fn=fn, a=axis: fn(x, axis=a),
             attrs=attrs)
    case(f"{name} of nothing", name, [(np.zeros([0], bool), "bool")], fn)
case("reduce_variance of int32", "reduce_variance", [([1, 2], "int32")], tf.math.reduce_variance)

# Casts of NaN, infinities and values out of range.
CAST_IN = [NAN, INF, -INF, 3e10, -3e10, 2.7, -2.7, 2147483520.0, -0.0]
for dtype in ["int32", "int64", "bool"]:
    case(f"cast float32 to {dtype}", "cast", [(CAST_IN, "float32")],
         lambda x, d=dtype: tf.cast(x, d), attrs={"dtype": dtype})
    case(f"cast float64 to {dtype}", "cast", [([NAN, 1e300, -1e19, 9.2e18, -2.5], "float64")],
         lambda x, d=dtype: tf.cast(x, d), attrs={"dtype": dtype})

# Shape ops.
X23 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
for perm in ([-1, 0], [-1, -2], [0, 0], [0], [0, 2], [-3, 0], [1, 0, 2]):
    case(f"transpose {perm}", "transpose", [(X23, "float32")],
         lambda x, p=perm: tf.transpose(x, p), attrs={"perm": perm})
for source, target in (([0, 3], [0, -1]), ([0, 3], [-1, 0]), ([2, 0], [-1]), ([0], [-1, 5]),
                       ([2, 3], [4, -1]), ([2, 3], [-1, -1])):
    case(f"reshape {source} to {target}", "reshape", [(np.zeros(source), "float32")],
         lambda x, t=target: tf.reshape(x, t), attrs={"shape": target})
case("squeeze axis out of range", "squeeze", [([[1.0, 2.0]], "float32")],
     lambda x: tf.squeeze(x, [2]), attrs={"axes": [2]})
case("squeeze a dimension that is not 1", "squeeze", [([[1.0, 2.0]], "float32")],
     lambda x: tf.squeeze(x, [1]), attrs={"axes": [1]})
case("expand_dims out of range", "expand_dims", [([1.0], "float32")],
     lambda x: tf.expand_dims(x, 3), attrs={"axis": 3})
case("concat axis out of range", "concat", [([1.0], "float32"), ([2.0], "float32")],
     lambda x, y: tf.concat([x, y], -2), attrs={"axis": -2})
case("concat ranks differ", "concat", [([1.0], "float32"), ([[1.0]], "float32")],
     lambda x, y: tf.concat([x, y], 0), attrs={"axis": 0})
case("matmul rank 1", "matmul", [([1.0], "float32"), ([[1.0]], "float32")], tf.matmul)
case("matmul sizes", "matmul", [([[1.0, 2.0]], "float32"), ([[1.0, 2.0]], "float32")], tf.matmul)

# stack, unstack, broadcast_to, shape, tensordot.
for axis in (0, 1, -1, 2):
    case(f"stack axis {axis}", "stack", [(X23, "float32"), ([[7.0, 8.0, 9.0], [0.0, -0.0, NAN]], "float32")],
         lambda x, y, a=axis: tf.stack([x, y], axis=a), attrs={"axis": axis})
case("stack axis out of range", "stack", [([1.0], "float32"), ([2.0], "float32")],
     lambda x, y: tf.stack([x, y], axis=2), attrs={"axis": 2})
case("stack shapes differ", "stack", [([1.0], "float32"), ([1.0, 2.0], "float32")],
     lambda x, y: tf.stack([x, y]), attrs={"axis": 0})
case("stack dtypes differ", "stack", [([1], "int32"), ([1.0], "float32")],
     lambda x, y: tf.stack([x, y]), attrs={"axis": 0})
for axis, index in ((0, 1), (1, 2), (-1, 0)):
    case(f"unstack axis {axis} item {index}", "unstack", [(X23, "float32")],
         lambda x, a=axis, i=index: tf.unstack(x, axis=a)[i], attrs={"axis": axis, "index": index})
case("unstack axis out of range", "unstack", [(X23, "float32")],
     lambda x: tf.unstack(x, axis=2)[0], attrs={"axis": 2, "index": 0})
case("broadcast_to", "broadcast_to", [([1.0, -0.0, NAN], "float32")],
     lambda x: tf.broadcast_to(x, [2, 3]), attrs={"shape": [2, 3]})
case("broadcast_to bool", "broadcast_to", [([[True], [False]], "bool")],
     lambda x: tf.broadcast_to(x, [2, 2]), attrs={"shape": [2, 2]})
case("broadcast_to incompatible", "broadcast_to", [([1.0, 2.0], "float32")],
     lambda x: tf.broadcast_to(x, [3, 3]), attrs={"shape": [3, 3]})
case("shape", "shape", [(np.zeros([2, 0, 3]), "float32")], tf.shape)
T234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0
T43 = np.arange(12, dtype=np.float32).reshape(4, 3) / 5.0 - 1.0
case("tensordot 1", "tensordot", [(T234, "float32"), (T43, "float32")],
     lambda a, b: tf.tensordot(a, b, 1), attrs={"axes": 1}, tolerance=1e-6)
case("tensordot 0 (outer product)", "tensordot", [([1.0, 2.0], "float32"), ([3.0, 4.0, 5.0], "float32")],
     lambda a, b: tf.tensordot(a, b, 0), attrs={"axes": 0})
case("tensordot pairs", "tensordot", [(T234, "float32"), (np.ones([4, 2], np.float32), "float32")],
     lambda a, b: tf.tensordot(a, b, [[2], [0]]), attrs={"a_axes": [2], "b_axes": [0]},
     tolerance=1e-6)
case("tensordot pairs reordered", "tensordot", [(T234, "float32"), (np.ones([3, 2, 5], np.float32), "float32")],
     lambda a, b: tf.tensordot(a, b, [[1, 0], [0, 1]]), attrs={"a_axes": [1, 0], "b_axes": [0, 1]},
     tolerance=1e-6)

# tile, pad, reverse, cumsum, cumprod, split, stack/unstack as ops, sort, argsort.
X23I = [[1, 2, 3], [4, 5, 6]]
for multiples in ([2, 1], [1, 3], [2, 2], [0, 2]):
    case(f"tile {multiples}", "tile", [(X23, "float32")],
         lambda x, m=multiples: tf.tile(x, m), attrs={"multiples": multiples})
case("tile bool", "tile", [([True, False], "bool")], lambda x: tf.tile(x, [3]),
     attrs={"multiples": [3]})
case("tile scalar", "tile", [(2.5, "float32")], lambda x: tf.tile(x, []), attrs={"multiples": []})
case("tile multiples length", "tile", [(X23, "float32")], lambda x: tf.tile(x, [2]),
     attrs={"multiples": [2]})
case("tile negative multiple", "tile", [(X23, "float32")], lambda x: tf.tile(x, [2, -1]),
     attrs={"multiples": [2, -1]})
case("tile size wraps negative", "tile", [(X23, "float32")], lambda x: tf.tile(x, [2**62, 8]),
     attrs={"multiples": [2**62, 8]})
case("tile size overflows", "tile", [(X23, "float32")], lambda x: tf.tile(x, [2**40, 2**40]),
     attrs={"multiples": [2**40, 2**40]})
for mode in ("CONSTANT", "REFLECT", "SYMMETRIC", "reflect"):
    case(f"pad {mode}", "pad", [(X23, "float32")],
         lambda x, m=mode: tf.pad(x, [[1, 1], [2, 1]], mode=m),
         attrs={"paddings": [[1, 1], [2, 1]], "mode": mode})
case("pad SYMMETRIC whole dimension", "pad", [(X23I, "int32")],
     lambda x: tf.pad(x, [[2, 2], [3, 0]], mode="SYMMETRIC"),
     attrs={"paddings": [[2, 2], [3, 0]], "mode": "SYMMETRIC"})
case("pad constant_values", "pad", [(X23I, "int64")],
     lambda x: tf.pad(x, [[0, 1], [1, 0]], constant_values=-7),
     attrs={"paddings": [[0, 1], [1, 0]], "constant_values": -7})
case("pad constant_values -0.0 is Pad's +0.0", "pad", [([1.0], "float32")],
     lambda x: tf.pad(x, [[1, 0]], constant_values=-0.0),
     attrs={"paddings": [[1, 0]], "constant_values": "-0.0"})
case("pad constant_values nan", "pad", [([1.0], "float32")],
     lambda x: tf.pad(x, [[1, 1]], constant_values=NAN),
     attrs={"paddings": [[1, 1]], "constant_values": "nan"})
case("pad bool", "pad", [([True], "bool")], lambda x: tf.pad(x, [[1, 2]], constant_values=True),
     attrs={"paddings": [[1, 2]], "constant_values": 1})
case("pad half", "pad", [([1.5, -2.0], "half")], lambda x: tf.pad(x, [[1, 0]], constant_values=0.1),
     attrs={"paddings": [[1, 0]], "constant_values": 0.1})
case("pad empty input", "pad", [(np.zeros([0, 2]), "float32")], lambda x: tf.pad(x, [[1, 0], [0, 1]]),
     attrs={"paddings": [[1, 0], [0, 1]]})
case("pad scalar", "pad", [(1.0, "float32")], lambda x: tf.pad(x, []), attrs={"paddings": []})
case("pad rows", "pad", [(X23, "float32")], lambda x: tf.pad(x, [[1, 1]]),
     attrs={"paddings": [[1, 1]]})
case("pad columns", "pad", [(X23, "float32")], lambda x: tf.pad(x, [[1, 1, 1], [1, 1, 1]]),
     attrs={"paddings": [[1, 1, 1], [1, 1, 1]]})
case("pad negative", "pad", [(X23, "float32")], lambda x: tf.pad(x, [[1, -1], [0, 0]]),
     attrs={"paddings": [[1, -1], [0, 0]]})
case("pad negative PadV2", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[1, -1], [0, 0]], constant_values=2),
     attrs={"paddings": [[1, -1], [0, 0]], "constant_values": 2})
case("pad size wraps negative", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[2**62, 2**62], [0, 0]]), attrs={"paddings": [[2**62, 2**62], [0, 0]]})
case("pad size overflows", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[2**40, 0], [2**40, 0]]), attrs={"paddings": [[2**40, 0], [2**40, 0]]})
case("pad mode", "pad", [(X23, "float32")], lambda x: tf.pad(x, [[1, 1], [0, 0]], mode="wrap"),
     attrs={"paddings": [[1, 1], [0, 0]], "mode": "wrap"})
case("pad REFLECT too far", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[2, 0], [0, 0]], mode="REFLECT"),
     attrs={"paddings": [[2, 0], [0, 0]], "mode": "REFLECT"})
case("pad SYMMETRIC too far", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[3, 0], [0, 0]], mode="SYMMETRIC"),
     attrs={"paddings": [[3, 0], [0, 0]], "mode": "SYMMETRIC"})
case("pad REFLECT negative", "pad", [(X23, "float32")],
     lambda x: tf.pad(x, [[-1, 0], [0, 0]], mode="REFLECT"),
     attrs={"paddings": [[-1, 0], [0, 0]], "mode": "REFLECT"})
case("pad REFLECT rows", "pad", [(X23, "float32")], lambda x: tf.pad(x, [[1, 1]], mode="REFLECT"),
     attrs={"paddings": [[1, 1]], "mode": "REFLECT"})
for axis in ([0], [1], [-1], [0, 1], []):
    case(f"reverse {axis}", "reverse", [(X23, "float32")],
         lambda x, a=axis: tf.reverse(x, a), attrs={"axis": axis})
case("reverse bool", "reverse", [([True, False, False], "bool")], lambda x: tf.reverse(x, [0]),
     attrs={"axis": [0]})
case("reverse scalar", "reverse", [(3.0, "float32")], lambda x: tf.reverse(x, [0]),
     attrs={"axis": [0]})
case("reverse axis twice", "reverse", [(X23, "float32")], lambda x: tf.reverse(x, [1, -1]),
     attrs={"axis": [1, -1]})
case("reverse axis out of range", "reverse", [(X23, "float32")], lambda x: tf.reverse(x, [0, -3]),
     attrs={"axis": [0, -3]})
SCAN = [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]
for name, fn in (("cumsum", tf.math.cumsum), ("cumprod", tf.math.cumprod)):
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                case(f"{name} axis {axis} exclusive {exclusive} reverse {reverse}", name,
                     [(SCAN, "float32")],
                     lambda x, f=fn, a=axis, e=exclusive, r=reverse: f(x, a, exclusive=e, reverse=r),
                     attrs={"axis": axis, "exclusive": exclusive, "reverse": reverse})
    case(f"{name} axis out of range", name, [(SCAN, "float32")], lambda x, f=fn: f(x, 2),
         attrs={"axis": 2})
    case(f"{name} negative axis out of range", name, [(SCAN, "float32")],
         lambda x, f=fn: f(x, -3), attrs={"axis": -3})
    case(f"{name} of a scalar", name, [(1.0, "float32")], lambda x, f=fn: f(x, 0),
         attrs={"axis": 0})
    case(f"{name} of bool", name, [([True], "bool")], lambda x, f=fn: f(x, 0), attrs={"axis": 0})
    case(f"{name} int32 wraps", name, [([2**31 - 1, 2, 3], "int32")], lambda x, f=fn: f(x, 0),
         attrs={"axis": 0})
    case(f"{name} NaN", name, [([1.0, NAN, 2.0], "float32")], lambda x, f=fn: f(x, 0),
         attrs={"axis": 0})
case("cumsum float32 in order", "cumsum", [([0.1, 1e8, -1e8, 0.3, 0.7, 1e-8, 3.3], "float32")],
     lambda x: tf.math.cumsum(x), attrs={"axis": 0})
case("cumsum half rounds each step", "cumsum", [([0.1] * 20, "half")], lambda x: tf.math.cumsum(x),
     attrs={"axis": 0})
case("cumsum bfloat16 rounds each step", "cumsum", [([0.1] * 20, "bfloat16")],
     lambda x: tf.math.cumsum(x), attrs={"axis": 0})
case("cumsum int64", "cumsum", [(X23I, "int64")], lambda x: tf.math.cumsum(x, 1, exclusive=True),
     attrs={"axis": 1, "exclusive": True})
X234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5
for num, axis in ((3, 1), (2, 0), (2, 2), (1, 2), (4, -1)):
    for index in range(num):
        case(f"split {num} along {axis} part {index}", "split", [(X234, "float32")],
             lambda x, n=num, a=axis, i=index: tf.split(x, n, axis=a)[i],
             attrs={"num_split": num, "axis": axis, "index": index})
case("split 0 ways", "split", [(X23, "float32")], lambda x: tf.split(x, 0, axis=1)[0],
     attrs={"num_split": 0, "axis": 1, "index": 0})
case("split unevenly", "split", [(X23, "float32")], lambda x: tf.split(x, 2, axis=1)[0],
     attrs={"num_split": 2, "axis": 1, "index": 0})
case("split axis out of range", "split", [(X23, "float32")], lambda x: tf.split(x, 3, axis=-3)[0],
     attrs={"num_split": 3, "axis": -3, "index": 0})
case("split a scalar", "split", [(1.0, "float32")], lambda x: tf.split(x, 1)[0],
     attrs={"num_split": 1, "axis": 0, "index": 0})
for sizes, index in (([1, 2], 1), ([-1, 2], 0), ([0, 3], 0), ([3, -1], 1), ([1, 1, 1, 0], 2)):
    case(f"split sizes {sizes} part {index}", "split", [(X23, "float32")],
         lambda x, s=sizes, i=index: tf.split(x, s, axis=1)[i],
         attrs={"size_splits": sizes, "axis": 1, "index": index})
for sizes in ([1, 1], [-1, -1], [-2, 5], [4, -1], [2], [-1]):
    case(f"split sizes {sizes}", "split", [(X23, "float32")],
         lambda x, s=sizes: tf.split(x, s, axis=1)[0],
         attrs={"size_splits": sizes, "axis": 1, "index": 0})
case("split sizes axis out of range", "split", [(X23, "float32")],
     lambda x: tf.split(x, [1, 2], axis=2)[0], attrs={"size_splits": [1, 2], "axis": 2, "index": 0})
case("split sizes of nothing", "split", [(X23, "float32")], lambda x: tf.split(x, [], axis=1)[0],
     attrs={"size_splits": [], "axis": 1, "index": 0})
case("stack scalars", "stack", [(1.0, "float32"), (-0.0, "float32")],
     lambda x, y: tf.stack([x, y]), attrs={"axis": 0})
case("stack one", "stack", [(X23, "float32")], lambda x: tf.stack([x], axis=1), attrs={"axis": 1})
case("unstack int64", "unstack", [(X23I, "int64")], lambda x: tf.unstack(x, axis=1)[2],
     attrs={"axis": 1, "index": 2})
SORT_F = [[3.0, -1.0, 2.0, -1.0, 0.0], [-0.0, 0.0, 5.0, -7.5, 5.0]]
SORT_I = [[3, -2**31, 2**31 - 1, 3, 0], [-1, 7, -1, 0, 2]]
for name, fn in (("sort", tf.sort), ("argsort", tf.argsort)):
    for direction in ("ASCENDING", "DESCENDING"):
        for axis in (-1, 0, 1):
            for values, dtype in ((SORT_F, "float32"), (SORT_I, "int32"), (SORT_I, "int64"),
                                  (SORT_F, "half")):
                case(f"{name} {dtype} {direction} axis {axis}", name, [(values, dtype)],
                     lambda x, f=fn, d=direction, a=axis: f(x, axis=a, direction=d),
                     attrs={"axis": axis, "direction": direction})
    case(f"{name} 3-d axis 1", name, [(X234 * np.float32(-1.0) % 5.0, "float32")],
         lambda x, f=fn: f(x, axis=1), attrs={"axis": 1, "direction": "ASCENDING"})
    case(f"{name} of a scalar", name, [(1.0, "float32")], lambda x, f=fn: f(x),
         attrs={"axis": -1, "direction": "ASCENDING"})
    case(f"{name} axis out of range", name, [(SORT_F, "float32")], lambda x, f=fn: f(x, axis=2),
         attrs={"axis": 2, "direction": "ASCENDING"})
    case(f"{name} negative axis out of range", name, [(SORT_F, "float32")],
         lambda x, f=fn: f(x, axis=-3, direction="DESCENDING"),
         attrs={"axis": -3, "direction": "DESCENDING"})
    case(f"{name} direction", name, [(SORT_F, "float32")], lambda x, f=fn: f(x, direction="ascending"),
         attrs={"axis": -1, "direction": "ascending"})
    case(f"{name} of bool", name, [([True, False], "bool")], lambda x, f=fn: f(x),
         attrs={"axis": -1, "direction": "ASCENDING"})
    case(f"{name} of bool descending", name, [([True, False], "bool")],
         lambda x, f=fn: f(x, direction="DESCENDING"),
         attrs={"axis": -1, "direction": "DESCENDING"})
    case(f"{name} of nothing", name, [(np.zeros([2, 0]), "float32")], lambda x, f=fn: f(x),
         attrs={"axis": -1, "direction": "ASCENDING"})
# Indexing ops: gather, gather_nd, where, boolean_mask, strided_slice, einsum.
P23 = [[1.0, 2.0, 3.0], [4.0, -0.0, NAN]]
for dtype in ["int32", "int64"]:
    case(f"gather {dtype} indices", "gather", [(P23, "float32"), ([1, 0, 1], dtype)],
         lambda p, i: tf.gather(p, i), attrs={})
    case(f"gather axis 1 {dtype}", "gather", [(P23, "float32"), ([[2, 0], [1, 1]], dtype)],
         lambda p, i: tf.gather(p, i, axis=1), attrs={"axis": 1})
for dtype in ["float64", "int32", "int64", "bool", "float16", "bfloat16"]:
    values = [[True, False], [False, True]] if dtype == "bool" else [[1, 0], [0, 1]]
    case(f"gather of {dtype}", "gather", [(values, dtype), ([1, 1, 0], "int32")],
         lambda p, i: tf.gather(p, i), attrs={})
case("gather batch_dims 1", "gather", [(P23, "float32"), ([[2, 0], [1, 1]], "int32")],
     lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), attrs={"axis": 1, "batch_dims": 1})
case("gather batch_dims 1 axis defaulted", "gather", [(P23, "float32"), ([[2, 0], [1, 1]], "int32")],
     lambda p, i: tf.gather(p, i, batch_dims=1), attrs={"batch_dims": 1})
case("gather axis 0 drops batch_dims", "gather", [(P23, "float32"), ([[0], [1]], "int32")],
     lambda p, i: tf.gather(p, i, axis=0, batch_dims=1), attrs={"axis": 0, "batch_dims": 1})
case("gather scalar index", "gather", [(P23, "float32"), (1, "int64")],
     lambda p, i: tf.gather(p, i, axis=-1), attrs={"axis": -1})
case("gather index out of range", "gather", [(P23, "float32"), ([0, 5], "int32")],
     lambda p, i: tf.gather(p, i), attrs={})
case("gather negative index", "gather", [(P23, "float32"), ([[0, -1]], "int64")],
     lambda p, i: tf.gather(p, i, axis=1), attrs={"axis": 1})
case("gather scalar index out of range", "gather", [(P23, "float32"), (7, "int32")],
     lambda p, i: tf.gather(p, i, axis=1), attrs={"axis": 1})
case("gather batch index out of range", "gather", [(P23, "float32"), ([[2, 0], [1, 3]], "int32")],
     lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), attrs={"axis": 1, "batch_dims": 1})
case("gather axis out of range", "gather", [(P23, "float32"), ([0], "int32")],
     lambda p, i: tf.gather(p, i, axis=2), attrs={"axis": 2})
case("gather batch_dims out of range", "gather", [(P23, "float32"), ([0], "int32")],
     lambda p, i: tf.gather(p, i, axis=1, batch_dims=2), attrs={"axis": 1, "batch_dims": 2})
case("gather batch_dims above axis", "gather", [(P23, "float32"), ([[0], [1]], "int32")],
     lambda p, i: tf.gather(p, i, axis=-2, batch_dims=1), attrs={"axis": -2, "batch_dims": 1})
case("gather batch sizes differ", "gather", [(P23, "float32"), ([[0], [1], [1]], "int32")],
     lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), attrs={"axis": 1, "batch_dims": 1})
case("gather float indices", "gather", [(P23, "float32"), ([0.0], "float32")],
     lambda p, i: tf.gather(p, i), attrs={})
case("gather of a scalar", "gather", [(1.0, "float32"), ([0], "int32")],
     lambda p, i: tf.gather(p, i), attrs={})

T232 = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
case("gather_nd elements", "gather_nd", [(P23, "float32"), ([[1, 2], [0, 0]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd rows", "gather_nd", [(P23, "float32"), ([[1], [0]], "int64")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd vector index", "gather_nd", [(T232, "float32"), ([1, 2], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd empty index", "gather_nd", [(P23, "float32"), (np.zeros([2, 0], np.int32), "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd batch_dims 1", "gather_nd", [(T232, "float32"), ([[[2], [0]], [[1], [1]]], "int32")],
     lambda p, i: tf.gather_nd(p, i, batch_dims=1), attrs={"batch_dims": 1})
case("gather_nd bool", "gather_nd", [([[True, False], [False, True]], "bool"), ([[1, 1], [0, 1]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd out of range", "gather_nd", [(T232, "float32"), ([[[1, 2]], [[0, 3]]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd vector index out of range", "gather_nd", [(P23, "float32"), ([1, 5], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd batch out of range", "gather_nd", [(P23, "float32"), ([[1], [3]], "int32")],
     lambda p, i: tf.gather_nd(p, i, batch_dims=1), attrs={"batch_dims": 1})
case("gather_nd too deep", "gather_nd", [(P23, "float32"), ([[1, 2, 0]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd scalar indices", "gather_nd", [(P23, "float32"), (1, "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd scalar params", "gather_nd", [(1.0, "float32"), ([[0]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd empty params", "gather_nd", [(np.zeros([0, 3]), "float32"), ([[0]], "int32")],
     lambda p, i: tf.gather_nd(p, i), attrs={})
case("gather_nd batch_dims too large", "gather_nd", [(P23, "float32"), ([[1], [2]], "int32")],
     lambda p, i: tf.gather_nd(p, i, batch_dims=2), attrs={"batch_dims": 2})
case("gather_nd batch sizes differ", "gather_nd", [(P23, "float32"), ([[1], [2], [0]], "int32")],
     lambda p, i: tf.gather_nd(p, i, batch_dims=1), attrs={"batch_dims": 1})

for dtype, values in (("bool", [[True, False], [False, True]]), ("float32", [0.0, 1.0, -0.0, NAN]),
                      ("int64", [[0, 3, 0], [-1, 0, 0]]), ("float16", [0.5, 0.0])):
    case(f"where {dtype}", "where", [(values, dtype)], tf.where)
case("where of nothing", "where", [(np.zeros([2, 0, 3], bool), "bool")], tf.where)
case("where of a scalar", "where", [(True, "bool")], tf.where)
case("where select", "select", [([True, False], "bool"), ([1, 2], "int32"), ([3, 4], "int32")], tf.where)
case("where select broadcast", "select",
     [([[True], [False]], "bool"), ([1.0, -0.0], "float32"), (NAN, "float32")], tf.where)
case("where select shapes", "select",
     [([True, False, True], "bool"), ([1, 2], "int32"), ([3, 4], "int32")], tf.where)
case("where select condition dtype", "select",
     [([1, 0], "int32"), ([1, 2], "int32"), ([3, 4], "int32")], tf.where)
case("where select dtypes differ", "select",
     [([True], "bool"), ([1], "int32"), ([1.0], "float32")], tf.where)

M32 = np.arange(6, dtype=np.float32).reshape(3, 2)
case("boolean_mask", "boolean_mask", [(M32, "float32"), ([True, False, True], "bool")],
     tf.boolean_mask, attrs={"axis": 0})
case("boolean_mask axis 1", "boolean_mask", [(M32, "float32"), ([False, True], "bool")],
     lambda t, m: tf.boolean_mask(t, m, axis=1), attrs={"axis": 1})
case("boolean_mask 2-D mask", "boolean_mask",
     [(M32, "float32"), ([[True, False], [False, True], [True, True]], "bool")],
     tf.boolean_mask, attrs={"axis": 0})
case("boolean_mask shapes", "boolean_mask", [(M32, "float32"), ([True, False], "bool")],
     tf.boolean_mask, attrs={"axis": 0})
case("boolean_mask scalar mask", "boolean_mask", [(M32, "float32"), (True, "bool")],
     tf.boolean_mask, attrs={"axis": 0})

X234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
SLICES = [
    ("basic", [0, 1, 0], [2, 3, 4], [1, 1, 2], 0, 0, 0, 0, 0),
    ("negative strides", [-1, 0, 3], [-3, 1, 0], [-1, 1, -2], 0, 0, 0, 0, 0),
    ("masks", [1, 5, 1], [0, 0, 3], [-1, 1, 1], 2, 1, 0, 0, 0),
    ("ellipsis new axis shrink", [0, 0, 0], [1, 1, 1], [1, 1, 1], 0, 0, 2, 4, 1),
    ("new axis wins over shrink", [0], [1], [1], 0, 0, 0, 1, 1),
    ("out of range bounds", [-100], [100], [1], 0, 0, 0, 0, 0),
    ("reversed out of range bounds", [100], [-100], [-1], 0, 0, 0, 0, 0),
    ("shrink every axis", [1, -1, -1], [2, 0, 0], [1, 1, 1], 0, 0, 0, 0, 7),
    ("step past the end", [0], [2], [10], 0, 0, 0, 0, 0),
    ("zero stride", [0], [1], [0], 0, 0, 0, 0, 0),
    ("shrink out of range", [5], [6], [1], 0, 0, 0, 0, 1),
    ("shrink negative out of range", [-3], [-2], [1], 0, 0, 0, 0, 1),
    ("two ellipses", [0, 0], [1, 1], [1, 1], 0, 0, 3, 0, 0),
    ("lengths differ", [0, 0], [1], [1, 1], 0, 0, 0, 0, 0),
    ("too many indices", [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], 0, 0, 0, 0, 0),
    ("shrink with a negative stride", [1], [0], [-1], 0, 0, 0, 0, 1),
]
for name, b, e, st, bm, em, el, na, sh in SLICES:
    case(f"strided_slice {name}", "strided_slice", [(X234, "float32")],
         lambda x, b=b, e=e, st=st, bm=bm, em=em, el=el, na=na, sh=sh: tf.strided_slice(
             x, b, e, st, begin_mask=bm, end_mask=em, ellipsis_mask=el, new_axis_mask=na,
             shrink_axis_mask=sh),
         attrs={"begin": b, "end": e, "strides": st, "masks": [bm, em, el, na, sh]})
case("strided_slice of a scalar", "strided_slice", [(1.0, "float32")],
     lambda x: tf.strided_slice(x, [0], [1], [1]),
     attrs={"begin": [0], "end": [1], "strides": [1], "masks": [0, 0, 0, 0, 0]})
case("strided_slice bool", "strided_slice", [([True, False, True], "bool")],
     lambda x: tf.strided_slice(x, [0], [3], [2]),
     attrs={"begin": [0], "end": [3], "strides": [2], "masks": [0, 0, 0, 0, 0]})

A23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0
B34 = np.arange(12, dtype=np.float32).reshape(3, 4) / 3.0 - 1.0
S33 = np.arange(9, dtype=np.float32).reshape(3, 3)
EINSUM = [
    ("ij,jk->ik", [(A23, "float32"), (B34, "float32")]),
    ("ij,jk", [(A23, "float32"), (B34, "float32")]),
    ("ij, jk -> ki", [(A23, "float32"), (B34, "float32")]),
    ("ij,jk->ik", [(A23, "float64"), (B34, "float64")]),
    ("ij,jk->ik", [(A23 * 4, "int32"), (B34 * 3 + 3, "int32")]),
    ("ij,jk->ik", [(A23 * 4, "int64"), (B34 * 3 + 3, "int64")]),
    ("ij,kj->ik", [(A23, "float32"), (A23, "float32")]),
    ("ji,jk->ik", [(A23, "float32"), (A23, "float32")]),
    ("bij,bjk->bik", [(np.arange(12, dtype=np.float32).reshape(2, 2, 3), "float32"), (T232, "float32")]),
    ("bi,bj->bij", [(A23, "float32"), (A23, "float32")]),
    ("ij,ij->", [(A23, "float32"), (A23, "float32")]),
    ("ij,ij->ij", [(A23, "float32"), (A23, "float32")]),
    ("i,j->ij", [([1.0, 2.0], "float32"), ([3.0, 4.0, 5.0], "float32")]),
    ("ij,k->k", [(A23, "float32"), ([1.0, 2.0, 3.0, 4.0], "float32")]),
    (",->", [(2.0, "float32"), (3.0, "float32")]),
    ("ba", [(A23, "float32")]),
    ("ij->", [(A23, "float32")]),
    ("ij->j", [(A23, "float32")]),
    ("ii", [(S33, "float32")]),
    ("ii->i", [(S33, "float32")]),
    ("iij->j", [(np.arange(18, dtype=np.float32).reshape(3, 3, 2), "float32")]),
    ("iJ->Ji", [(A23, "float32")]),
    ("...", [(A23, "float32")]),
    ("i...->...", [(A23, "float32")]),
    ("...ij,jk->...ik", [(np.arange(30, dtype=np.float32).reshape(5, 2, 3) / 7, "float32"), (B34, "float32")]),
    ("...ij,...jk->...ik", [(np.arange(12, dtype=np.float32).reshape(2, 1, 2, 3) / 5, "float32"),
                            (np.arange(60, dtype=np.float32).reshape(5, 3, 4) / 9, "float32")]),
    ("ij,jk->ik", [(np.zeros([2, 0]), "float32"), (np.zeros([0, 3]), "float32")]),
    ("ij,jk->ik", [(A23, "float16"), (B34, "float16")]),
    # Errors.
    ("ij,jk->ik", [(A23, "float32"), (A23, "float32")]),
    ("ijk,jk->ik", [(A23, "float32"), (B34, "float32")]),
    ("ij,jk->iz", [(A23, "float32"), (B34, "float32")]),
    ("ij,jk->ik", [(A23, "float32")]),
    ("i1,jk->ik", [(A23, "float32"), (B34, "float32")]),
    ("ij->ii", [(A23, "float32")]),
    ("ij->i->j", [(A23, "float32")]),
    ("ij,jk->ik", [(A23, "float32"), (B34, "float64")]),
    ("ij,jk->ik", [([[1.0], [2.0]], "float32"), (B34, "float32")]),
    ("...ij,...jk", [(np.ones([2, 1, 2, 3]), "float32"), (np.ones([5, 3, 4]), "float32")]),
    ("...i,...i->...", [(np.ones([2, 3]), "float32"), (np.ones([4, 3]), "float32")]),
    ("ij...->", [([1.0, 2.0], "float32")]),
    ("...0->i", [(A23, "float32")]),
    ("ij->ji", [([[True]], "bool")]),
]
for equation, inputs in EINSUM:
    operands = ",".join(f"{d}{list(np.shape(v))}" for v, d in inputs)
    case(f"einsum {equation} {operands}", "einsum", inputs,
         lambda *xs, eq=equation: tf.einsum(eq, *xs), attrs={"equation": equation},
         tolerance=1e-6 if inputs[0][1] == "float32" else 1e-3 if inputs[0][1] == "float16" else 0.0)

# A dtype the op does not allow.
case("exp of int32", "exp", [([1, 2], "int32")], tf.exp)
case("floor of int32", "floor", [([1, 2], "int32")], tf.floor)
case("add of bool", "add", [([True], "bool"), ([False], "bool")], tf.add)
case("reduce_sum of bool", "reduce_sum", [([True], "bool")], tf.reduce_sum)
case("reduce_max of bool", "reduce_max", [([True], "bool")], tf.reduce_max)
case("negative of bool", "negative", [([True], "bool")], tf.negative)
case("relu of bool", "relu", [([True], "bool")], tf.nn.relu)
case("softmax of int32", "softmax", [([1, 2], "int32")], tf.nn.softmax)
case("add_n of bool", "add_n", [([True], "bool"), ([True], "bool")], lambda x, y: tf.add_n([x, y]))
case("matmul of bool", "matmul", [([[True]], "bool"), ([[True]], "bool")], tf.matmul)
case("sqrt of int64", "sqrt", [([4], "int64")], tf.sqrt)

# Python's == and != on shapes that do not broadcast; tf.equal raises.
case("operator== shapes that do not broadcast", "operator==",
     [([1, 2, 3], "int32"), ([1, 2], "int32")], lambda x, y: x == y)
case("operator!= shapes that do not broadcast", "operator!=",
     [([1, 2, 3], "int32"), ([1, 2], "int32")], lambda x, y: x != y)
case("equal shapes that do not broadcast", "equal",
     [([1, 2, 3], "int32"), ([1, 2], "int32")], tf.equal)

json.dump({"generator": "tests/tools/gen_tf_fixture.py", "tensorflow": tf.__version__,
           "cases": CASES}, sys.stdout, indent=1)
sys.stdout.write("\n")
