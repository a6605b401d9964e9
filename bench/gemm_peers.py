#!/usr/bin/env python3
"""The GEMM shapes of bench/gemm_providers.cpp in NumPy, TensorFlow or JAX (jit), one JSON line
per shape in that program's format (case "gemm_f32", impl, label, m, n, k, transpose_a,
transpose_b, median_us, gflops, threads).

    python3 bench/gemm_peers.py --impl numpy|tensorflow|jax [--threads N] [--quick] [--filter T]

One library per process, its threads set before it loads (OPENBLAS/OMP_NUM_THREADS, TensorFlow's
pools, XLA's pool), so run one process per thread count. Transposed operands are handed over
stored as eagle stores them and transposed inside the call (NumPy: a view, BLAS reads it
transposed; TensorFlow: tf.matmul(transpose_a/b); JAX: inside the jitted function, which XLA folds
into its dot). Inputs uniform in [-1, 1); repetitions as the C++ program: 30 (10 with --quick),
10 above 10^11 flops, 5 above 10^12; small products several times per repetition; medians.
"""

import argparse
import json
import os
import statistics
import time


def shapes(quick):
    out = []
    widths = [784, 256, 256, 10]
    for batch in (1, 32, 512):
        for layer in range(3):
            i, o = widths[layer], widths[layer + 1]
            label = f"mlp_b{batch}_l{layer}"
            out += [(label + "_fwd", False, False, batch, o, i),
                    (label + "_dx", False, True, batch, i, o),
                    (label + "_dw", True, False, i, o, batch)]
    for n in [256, 512, 1024, 2048, 4096] + ([] if quick else [8192]):
        out.append((f"square_{n}", False, False, n, n, n))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", required=True, choices=["numpy", "tensorflow", "jax"])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true")
    p.add_argument("--filter", default="")
    opt = p.parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(opt.threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["JAX_PLATFORMS"] = "cpu"
    multi = "true" if opt.threads > 1 else "false"
    os.environ["XLA_FLAGS"] = (f"--xla_cpu_multi_thread_eigen={multi} "
                               f"intra_op_parallelism_threads={opt.threads}")
    import numpy as np

    if opt.impl == "numpy":
        version = f"numpy {np.__version__}"

        def make(ta, tb):
            return lambda a, b: (a.T if ta else a) @ (b.T if tb else b)
        put, wait = (lambda x: x), (lambda x: x)
    elif opt.impl == "tensorflow":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(opt.threads)
        tf.config.threading.set_inter_op_parallelism_threads(opt.threads)
        version = f"tensorflow {tf.__version__}"

        def make(ta, tb):
            return lambda a, b: tf.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb)
        put, wait = tf.constant, (lambda x: x)
    else:
        import jax
        import jax.numpy as jnp

        version = f"jax {jax.__version__}"

        def make(ta, tb):
            return jax.jit(lambda a, b: (a.T if ta else a) @ (b.T if tb else b))
        put, wait = jnp.asarray, (lambda x: x.block_until_ready())

    rng = np.random.default_rng(1)
    for label, ta, tb, m, n, k in shapes(opt.quick):
        if opt.filter and opt.filter not in label:
            continue
        flops = 2.0 * m * n * k
        reps = 5 if flops > 1e12 else 10 if flops > 1e11 else (10 if opt.quick else 30)
        inner = max(1, int(2.0 * 256 ** 3 / flops))
        a = put(rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(np.float32))
        b = put(rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(np.float32))
        f = make(ta, tb)
        for _ in range(2):
            wait(f(a, b))
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(inner):
                wait(f(a, b))
            times.append((time.perf_counter() - t0) * 1e6 / inner)
        med = statistics.median(times)
        print(json.dumps({"case": "gemm_f32", "impl": opt.impl, "version": version, "label": label,
                          "m": m, "n": n, "k": k, "transpose_a": ta, "transpose_b": tb,
                          "median_us": med, "min_us": min(times), "max_us": max(times),
                          "reps": reps, "inner": inner, "threads": opt.threads,
                          "gflops": flops / (med * 1e3)}), flush=True)


if __name__ == "__main__":
    main()
