#!/usr/bin/env python3
"""eagle's peers on the CPU: the cases of bench/cpu_cases.py with NumPy, TensorFlow or JAX.

    python3 bench/cpu_peers.py --impl numpy|tensorflow|jax [--quick] [--threads N] [--filter T] [--exclude T]
    python3 bench/cpu_peers.py --impl ... --cold-start

One library per process; bench/compare runs each in its own process pinned to the same cores as
eagle. Prints one JSON line per case in the format of eagle's programs ("case", "impl", "label",
"median_us", "min_us", "max_us", "reps", "inner", "sample", ...). Inputs are the shared float32
inputs of cpu_cases.py, made with NumPy and handed to the library before timing; each repetition
times `inner` calls and reports per call (the dispatch chain: the whole chain, one sync at the
end). JAX dispatches asynchronously, so every timed call waits for its result
(block_until_ready); TensorFlow's eager CPU ops and NumPy return finished results.

Threads: --threads N sets OPENBLAS_NUM_THREADS/OMP_NUM_THREADS (NumPy's OpenBLAS), TensorFlow's
intra- and inter-op pools, and XLA's CPU thread pool (XLA_FLAGS), before the library loads.

--cold-start: import the library, add two [1024] tensors, print the monotonic clock, multiply two
[256, 256] matrices, print it again (one JSON line; bench/compare takes the clock at spawn).
"""

import argparse
import json
import os
import sys
import time


def set_thread_env(threads):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    multi = "true" if threads > 1 else "false"
    xla = f"--xla_cpu_multi_thread_eigen={multi} intra_op_parallelism_threads={threads}"
    os.environ.setdefault("XLA_FLAGS", xla)


