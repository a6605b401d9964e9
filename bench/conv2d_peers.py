#!/usr/bin/env python3
"""bench/conv2d.cpp's peers (case 10 of docs/performance.md, issue 17 §5): Conv2D and both backprops, NHWC
float32 on the CPU, in TensorFlow, JAX or PyTorch; one JSON line per case and op with the median,
min and max of the repetitions after a warm-up and the result at the shared sample indices
(bench/conv2d_cases.py; bench/compare checks them against the float64 reference).

    .venv/bin/python bench/conv2d_peers.py --impl tensorflow|jax|torch [--threads N] [--quick]
                                           [--reps N] [--filter TEXT]

  tensorflow  tf.raw_ops.Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, eager (oneDNN)
  jax         jax.lax.conv_general_dilated with ("NHWC", "HWIO", "NHWC") under jax.jit; the
              backprops are jax.vjp of it with respect to the image or the filter, jitted
  torch       torch.nn.functional.conv2d on channels_last tensors (NHWC memory; the weight
              OIHW in channels_last, i.e. OHWI memory), the backprops
              torch.ops.aten.convolution_backward with output_mask for the input or the weight

Repetitions: 30 (5 with --quick) for the seed's shapes, 10 (3) for the ResNet layer, whose one
forward is 27.5 GFLOP. Threads: --threads sets OPENBLAS/OMP/MKL_NUM_THREADS, TensorFlow's intra-
and inter-op pools, XLA's CPU pool and torch.set_num_threads, before the library loads.
"""

import argparse
import json
import os
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", required=True, choices=["tensorflow", "jax", "torch"])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=0)
    p.add_argument("--filter", default="", help="only cases whose label contains this")
    return p.parse_args()


def set_thread_env(threads):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["JAX_PLATFORMS"] = "cpu"
    multi = "true" if threads > 1 else "false"
    os.environ["XLA_FLAGS"] = (f"--xla_cpu_multi_thread_eigen={multi} "
                               f"intra_op_parallelism_threads={threads}")


def reps_for(opt, label):
    if opt.reps:
        return opt.reps
    if label.startswith("resnet"):
        return 3 if opt.quick else 10
    return 5 if opt.quick else 30


# Each library: a function (x, f, dy as float32 NumPy arrays) -> ({op: run}, {op: to_nhwc}),
# where run() computes the op once and returns a finished result and to_nhwc(result) is a NumPy
# array in the NHWC / HWIO layout of TensorFlow's result.
def tensorflow_ops(x, f, dy):
    import tensorflow as tf

    x, f, dy = tf.constant(x), tf.constant(f), tf.constant(dy)
    s = [1, 1, 1, 1]
    runs = {
        "Conv2D": lambda: tf.raw_ops.Conv2D(input=x, filter=f, strides=s, padding="VALID"),
        "Conv2DBackpropInput": lambda: tf.raw_ops.Conv2DBackpropInput(
            input_sizes=x.shape, filter=f, out_backprop=dy, strides=s, padding="VALID"),
        "Conv2DBackpropFilter": lambda: tf.raw_ops.Conv2DBackpropFilter(
            input=x, filter_sizes=f.shape, out_backprop=dy, strides=s, padding="VALID"),
    }
    return runs, {op: (lambda r: r.numpy()) for op in runs}


def jax_ops(x, f, dy):
    import jax
    import jax.numpy as jnp

    x, f, dy = jnp.asarray(x), jnp.asarray(f), jnp.asarray(dy)

    def conv(a, b):
        return jax.lax.conv_general_dilated(a, b, (1, 1), "VALID",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    forward = jax.jit(conv)
    # The forward inside each vjp is unused and dropped by XLA; only the transposed conv remains.
    backprop_input = jax.jit(lambda a, b, g: jax.vjp(lambda a_: conv(a_, b), a)[1](g)[0])
    backprop_filter = jax.jit(lambda a, b, g: jax.vjp(lambda b_: conv(a, b_), b)[1](g)[0])
    runs = {
        "Conv2D": lambda: jax.block_until_ready(forward(x, f)),
        "Conv2DBackpropInput": lambda: jax.block_until_ready(backprop_input(x, f, dy)),
        "Conv2DBackpropFilter": lambda: jax.block_until_ready(backprop_filter(x, f, dy)),
    }
    return runs, {op: (lambda r: jax.device_get(r)) for op in runs}


def torch_ops(x, f, dy):
    import torch

    cl = torch.channels_last
    # NHWC arrays viewed as NCHW tensors: exactly channels_last strides, no copy.
    xt = torch.from_numpy(x).permute(0, 3, 1, 2)
    dyt = torch.from_numpy(dy).permute(0, 3, 1, 2)
    wt = torch.from_numpy(f).permute(3, 2, 0, 1).contiguous(memory_format=cl)  # OIHW, OHWI memory
    assert xt.is_contiguous(memory_format=cl) and dyt.is_contiguous(memory_format=cl)
    F = torch.nn.functional
    aten = torch.ops.aten

    def backward(mask):
        return aten.convolution_backward(dyt, xt, wt, None, [1, 1], [0, 0], [1, 1], False,
                                         [0, 0], 1, mask)

    runs = {
        "Conv2D": lambda: F.conv2d(xt, wt),
        "Conv2DBackpropInput": lambda: backward([True, False, False])[0],
        "Conv2DBackpropFilter": lambda: backward([False, True, False])[1],
    }
    nhwc = {
        "Conv2D": lambda r: r.permute(0, 2, 3, 1).numpy(),
        "Conv2DBackpropInput": lambda r: r.permute(0, 2, 3, 1).numpy(),
        "Conv2DBackpropFilter": lambda r: r.permute(2, 3, 1, 0).numpy(),  # OIHW -> HWIO
    }
    return runs, nhwc


def version(impl):
    if impl == "tensorflow":
        import tensorflow as tf
        return f"tensorflow-cpu {tf.__version__}"
    if impl == "jax":
        import jax
        return f"jax {jax.__version__}"
    import torch
    return f"torch {torch.__version__}"


def main():
    opt = parse_args()
    set_thread_env(opt.threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import conv2d_cases

    if opt.impl == "tensorflow":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(opt.threads)
        tf.config.threading.set_inter_op_parallelism_threads(opt.threads)
    elif opt.impl == "torch":
        import torch
        torch.set_num_threads(opt.threads)
    make_ops = {"tensorflow": tensorflow_ops, "jax": jax_ops, "torch": torch_ops}[opt.impl]
    ver = version(opt.impl)
    for label, *_ in conv2d_cases.CASES:
        if opt.filter and opt.filter not in label and label not in opt.filter:
            continue
        runs, to_nhwc = make_ops(*conv2d_cases.inputs(label))
        for op in conv2d_cases.OPS:
            run = runs[op]
            sample = conv2d_cases.samples_of(to_nhwc[op](run()))  # warm-up, and the result
            times = []
            for _ in range(reps_for(opt, label)):
                t0 = time.perf_counter()
                run()
                times.append((time.perf_counter() - t0) * 1e6)
            times.sort()
            n = len(times)
            median = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
            print(json.dumps({"case": "conv2d", "impl": opt.impl, "label": label, "op": op,
                              "version": ver, "median_us": median, "min_us": times[0],
                              "max_us": times[-1], "reps": n, "threads": opt.threads,
                              "sample": sample}), flush=True)


if __name__ == "__main__":
    main()
