"""The conv2d cases (case 10 of docs/performance.md, issue 17 §5) as bench/conv2d.cpp and
bench/conv2d_peers.py run them: shapes, inputs and float64 references at the sampled outputs.

Every implementation computes the same float32 inputs (Note [Shared benchmark inputs] in
bench/bench_inputs.hpp): the image x [n, h, w, c] (seed 1), the HWIO filter f [k, k, c, o]
(seed 2) and the output gradient dy [n, h-k+1, w-k+1, o] (seed 3), all uniform in [-1, 1);
stride 1, VALID padding, NHWC. Each op's result is reported at sample_indices(its size) only:
Conv2D's y, Conv2DBackpropInput's dx (x's shape) and Conv2DBackpropFilter's df (f's shape).
"""

import numpy as np

from cpu_cases import relative_error, sample_indices, shared_inputs, shared_inputs_at  # noqa: F401

# (label, n, h, w, c, k, o): the seed CNN's three convolutions at batch 128 and a ResNet layer.
CASES = [("seed conv1 28x28x1->32", 128, 28, 28, 1, 3, 32),
         ("seed conv2 13x13x32->64", 128, 13, 13, 32, 3, 64),
         ("seed conv3 5x5x64->64", 128, 5, 5, 64, 3, 64),
         ("resnet 56x56x64->64", 128, 56, 56, 64, 3, 64)]
OPS = ["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"]
X_INPUT, F_INPUT, DY_INPUT = (1, -1.0, 1.0), (2, -1.0, 1.0), (3, -1.0, 1.0)
# Relative 2-norm error over the samples: 1e-5 for float32 (docs/performance.md), but the filter
# gradient, each of whose entries sums n * oh * ow products (373,248 for the ResNet layer): there
# float32 rounding depends on how long the accumulation runs are, and XLA's measured 1.04e-5
# (oneDNN in eagle and TensorFlow: 6e-7, PyTorch: 1.3e-6).
TOLERANCE = {"Conv2D": 1e-5, "Conv2DBackpropInput": 1e-5, "Conv2DBackpropFilter": 1e-4}


def case(label):
    for c in CASES:
        if c[0] == label:
            return c
    raise KeyError(label)


def inputs(label):
    """x, f, dy as float32 NumPy arrays (NHWC, HWIO, NHWC)."""
    _, n, h, w, c, k, o = case(label)
    oh, ow = h - k + 1, w - k + 1
    x = shared_inputs(n * h * w * c, *X_INPUT).reshape(n, h, w, c)
    f = shared_inputs(k * k * c * o, *F_INPUT).reshape(k, k, c, o)
    dy = shared_inputs(n * oh * ow * o, *DY_INPUT).reshape(n, oh, ow, o)
    return x, f, dy


def samples_of(values):
    flat = np.asarray(values).reshape(-1)
    return [float(v) for v in flat[sample_indices(flat.size)]]


