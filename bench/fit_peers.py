#!/usr/bin/env python3
"""bench_fit_epoch's peers (issue 17 §5): one epoch of the seed CNN on the real Fashion-MNIST and
the process's peak memory, in Keras (TensorFlow-CPU), PyTorch and JAX. One JSON line per run.

    .venv/bin/python bench/fit_peers.py --impl keras|torch|jax_jit --batch N [--threads N]
                                        [--quick] [--reps N] [--warmup N] [--train-size N]

The model is the seed's (Conv2D 32 -> MaxPool -> Conv2D 64 -> MaxPool -> Conv2D 64 -> Flatten ->
Dense 64 -> Dense 10 softmax), glorot_uniform kernels and zero biases, Adam (lr 0.001, Keras's
epsilon 1e-7), sparse categorical cross-entropy, training accuracy tracked, the training set
shuffled every epoch; the data are Debian's dataset-fashion-mnist files read as the eagle
sample reads them (float32 images / 255, int32 labels), all in memory.

  keras    model.fit(x, y, batch_size, epochs, verbose=0, shuffle=True) after
           compile(Adam(), "sparse_categorical_crossentropy", ["accuracy"]): Keras 3's compiled
           train function (a tf.function; no XLA on a CPU), its own tf.data pipeline over the
           arrays. An epoch is timed from on_epoch_begin to on_epoch_end.
  torch    a plain loop, no DataLoader: a randperm per epoch, x[idx] per batch (NCHW; with one
           channel the same memory as NHWC), F.cross_entropy on the logits, backward,
           torch.optim.Adam (eps 1e-7); the loss and correct counts summed on the tensors and
           read once per epoch.
  jax_jit  the whole step (value_and_grad, Adam written out as Keras's, the accuracy count) under
           jax.jit, batches gathered from NumPy arrays by a per-epoch permutation.

Epochs: --warmup (default 1) untimed, then --reps (default 3) timed; median, min, max.
--train-size (default 60000; 6000 with --quick) takes the first N training images.
Memory: rss_before_fit_mb (resident set after the data is loaded and the model built, from
/proc/self/statm) and max_rss_mb (getrusage ru_maxrss: the process's peak); Keras also reports
tf.config.experimental.get_memory_info("CPU:0")["peak"] as tf_memory_info_peak_mb (TensorFlow's
CPU allocator peak: the tensors it allocated, not the process; the text of the error goes in
memory_info_error where a version has none). The loss must fall from the first to the last
epoch (checked; exit 1 otherwise).
"""

import argparse
import gzip
import json
import math
import os
import resource
import statistics
import sys
import time

DATA_DIR = os.environ.get("EAGLE_DATA_DIR", "/usr/share/datasets/fashion-mnist")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", required=True, choices=["keras", "torch", "jax_jit"])
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--train-size", type=int, default=0)
    opt = p.parse_args()
    if opt.train_size <= 0:
        opt.train_size = 6000 if opt.quick else 60000
    return opt


def set_thread_env(threads):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["JAX_PLATFORMS"] = "cpu"
    multi = "true" if threads > 1 else "false"
    os.environ["XLA_FLAGS"] = (f"--xla_cpu_multi_thread_eigen={multi} "
                               f"intra_op_parallelism_threads={threads}")


def max_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kilobytes


def current_rss_mb():
    with open("/proc/self/statm") as f:
        resident = int(f.read().split()[1])
    return resident * os.sysconf("SC_PAGE_SIZE") / 1048576.0


def load(np, n):
    def idx(name):
        with gzip.open(os.path.join(DATA_DIR, name)) as f:
            data = f.read()
        dims = data[3]
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)

    x = (idx("train-images-idx3-ubyte.gz")[:n] / 255.0).astype(np.float32)[..., None]
    y = idx("train-labels-idx1-ubyte.gz")[:n].astype(np.int32)
    return x, y


CNN_SHAPES = [(3, 3, 1, 32), (3, 3, 32, 64), (3, 3, 64, 64), (576, 64), (64, 10)]