# ---- The libraries: the same few verbs for each ------------------------------------------------
class Numpy:
    name = "numpy"

    def __init__(self, threads):
        import numpy as np

        self.np = np
        self.version = np.__version__
        self.zero = np.float32(0)

    def put(self, array):
        return array

    def get(self, t):
        return t

    def wait(self, t):
        return t

    def add(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def relu(self, x):
        return self.np.maximum(x, self.zero)

    def scalar(self, v):
        return self.np.float32(v)

    def broadcast_add(self, a, b):
        return a + b

    def reduce_sum(self, x, axis):
        return x.sum(axis=axis)

    def softmax(self, x):
        # What NumPy users write (scipy.special.softmax does the same): NumPy has no softmax.
        e = self.np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def matmul(self, a, b):
        return a @ b

    def fill(self, shape, value):
        return self.np.full(shape, value, dtype=self.np.float32)


class TensorFlow:
    name = "tensorflow"

    def __init__(self, threads):
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        self.tf = tf
        self.version = tf.__version__

    def put(self, array):
        return self.tf.constant(array)

    def get(self, t):
        return t.numpy()

    def wait(self, t):
        return t  # eager CPU ops return finished tensors

    def add(self, x, y):
        return self.tf.add(x, y)

    def mul(self, x, y):
        return self.tf.multiply(x, y)

    def relu(self, x):
        return self.tf.nn.relu(x)

    def scalar(self, v):
        return self.tf.constant(v, dtype=self.tf.float32)

    def broadcast_add(self, a, b):
        return self.tf.add(a, b)

    def reduce_sum(self, x, axis):
        return self.tf.reduce_sum(x, axis=axis)

    def softmax(self, x):
        return self.tf.nn.softmax(x, axis=-1)

    def matmul(self, a, b):
        return self.tf.matmul(a, b)

    def fill(self, shape, value):
        return self.tf.fill(shape, self.tf.constant(value, dtype=self.tf.float32))


class Jax:
    name = "jax"

    def __init__(self, threads):
        import jax
        import jax.numpy as jnp

        self.jax = jax
        self.jnp = jnp
        self.version = jax.__version__

    def put(self, array):
        return self.jax.device_put(array).block_until_ready()

    def get(self, t):
        import numpy as np

        return np.asarray(t)

    def wait(self, t):
        return t.block_until_ready()

    def add(self, x, y):
        return self.jnp.add(x, y)

    def mul(self, x, y):
        return self.jnp.multiply(x, y)

    def relu(self, x):
        return self.jax.nn.relu(x)

    def scalar(self, v):
        return self.jnp.float32(v)

    def broadcast_add(self, a, b):
        return self.jnp.add(a, b)

    def reduce_sum(self, x, axis):
        return self.jnp.sum(x, axis=axis)

    def softmax(self, x):
        return self.jax.nn.softmax(x, axis=-1)

    def matmul(self, a, b):
        return self.jnp.matmul(a, b)

    def fill(self, shape, value):
        return self.jnp.full(shape, value, dtype=self.jnp.float32)


LIBRARIES = {"numpy": Numpy, "tensorflow": TensorFlow, "jax": Jax}


# ---- Timing ------------------------------------------------------------------------------------
def summarize(values):
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return {"median_us": med, "min_us": v[0], "max_us": v[-1], "reps": n}


def measure(fn, warmup, reps, inner):
    """fn() runs one call and returns its finished result; times are per call, in µs."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            result = fn()
        times.append((time.perf_counter_ns() - t0) / 1e3 / inner)
    return summarize(times), result


# ---- The cases ---------------------------------------------------------------------------------
def run_case(lib, case, size, opt, cases):
    if case.startswith("dispatch_chain"):
        inputs = cases.chain_inputs(size[0])
        x0, y, z = (lib.put(inputs[k]) for k in ("x", "y", "z"))
        mixed = case == "dispatch_chain_mixed"

        def call():
            x = x0
            for i in range(cases.CHAIN_OPS):
                step = i % 3 if mixed else 0
                if step == 0:
                    x = lib.add(x, y)
                elif step == 1:
                    x = lib.mul(x, z)
                else:
                    x = lib.relu(x)
            return lib.wait(x)

    elif case in ("elementwise_add", "axpy"):
        inputs = cases.pair_inputs(size[0])
        a, b = lib.put(inputs["a"]), lib.put(inputs["b"])
        alpha = lib.scalar(cases.AXPY_ALPHA)
        if case == "elementwise_add":
            def call():
                return lib.wait(lib.add(a, b))
        else:
            def call():
                return lib.wait(lib.add(lib.mul(alpha, a), b))

    elif case in ("broadcast_add", "reduce_sum_axis0", "reduce_sum_axis1", "softmax"):
        rows, cols = size
        inputs = cases.pair_inputs(rows * cols)
        a = lib.put(inputs["a"].reshape(rows, cols))
        if case == "broadcast_add":
            b = lib.put(inputs["b"][:cols].copy())

            def call():
                return lib.wait(lib.broadcast_add(a, b))
        elif case == "softmax":
            def call():
                return lib.wait(lib.softmax(a))
        else:
            axis = 0 if case == "reduce_sum_axis0" else 1

            def call():
                return lib.wait(lib.reduce_sum(a, axis))

    elif case == "matmul_f32":
        ha, hb = cases.matmul_inputs(*size)
        a, b = lib.put(ha), lib.put(hb)
        del ha, hb

        def call():
            return lib.wait(lib.matmul(a, b))

    else:
        raise KeyError(case)

    reps = opt.reps or cases.reps(case, size, opt.quick)
    inner = cases.inner(case, size)
    warmup = 1 if opt.quick else 2
    stats, result = measure(call, warmup, reps, inner)
    rec = {"case": case, "impl": lib.name, "label": cases.label(case, size), "size": list(size)}
    rec.update(stats)
    rec.update({"inner": inner, "threads": opt.threads, "version": lib.version})
    if case.startswith("dispatch_chain"):
        rec["us_per_op"] = stats["median_us"] / cases.CHAIN_OPS
    rec["sample"] = cases.samples_of(lib.get(result))
    print(json.dumps(rec), flush=True)
    return rec


def cold_start(impl, threads):
    # Nothing heavier than the standard library before the library itself is imported.
    from cpu_cases import COLD_ADD, COLD_MATMUL

    lib = LIBRARIES[impl](threads)
    x = lib.fill([1024], COLD_ADD[0])
    y = lib.fill([1024], COLD_ADD[1])
    s = lib.get(lib.wait(lib.add(x, y)))
    t_add = time.monotonic_ns()
    n, v, _ = COLD_MATMUL
    a = lib.fill([n, n], v)
    c = lib.get(lib.wait(lib.matmul(a, a)))
    t_matmul = time.monotonic_ns()
    print(json.dumps({"impl": impl, "t_add_ns": t_add, "t_matmul_ns": t_matmul,
                      "add_value": float(s[0]), "matmul_value": float(c[0][0]),
                      "version": lib.version}), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", required=True, choices=sorted(LIBRARIES))
    p.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--reps", type=int, default=0, help="timed repetitions (default: per case)")
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--exclude", default="", help="skip cases whose name contains this")
    p.add_argument("--cold-start", action="store_true")
    opt = p.parse_args()
    set_thread_env(opt.threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if opt.cold_start:
        cold_start(opt.impl, opt.threads)
        return 0

    import cpu_cases as cases

    lib = LIBRARIES[opt.impl](opt.threads)
    for case in cases.CASES:
        if opt.filter not in case or (opt.exclude and opt.exclude in case):
            continue
        for size in cases.sizes(case, opt.quick):
            run_case(lib, case, size, opt, cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
