"""The CPU cases of docs/performance.md as bench/compare runs them: sizes, inputs and references.

Shared by bench/cpu_peers.py (NumPy, TensorFlow, JAX) and bench/compare (the checks). The inputs
and the sampled outputs follow Note [Shared benchmark inputs] in bench/bench_inputs.hpp, which the
eagle programs use: the same float32 values everywhere, computed from an index hash, and each
result reported at sample_indices(n) only. The references here are float64 (float32 for the
dispatch chain, whose every step is one correctly rounded float32 operation in every library).
"""

import numpy as np

CHAIN_OPS = 10000
TOLERANCE = 1e-5  # relative 2-norm error over the samples, float32 (docs/performance.md)
ROWS = COLS = 4096  # the [4096, 4096] cases
AXPY_ALPHA = 0.5


# ---- Note [Shared benchmark inputs] -----------------------------------------------------------
def shared_inputs_at(index, seed, lo, hi):
    """float32 inputs at the given flat indices (any integer array), as bench_inputs.hpp."""
    with np.errstate(over="ignore"):
        h = np.asarray(index, dtype=np.uint64).astype(np.uint32) * np.uint32(0x9E3779B1)
        h = h + np.uint32(seed) * np.uint32(0x85EBCA77)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x7FEB352D)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x846CA68B)
        h ^= h >> np.uint32(16)
    return (lo + (hi - lo) * (h >> np.uint32(8)).astype(np.float64) * 2.0**-24).astype(np.float32)


def shared_inputs(n, seed, lo, hi):
    return shared_inputs_at(np.arange(n, dtype=np.uint64), seed, lo, hi)