def init_params(np, seed=7):
    """glorot_uniform kernels (HWIO / [in, out]) and zero biases, as Keras's layers."""
    rng = np.random.default_rng(seed)
    params = []
    for s in CNN_SHAPES:
        receptive = int(np.prod(s[:-2])) if len(s) > 2 else 1
        limit = math.sqrt(6.0 / (s[-2] * receptive + s[-1] * receptive))
        params += [rng.uniform(-limit, limit, size=s).astype(np.float32),
                   np.zeros((s[-1],), np.float32)]
    return params


# ---- Keras -------------------------------------------------------------------------------------
def keras_fit(opt, np, x, y):
    import tensorflow as tf
    import keras

    tf.config.threading.set_intra_op_parallelism_threads(opt.threads)
    tf.config.threading.set_inter_op_parallelism_threads(opt.threads)
    keras.utils.set_random_seed(1)
    layers = keras.layers
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
                  metrics=["accuracy"])

    class EpochTimer(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.seconds, self.losses, self.accuracies = [], [], []

        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds.append(time.perf_counter() - self.t0)
            self.losses.append(float(logs["loss"]))
            self.accuracies.append(float(logs["accuracy"]))

    timer = EpochTimer()
    rss_before = current_rss_mb()
    model.fit(x, y, batch_size=opt.batch, epochs=opt.warmup + opt.reps, verbose=0, shuffle=True,
              callbacks=[timer])
    extra = {"version": f"tensorflow {tf.__version__}, keras {keras.__version__}",
             "jit_compile": bool(getattr(model, "jit_compile", False))}
    try:
        info = tf.config.experimental.get_memory_info("CPU:0")
        extra["tf_memory_info_peak_mb"] = info["peak"] / 1048576.0
    except Exception as e:  # TensorFlow keeps no allocator statistics for the CPU
        extra["memory_info_error"] = f"{type(e).__name__}: {e}"
    return timer.seconds, timer.losses, timer.accuracies, rss_before, extra


# ---- PyTorch -----------------------------------------------------------------------------------
def torch_fit(opt, np, x, y):
    import torch

    torch.set_num_threads(opt.threads)
    torch.manual_seed(1)
    F = torch.nn.functional
    # HWIO -> OIHW; NHWC images with one channel are NCHW [n, 1, 28, 28] as they are in memory.
    raw = [p.transpose(3, 2, 0, 1).copy() if p.ndim == 4 else p for p in init_params(np)]
    params = [torch.tensor(p, requires_grad=True) for p in raw]
    adam = torch.optim.Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-7)
    xs = torch.from_numpy(x).reshape(-1, 1, 28, 28)
    ys = torch.from_numpy(y).long()
    n = xs.shape[0]

    def logits(h):
        h = F.max_pool2d(F.relu(F.conv2d(h, params[0], params[1])), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, params[2], params[3])), 2)
        h = F.relu(F.conv2d(h, params[4], params[5]))
        h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)  # flatten in NHWC order, as Keras
        h = F.relu(h @ params[6] + params[7])
        return h @ params[8] + params[9]

    seconds, losses, accuracies = [], [], []
    rss_before = current_rss_mb()
    for _ in range(opt.warmup + opt.reps):
        t0 = time.perf_counter()
        perm = torch.randperm(n)
        loss_sum = torch.zeros(())
        correct = torch.zeros((), dtype=torch.int64)
        for start in range(0, n, opt.batch):
            idx = perm[start:start + opt.batch]
            xb, yb = xs[idx], ys[idx]
            adam.zero_grad(set_to_none=True)
            out = logits(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            adam.step()
            with torch.no_grad():
                loss_sum += loss.detach() * idx.shape[0]
                correct += (out.argmax(1) == yb).sum()
        losses.append(float(loss_sum) / n)
        accuracies.append(int(correct) / n)
        seconds.append(time.perf_counter() - t0)
    return seconds, losses, accuracies, rss_before, {"version": f"torch {torch.__version__}"}


# ---- JAX ---------------------------------------------------------------------------------------
def jax_fit(opt, np, x, y):
    import jax
    import jax.numpy as jnp

    lr, b1, b2, eps = 0.001, 0.9, 0.999, 1e-7

    def logits(params, h):
        def conv_relu(h, w, c):
            h = jax.lax.conv_general_dilated(h, w, (1, 1), "VALID",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return jax.nn.relu(h + c)

        def pool(h):
            return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                                         "VALID")

        h = pool(conv_relu(h, params[0], params[1]))
        h = pool(conv_relu(h, params[2], params[3]))
        h = conv_relu(h, params[4], params[5]).reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ params[6] + params[7])
        return h @ params[8] + params[9]

    def loss_fn(params, xb, yb):
        out = logits(params, xb)
        logz = jax.nn.logsumexp(out, axis=-1)
        picked = jnp.take_along_axis(out, yb[:, None], axis=-1)[:, 0]
        return jnp.mean(logz - picked), out

    @jax.jit
    def step(params, ms, vs, t, xb, yb):
        (loss, out), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, xb, yb)
        t = t + 1
        lr_t = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        new_p, new_m, new_v = [], [], []
        for p, g, m, v in zip(params, grads, ms, vs):
            m = m + (g - m) * (1 - b1)
            v = v + (g * g - v) * (1 - b2)
            new_p.append(p - lr_t * m / (jnp.sqrt(v) + eps))
            new_m.append(m)
            new_v.append(v)
        correct = jnp.sum(jnp.argmax(out, axis=1) == yb)
        return loss * yb.shape[0], correct, new_p, new_m, new_v, t

    params = [jnp.asarray(p) for p in init_params(np)]
    ms = [jnp.zeros_like(p) for p in params]
    vs = [jnp.zeros_like(p) for p in params]
    t = jnp.float32(0)
    n = x.shape[0]
    rng = np.random.default_rng(1)
    seconds, losses, accuracies = [], [], []
    rss_before = current_rss_mb()
    for _ in range(opt.warmup + opt.reps):
        t0 = time.perf_counter()
        perm = rng.permutation(n)
        loss_sum, correct = 0.0, 0
        sums = []
        for start in range(0, n, opt.batch):
            idx = perm[start:start + opt.batch]
            loss, ok, params, ms, vs, t = step(params, ms, vs, t, x[idx], y[idx])
            sums.append((loss, ok))
        for loss, ok in sums:
            loss_sum += float(loss)
            correct += int(ok)
        losses.append(loss_sum / n)
        accuracies.append(correct / n)
        seconds.append(time.perf_counter() - t0)
    return seconds, losses, accuracies, rss_before, {"version": f"jax {jax.__version__}"}