def reference(label, op):
    """float64 values of op's result at sample_indices(its size), from the inputs by index."""
    _, n, h, w, c, k, o = case(label)
    oh, ow = h - k + 1, w - k + 1
    out = []
    if op == "Conv2D":
        kh, kw, cc = np.meshgrid(np.arange(k), np.arange(k), np.arange(c), indexing="ij")
        kh, kw, cc = kh.ravel(), kw.ravel(), cc.ravel()
        for flat in sample_indices(n * oh * ow * o):
            ni, rest = divmod(int(flat), oh * ow * o)
            i, rest = divmod(rest, ow * o)
            j, oi = divmod(rest, o)
            xs = shared_inputs_at(((ni * h + i + kh) * w + j + kw) * c + cc, *X_INPUT)
            fs = shared_inputs_at(((kh * k + kw) * c + cc) * o + oi, *F_INPUT)
            out.append(float(xs.astype(np.float64) @ fs.astype(np.float64)))
    elif op == "Conv2DBackpropInput":
        kh, kw, oo = np.meshgrid(np.arange(k), np.arange(k), np.arange(o), indexing="ij")
        kh, kw, oo = kh.ravel(), kw.ravel(), oo.ravel()
        for flat in sample_indices(n * h * w * c):
            ni, rest = divmod(int(flat), h * w * c)
            hh, rest = divmod(rest, w * c)
            ww, ci = divmod(rest, c)
            i, j = hh - kh, ww - kw
            keep = (i >= 0) & (i < oh) & (j >= 0) & (j < ow)
            dys = shared_inputs_at(((ni * oh + i[keep]) * ow + j[keep]) * o + oo[keep], *DY_INPUT)
            fs = shared_inputs_at(((kh[keep] * k + kw[keep]) * c + ci) * o + oo[keep], *F_INPUT)
            out.append(float(dys.astype(np.float64) @ fs.astype(np.float64)))
    elif op == "Conv2DBackpropFilter":
        ni, i, j = np.meshgrid(np.arange(n), np.arange(oh), np.arange(ow), indexing="ij")
        ni, i, j = ni.ravel(), i.ravel(), j.ravel()
        for flat in sample_indices(k * k * c * o):
            kh, rest = divmod(int(flat), k * c * o)
            kw, rest = divmod(rest, c * o)
            ci, oi = divmod(rest, o)
            xs = shared_inputs_at(((ni * h + i + kh) * w + j + kw) * c + ci, *X_INPUT)
            dys = shared_inputs_at(((ni * oh + i) * ow + j) * o + oi, *DY_INPUT)
            out.append(float(xs.astype(np.float64) @ dys.astype(np.float64)))
    else:
        raise KeyError(op)
    return np.array(out)


def check(records, failures):
    """Sets rel_err and check on every conv2d record with a sample; appends the failures."""
    refs = {}
    for r in records:
        if r.get("case") != "conv2d" or "sample" not in r:
            continue
        key = (r["label"], r["op"])
        if key not in refs:
            refs[key] = reference(*key)
        err = relative_error(r["sample"], refs[key])
        r["rel_err"] = err
        r["check"] = "ok" if err < TOLERANCE[r["op"]] else "FAILED"
        if r["check"] != "ok":
            failures.append(f"{r['impl']} conv2d {r['label']} {r['op']}: relative error "
                            f"{err:.3g} against the float64 reference (tolerance "
                            f"{TOLERANCE[r['op']]:g})")


# ---- The table (bench/compare) -----------------------------------------------------------------
PEERS = [("tensorflow", "TensorFlow"), ("jax", "JAX jit"), ("torch", "PyTorch")]


def rows(records):
    """[{label, op, eagle_us, peers: {impl: us}, best, met}] in CASES x OPS order; target: eagle
    >= 1.0x the best peer (peer time / eagle time). Only results that passed their check."""
    med = {}
    for r in records:
        if r.get("case") == "conv2d" and r.get("check", "ok") == "ok":
            med[(r["label"], r["op"], r["impl"])] = r["median_us"]
    out = []
    for label, *_ in CASES:
        for op in OPS:
            e = med.get((label, op, "eagle"))
            if e is None:
                continue
            peers = {impl: med[(label, op, impl)] for impl, _ in PEERS
                     if (label, op, impl) in med}
            best = min(peers.values()) / e if peers else None
            met = "-" if best is None else ("yes" if best >= 1.0 else "no") + f" ({best:.2f}x)"
            out.append({"label": label, "op": op, "eagle_us": e, "peers": peers, "best": best,
                        "target": ">= 1.0x the best", "met": met})
    return out


def fmt_time(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def cells(row):
    peer_cells = []
    for impl, _ in PEERS:
        v = row["peers"].get(impl)
        peer_cells.append("-" if v is None else f"{fmt_time(v)} ({v / row['eagle_us']:.2f}x)")
    return [row["label"], row["op"], fmt_time(row["eagle_us"])] + peer_cells + \
        [row["target"], row["met"]]


def header():
    return ["case", "op", "eagle"] + [name for _, name in PEERS] + ["target", "met"]