def sample_indices(n):
    if n <= 1:
        return np.zeros(n, dtype=np.int64)
    k = min(n, 64)
    return np.array([j * (n - 1) // (k - 1) for j in range(k)], dtype=np.int64)


def samples_of(values):
    """A result's samples as a list of floats (for the JSON line)."""
    flat = np.asarray(values).reshape(-1)
    return [float(v) for v in flat[sample_indices(flat.size)]]


# ---- The cases -------------------------------------------------------------------------------
# Inputs per case (seed, lo, hi) and sizes per mode. A size is a tuple of the dimensions the case
# needs; label() names it the same way in every implementation.
CHAIN_INPUTS = {"x": (1, 0.0, 1.0), "y": (2, -0.25, 0.75), "z": (3, 0.9, 1.0)}
PAIR_INPUTS = {"a": (1, -1.0, 1.0), "b": (2, -1.0, 1.0)}


def sizes(case, quick):
    if case in ("dispatch_chain_mixed", "dispatch_chain_add"):
        return [(1,), (1024,), (65536,)]
    if case in ("elementwise_add", "axpy"):
        return [(1 << 12,), (1 << 20,)] + ([] if quick else [(1 << 26,)])
    if case in ("broadcast_add", "reduce_sum_axis0", "reduce_sum_axis1", "softmax"):
        return [(ROWS, COLS)]
    if case == "matmul_f32":
        if quick:
            return [(1, 256), (1, 1024)]
        return [(1, 256), (1, 1024), (1, 4096), (1, 8192), (16, 4096)]
    raise KeyError(case)


def label(case, size):
    if case.startswith("dispatch_chain"):
        n = size[0]
        return str(n) if n < 1024 else f"{n // 1024}K"
    if case in ("elementwise_add", "axpy"):
        return f"2^{size[0].bit_length() - 1}"
    if case == "broadcast_add":
        return f"{size[0]}x{size[1]}+{size[1]}"
    if case in ("reduce_sum_axis0", "reduce_sum_axis1", "softmax"):
        return f"{size[0]}x{size[1]}"
    if case == "matmul_f32":
        batch, n = size
        return str(n) if batch == 1 else f"{batch}x{n}x{n}"
    raise KeyError(case)


def size_of(case, label_text):
    """The size tuple that label() names (eagle also runs sizes outside the lists, like 2^24)."""
    for quick in (False, True):
        for size in sizes(case, quick):
            if label(case, size) == label_text:
                return size
    if case in ("elementwise_add", "axpy") and label_text.startswith("2^"):
        return (1 << int(label_text[2:]),)
    raise KeyError(f"{case} has no size {label_text}")


def reps(case, size, quick):
    """Timed repetitions: 30 (10 quick); fewer where one repetition takes seconds on 2 cores.
    --quick times a chain 3 times: a JAX chain of 10,000 ops takes about a second."""
    if quick and case.startswith("dispatch_chain"):
        return 3
    if case == "matmul_f32":
        flops = 2 * size[0] * size[1] ** 3
        if flops > 1e12:
            return 5
        if flops > 1e11:
            return 10
    return 10 if quick else 30


def inner(case, size):
    """Calls per timed repetition, so that small cases are long enough to time."""
    if case in ("elementwise_add", "axpy"):
        return max(1, (1 << 22) // size[0])
    if case == "matmul_f32":
        return max(1, (512**3) // (size[0] * size[1] ** 3))
    return 1


CASES = [
    "dispatch_chain_mixed",
    "elementwise_add",
    "axpy",
    "broadcast_add",
    "reduce_sum_axis0",
    "reduce_sum_axis1",
    "softmax",
    "matmul_f32",
]


# ---- Inputs (whole arrays, for the implementations) --------------------------------------------
def chain_inputs(n):
    return {k: shared_inputs(n, *spec) for k, spec in CHAIN_INPUTS.items()}


def pair_inputs(n):
    return {k: shared_inputs(n, *spec) for k, spec in PAIR_INPUTS.items()}


def matmul_inputs(batch, n):
    shape = (n, n) if batch == 1 else (batch, n, n)
    a = shared_inputs(batch * n * n, *PAIR_INPUTS["a"]).reshape(shape)
    b = shared_inputs(batch * n * n, *PAIR_INPUTS["b"]).reshape(shape)
    return a, b


# ---- References at the sampled outputs ----------------------------------------------------------
def _chain_reference(n, mixed):
    idx = sample_indices(n)
    x = shared_inputs_at(idx, *CHAIN_INPUTS["x"])
    y = shared_inputs_at(idx, *CHAIN_INPUTS["y"])
    z = shared_inputs_at(idx, *CHAIN_INPUTS["z"])
    zero = np.float32(0)
    for i in range(CHAIN_OPS):
        step = i % 3 if mixed else 0
        if step == 0:
            x = x + y
        elif step == 1:
            x = x * z
        else:
            x = np.maximum(x, zero)
    return x.astype(np.float64)


def reference(case, size):
    """float64 values of the case's output at sample_indices(output size)."""
    if case in ("dispatch_chain_mixed", "dispatch_chain_add"):
        return _chain_reference(size[0], case == "dispatch_chain_mixed")
    if case in ("elementwise_add", "axpy"):
        idx = sample_indices(size[0])
        a = shared_inputs_at(idx, *PAIR_INPUTS["a"]).astype(np.float64)
        b = shared_inputs_at(idx, *PAIR_INPUTS["b"]).astype(np.float64)
        return a + b if case == "elementwise_add" else AXPY_ALPHA * a + b
    rows, cols = size if len(size) == 2 else (0, 0)
    if case == "broadcast_add":
        idx = sample_indices(rows * cols)
        a = shared_inputs_at(idx, *PAIR_INPUTS["a"]).astype(np.float64)
        b = shared_inputs_at(idx % cols, *PAIR_INPUTS["b"]).astype(np.float64)
        return a + b
    if case == "reduce_sum_axis0":
        out = []
        for c in sample_indices(cols):
            column = np.arange(rows, dtype=np.int64) * cols + c
            out.append(shared_inputs_at(column, *PAIR_INPUTS["a"]).astype(np.float64).sum())
        return np.array(out)
    if case == "reduce_sum_axis1":
        out = []
        for r in sample_indices(rows):
            row = r * cols + np.arange(cols, dtype=np.int64)
            out.append(shared_inputs_at(row, *PAIR_INPUTS["a"]).astype(np.float64).sum())
        return np.array(out)
    if case == "softmax":
        out = []
        for flat in sample_indices(rows * cols):
            r, c = divmod(int(flat), cols)
            row = shared_inputs_at(r * cols + np.arange(cols), *PAIR_INPUTS["a"]).astype(np.float64)
            e = np.exp(row - row.max())
            out.append(e[c] / e.sum())
        return np.array(out)
    if case == "matmul_f32":
        batch, n = size
        out = []
        k = np.arange(n, dtype=np.int64)
        for flat in sample_indices(batch * n * n):
            b, rest = divmod(int(flat), n * n)
            i, j = divmod(rest, n)
            a_row = shared_inputs_at(b * n * n + i * n + k, *PAIR_INPUTS["a"]).astype(np.float64)
            b_col = shared_inputs_at(b * n * n + k * n + j, *PAIR_INPUTS["b"]).astype(np.float64)
            out.append(float(a_row @ b_col))
        return np.array(out)
    raise KeyError(case)


def relative_error(got, want):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return float("inf")
    den = float(np.sqrt(np.sum(want * want)))
    num = float(np.sqrt(np.sum((got - want) ** 2)))
    return num / den if den > 0 else num


# ---- Cold start (case 6 of docs/performance.md) ------------------------------------------------
# Each implementation's --cold-start mode adds two [1024] tensors filled with these values, then
# multiplies two [256, 256] ones-filled-with-0.5 matrices, printing the monotonic clock after each
# (CLOCK_MONOTONIC: std::chrono::steady_clock, Python's time.monotonic_ns).
COLD_ADD = (1.5, 2.25, 3.75)  # x, y, x + y
COLD_MATMUL = (256, 0.5, 64.0)  # n, value, each output element: n * value * value
