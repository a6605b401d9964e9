#!/usr/bin/env python3
"""eagle's training peers (issues 16 and 17): the cases of bench/mlp_step.cpp, bench/cnn_step.cpp
and bench/tape_overhead.cpp in TensorFlow, Keras, JAX and PyTorch, one JSON line per case.

    .venv/bin/python bench/training_peers.py --impl IMPL [--case mlp|cnn|tape] [--threads N]
                                             [--quick] [--reps N]

IMPL, one per process (bench/training_compare.sh runs each pinned to the same cores as eagle):
  tf_eager      MLP: tf.GradientTape + keras.optimizers.Adam, eager (no tf.function);
                tape: the 3,000-op 1-element chain under tf.GradientTape and its backward pass
  tf_function   MLP: the same step inside tf.function (a reference line)
  keras         CNN: Keras 3's model.train_on_batch (compiled: a tf.function, no XLA on a CPU)
  keras_eager   CNN: the same with compile(run_eagerly=True)
  jax           MLP: jax.value_and_grad and the Adam update op by op (no jit)
  jax_jit       MLP and CNN: the whole step (value_and_grad + Adam) under jax.jit
  torch         MLP and CNN: torch.optim.Adam (eps 1e-7 as Keras); "absent" when not importable

Shapes, initialization ranges and data as eagle's programs: glorot_uniform kernels (uniform in
+-sqrt(6 / (fan_in + fan_out))), zero biases, inputs uniform in [0, 1), labels uniform in
[0, 10); every repetition is one step on the same batch and the loss must fall (checked).
Adam is Keras's: lr 0.001, beta_1 0.9, beta_2 0.999, epsilon 1e-7 ("epsilon hat"):
  lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
  w -= lr_t m / (sqrt(v) + eps).
Threads: --threads N sets OPENBLAS/OMP/MKL_NUM_THREADS, TensorFlow's intra- and inter-op pools,
XLA's CPU pool (XLA_FLAGS) and torch.set_num_threads, before the library loads.
Timing: time.perf_counter around each step; JAX's results are waited for (block_until_ready),
TensorFlow's eager CPU ops and Keras's train_on_batch return finished results.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

MLP_BATCHES = [1, 32, 512]
CNN_BATCHES = [32, 128]
CHAIN_OPS = 3000


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", required=True,
                   choices=["tf_eager", "tf_function", "keras", "keras_eager", "jax", "jax_jit",
                            "torch"])
    p.add_argument("--case", default="", help="mlp, cnn or tape (default: all the impl has)")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=0)
    return p.parse_args()


def set_thread_env(threads):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["JAX_PLATFORMS"] = "cpu"
    multi = "true" if threads > 1 else "false"
    os.environ["XLA_FLAGS"] = (f"--xla_cpu_multi_thread_eigen={multi} "
                               f"intra_op_parallelism_threads={threads}")


def reps_for(opt, case, size):
    if opt.reps:
        return opt.reps
    if case == "mlp":
        return (10 if opt.quick else 40) if size >= 512 else (30 if opt.quick else 200)
    if case == "cnn":
        return 5 if opt.quick else 30
    return 3 if opt.quick else 30


def warmup_for(opt, case):
    return (1 if opt.quick else 3) if case == "cnn" else (3 if opt.quick else 10)


def timed(step, warmup, reps):
    for _ in range(warmup):
        step()
    us = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        us.append((time.perf_counter() - t0) * 1e6)
    return us


def emit(case, impl, version, size, us, threads, **extra):
    rec = {"case": case, "impl": impl, "version": version, "size": size,
           "median_us": statistics.median(us), "min_us": min(us), "max_us": max(us),
           "reps": len(us), "threads": threads}
    rec.update(extra)
    print(json.dumps(rec), flush=True)


def check_falls(case, size, first, last):
    if not (math.isfinite(last) and last < first):
        sys.exit(f"CHECK FAILED: {case}/{size}: the loss did not fall ({first} -> {last})")


def data(np, batch, image, seed):
    rng = np.random.default_rng(seed)
    shape = (batch, 28, 28, 1) if image else (batch, 784)
    x = rng.random(shape, dtype=np.float32)
    labels = rng.integers(0, 10, size=(batch,)).astype(np.int32)
    return x, labels


def glorot(np, rng, shape):
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=shape).astype(np.float32)


MLP_SHAPES = [(784, 256), (256, 256), (256, 10)]
CNN_SHAPES = [(3, 3, 1, 32), (3, 3, 32, 64), (3, 3, 64, 64), (576, 64), (64, 10)]


def init_params(np, shapes, seed=7):
    rng = np.random.default_rng(seed)
    params = []
    for s in shapes:
        params += [glorot(np, rng, s), np.zeros((s[-1],), np.float32)]
    return params


# ---- TensorFlow --------------------------------------------------------------------------------
def tensorflow(opt):
    import numpy as np
    import tensorflow as tf
    import keras

    tf.config.threading.set_intra_op_parallelism_threads(opt.threads)
    tf.config.threading.set_inter_op_parallelism_threads(opt.threads)
    version = f"tensorflow {tf.__version__}, keras {keras.__version__}"
    cases = opt.case.split(",") if opt.case else ["mlp", "tape", "cnn"]

    if "mlp" in cases and opt.impl in ("tf_eager", "tf_function"):
        for batch in MLP_BATCHES:
            x, labels = data(np, batch, False, 100 + batch)
            x, labels = tf.constant(x), tf.constant(labels)
            ws = [tf.Variable(p) for p in init_params(np, MLP_SHAPES)]
            adam = keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-7)

            def step():
                with tf.GradientTape() as tape:
                    h = tf.nn.relu(tf.matmul(x, ws[0]) + ws[1])
                    h = tf.nn.relu(tf.matmul(h, ws[2]) + ws[3])
                    logits = tf.matmul(h, ws[4]) + ws[5]
                    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=labels, logits=logits))
                grads = tape.gradient(loss, ws)
                adam.apply_gradients(zip(grads, ws))
                return loss

            if opt.impl == "tf_function":
                step = tf.function(step)
            first = float(step())
            us = timed(step, warmup_for(opt, "mlp"), reps_for(opt, "mlp", batch))
            last = float(step())
            check_falls("mlp_step", batch, first, last)
            emit("mlp_step", opt.impl, version, batch, us, opt.threads, first_loss=first,
                 last_loss=last)

    if "tape" in cases and opt.impl == "tf_eager":
        x0 = tf.constant([0.5])
        y = tf.constant([0.001])
        z = tf.constant([0.9999])
        forward, backward = [], []
        reps = reps_for(opt, "tape", 1)
        for r in range(reps + 2):
            t0 = time.perf_counter()
            with tf.GradientTape() as tape:
                tape.watch(x0)
                x = x0
                for i in range(CHAIN_OPS):
                    k = i % 3
                    x = tf.add(x, y) if k == 0 else tf.multiply(x, z) if k == 1 else tf.nn.relu(x)
            t1 = time.perf_counter()
            g = tape.gradient(x, x0)
            t2 = time.perf_counter()
            if r >= 2:
                forward.append((t1 - t0) * 1e6)
                backward.append((t2 - t1) * 1e6)
        want = 0.9999 ** (CHAIN_OPS // 3)
        got = float(g.numpy()[0])
        if abs(got - want) > 1e-4 * want:
            sys.exit(f"CHECK FAILED: tape gradient {got} vs {want}")
        for impl, us in (("tf_eager_taped", forward), ("tf_eager_backward", backward)):
            emit("tape_overhead", impl, version, 1, us, opt.threads, ops=CHAIN_OPS,
                 us_per_op=statistics.median(us) / CHAIN_OPS)

    if "cnn" in cases and opt.impl in ("keras", "keras_eager"):
        layers = keras.layers
        for batch in CNN_BATCHES:
            x, labels = data(np, batch, True, 300 + batch)
            keras.utils.set_random_seed(1)
            model = keras.Sequential([
                keras.Input((28, 28, 1)),
                layers.Conv2D(32, 3, activation="relu"),
                layers.MaxPooling2D(2),
                layers.Conv2D(64, 3, activation="relu"),
                layers.MaxPooling2D(2),
                layers.Conv2D(64, 3, activation="relu"),
                layers.Flatten(),
                layers.Dense(64, activation="relu"),
                layers.Dense(10, activation="softmax"),
            ])
            model.compile(keras.optimizers.Adam(), "sparse_categorical_crossentropy",
                          run_eagerly=opt.impl == "keras_eager")

            def step():
                return model.train_on_batch(x, labels)

            first = float(step())
            us = timed(step, warmup_for(opt, "cnn"), reps_for(opt, "cnn", batch))
            last = float(step())
            check_falls("cnn_step", batch, first, last)
            emit("cnn_step", opt.impl, version, batch, us, opt.threads, first_loss=first,
                 last_loss=last, jit_compile=bool(getattr(model, "jit_compile", False)))


# ---- JAX ---------------------------------------------------------------------------------------
def jax_impl(opt):
    import numpy as np
    import jax
    import jax.numpy as jnp

    version = f"jax {jax.__version__}"
    cases = opt.case.split(",") if opt.case else ["mlp", "cnn"]
    lr, b1, b2, eps = 0.001, 0.9, 0.999, 1e-7

    def xent(logits, labels):
        logz = jax.nn.logsumexp(logits, axis=-1)
        picked = jnp.take_along_axis(logits, labels[:, None], axis=-1)[:, 0]
        return jnp.mean(logz - picked)

    def mlp_loss(params, x, labels):
        w1, c1, w2, c2, w3, c3 = params
        h = jax.nn.relu(x @ w1 + c1)
        h = jax.nn.relu(h @ w2 + c2)
        return xent(h @ w3 + c3, labels)

    def cnn_loss(params, x, labels):
        def conv_relu(h, w, c):
            h = jax.lax.conv_general_dilated(h, w, (1, 1), "VALID",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return jax.nn.relu(h + c)

        def pool(h):
            return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                                         "VALID")

        h = pool(conv_relu(x, params[0], params[1]))
        h = pool(conv_relu(h, params[2], params[3]))
        h = conv_relu(h, params[4], params[5]).reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ params[6] + params[7])
        return xent(h @ params[8] + params[9], labels)

    def make_step(loss_fn):
        def step(params, ms, vs, t, x, labels):
            loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
            t = t + 1
            lr_t = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            new_p, new_m, new_v = [], [], []
            for p, g, m, v in zip(params, grads, ms, vs):
                m = m + (g - m) * (1 - b1)
                v = v + (g * g - v) * (1 - b2)
                new_p.append(p - lr_t * m / (jnp.sqrt(v) + eps))
                new_m.append(m)
                new_v.append(v)
            return loss, new_p, new_m, new_v, t
        return jax.jit(step) if opt.impl == "jax_jit" else step

    todo = []
    if "mlp" in cases:
        todo += [("mlp", b) for b in MLP_BATCHES]
    if "cnn" in cases and opt.impl == "jax_jit":
        todo += [("cnn", b) for b in CNN_BATCHES]
    for case, batch in todo:
        x, labels = data(np, batch, case == "cnn", (100 if case == "mlp" else 300) + batch)
        x, labels = jnp.asarray(x), jnp.asarray(labels)
        params = [jnp.asarray(p) for p in init_params(np, MLP_SHAPES if case == "mlp" else
                                                      CNN_SHAPES)]
        state = {"p": params, "m": [jnp.zeros_like(p) for p in params],
                 "v": [jnp.zeros_like(p) for p in params], "t": jnp.float32(0)}
        step_fn = make_step(mlp_loss if case == "mlp" else cnn_loss)

        def step():
            loss, state["p"], state["m"], state["v"], state["t"] = step_fn(
                state["p"], state["m"], state["v"], state["t"], x, labels)
            jax.block_until_ready(state["p"])
            return loss

        first = float(step())
        us = timed(step, warmup_for(opt, case), reps_for(opt, case, batch))
        last = float(step())
        check_falls(f"{case}_step", batch, first, last)
        emit(f"{case}_step", opt.impl, version, batch, us, opt.threads, first_loss=first,
             last_loss=last)


# ---- PyTorch -----------------------------------------------------------------------------------
def torch_impl(opt):
    try:
        import torch
    except ImportError:
        print(json.dumps({"case": "torch", "impl": "torch", "absent": True}), flush=True)
        return
    import numpy as np

    torch.set_num_threads(opt.threads)
    version = f"torch {torch.__version__}"
    cases = opt.case.split(",") if opt.case else ["mlp", "cnn"]
    for case, batches in (("mlp", MLP_BATCHES), ("cnn", CNN_BATCHES)):
        if case not in cases:
            continue
        for batch in batches:
            x, labels = data(np, batch, case == "cnn", (100 if case == "mlp" else 300) + batch)
            x, labels = torch.from_numpy(x), torch.from_numpy(labels).long()
            raw = init_params(np, MLP_SHAPES if case == "mlp" else CNN_SHAPES)
            if case == "cnn":  # HWIO -> OIHW, NHWC -> NCHW; flatten in NHWC order as Keras
                raw = [p.transpose(3, 2, 0, 1).copy() if p.ndim == 4 else p for p in raw]
                x = x.permute(0, 3, 1, 2).contiguous()
            params = [torch.tensor(p, requires_grad=True) for p in raw]
            adam = torch.optim.Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-7)
            F = torch.nn.functional

            def forward():
                if case == "mlp":
                    h = F.relu(x @ params[0] + params[1])
                    h = F.relu(h @ params[2] + params[3])
                    return h @ params[4] + params[5]
                h = F.max_pool2d(F.relu(F.conv2d(x, params[0], params[1])), 2)
                h = F.max_pool2d(F.relu(F.conv2d(h, params[2], params[3])), 2)
                h = F.relu(F.conv2d(h, params[4], params[5]))
                h = h.permute(0, 2, 3, 1).reshape(x.shape[0], -1)
                h = F.relu(h @ params[6] + params[7])
                return h @ params[8] + params[9]

            def step():
                adam.zero_grad(set_to_none=True)
                loss = F.cross_entropy(forward(), labels)
                loss.backward()
                adam.step()
                return loss

            first = float(step())
            us = timed(step, warmup_for(opt, case), reps_for(opt, case, batch))
            last = float(step())
            check_falls(f"{case}_step", batch, first, last)
            emit(f"{case}_step", "torch", version, batch, us, opt.threads, first_loss=first,
                 last_loss=last)


def main():
    opt = parse_args()
    set_thread_env(opt.threads)
    if opt.impl.startswith("tf_") or opt.impl.startswith("keras"):
        tensorflow(opt)
    elif opt.impl.startswith("jax"):
        jax_impl(opt)
    else:
        torch_impl(opt)


if __name__ == "__main__":
    main()