def main():
    opt = parse_args()
    set_thread_env(opt.threads)
    import numpy as np

    x, y = load(np, opt.train_size)
    run = {"keras": keras_fit, "torch": torch_fit, "jax_jit": jax_fit}[opt.impl]
    seconds, losses, accuracies, rss_before, extra = run(opt, np, x, y)
    peak = max_rss_mb()
    if not (math.isfinite(losses[-1]) and losses[-1] < losses[0]):
        sys.exit(f"CHECK FAILED: fit_epoch/{opt.batch} {opt.impl}: the loss did not fall "
                 f"({losses[0]} -> {losses[-1]})")
    us = [s * 1e6 for s in seconds[opt.warmup:]]
    rec = {"case": "fit_epoch", "impl": opt.impl, "size": opt.batch,
           "median_us": statistics.median(us), "min_us": min(us), "max_us": max(us),
           "reps": len(us), "threads": opt.threads, "train_size": int(x.shape[0]),
           "warmup_epochs": opt.warmup, "steps_per_epoch": -(-x.shape[0] // opt.batch),
           "rss_before_fit_mb": rss_before, "max_rss_mb": peak, "first_loss": losses[0],
           "last_loss": losses[-1], "last_accuracy": accuracies[-1]}
    rec.update(extra)
    print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
