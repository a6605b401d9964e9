"""What the TensorFlow fixture generators share (gen_tf_fixture.py, gen_tf_grad_fixture.py,
gen_nn_fixture_ops.py): tensors as JSON, with NaN, the infinities and -0.0 as strings (JSON
cannot hold them), and TensorFlow's error messages without its decoration, keeping only the
dtypes eagle has in "allowed values" lists. Import it after setting TF_CPP_MIN_LOG_LEVEL.
"""
import math
import re

import numpy as np
import tensorflow as tf

EAGLE_DTYPES = ["bfloat16", "half", "float", "double", "int32", "int64", "bool"]


def encode_value(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0 and math.copysign(1, v) < 0:
        return "-0.0"
    return v


def encode(t):
    a = np.asarray(t)
    return {"dtype": tf.as_dtype(t.dtype).name, "shape": list(a.shape),
            "values": [encode_value(v) for v in a.reshape(-1).tolist()]}


def normalise_message(text):
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", text)
    text = re.sub(r"\s*; NodeDef:.*?(?= \[Op:)", "", text, flags=re.S)
    text = re.sub(r"\s*name:\s*[\w/]*$", "", text.strip())
    # With oneDNN on (tensorflow-cpu's default on x86-64) some ops run as their rewrites:
    # Einsum as _MklEinsum, others as _MklNative<Op>.
    text = text.replace("_MklEinsum", "Einsum").replace("_MklNative", "")

    def keep_ours(match):
        kept = [d for d in match.group(1).split(", ") if d in EAGLE_DTYPES]
        return "allowed values: " + ", ".join(kept)
    return re.sub(r"allowed values: ((?:\w+, )*\w+)", keep_ours, text)
