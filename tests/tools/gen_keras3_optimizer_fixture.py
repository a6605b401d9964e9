#!/usr/bin/env python3
"""Writes tests/fixtures/keras3_optimizers.json: 25-step trajectories of Keras 3's own optimizers
(TensorFlow backend, float32, eager `optimizer.apply`), as exact float32 bit patterns, so eagle's
Keras optimizer classes can be held to Keras 3's update bit for bit without CI needing Keras.

For each configuration in CONFIGS a fresh float32 keras.Variable "w" of shape [8] starts at INIT
and a fresh optimizer (Keras 3 defaults except the listed arguments) is built on it; then for
step = 1..25 the gradient row GRADIENTS[step - 1] is applied with `optimizer.apply([g], [w])`.
After every step the fixture records w and every per-variable slot the optimizer made for w,
under Keras's slot name (the optimizer variable "w_<slot>" stored as "<slot>": "momentum",
"velocity", "velocity_hat", "average_gradient", "accumulator", "norm", "accumulated_grad",
"accumulated_delta_var", and BaseOptimizer's "average" (use_ema) and "gradient_accumulator").
"iterations" is Keras's optimizer.iterations after the 25 calls (the updates, with gradient
accumulation). SCHEDULES' learning rates at steps 0 .. 59 are "schedules". Nadam's scalar u_product (an optimizer-wide variable that its update
reads) is recorded per step under "state". The slots' values right after build (before step 1:
zeros, or Adagrad's initial_accumulator_value) are "initial_slots".

Gradients (0-based step index t = 0..24, element i = 0..7):
    E = [-6, -4, -2, -1, 0, 1, -8, 3]
    e = E[(i + t) % 8]
    sign = +1 if (i // 2 + t) % 2 == 0 else -1
    g[t][i] = float32(float(f"{sign}e{e}"))      i.e. the float32 nearest to sign * 10**e
    except g[t][3] = 0.0 exactly when (t + 1) % 7 == 0 (steps 7, 14, 21).
Every element flips sign every step; the sign uses i // 2 rather than i, so that each magnitude
(1e-8 .. 1e3) occurs with both signs. The gradients are stored in the fixture; the C++ test needs
no formula.

JSON layout (values are "0x%08x" hex strings of the float32's uint32 bits):
    {"generator", "keras_version", "tensorflow_version", "numpy_version", "python_version",
     "backend", "tf_enable_onednn_opts", "steps", "initial": [hex x8], "gradients": [[hex x8] x25],
     "optimizers": {name: {"class", "config": get_config(), "initial_slots": {slot: [hex x8]},
                           "iterations": int,
                           "steps": [{"variable": [hex x8], "slots": {slot: [hex x8]}
                                      [, "state": {"u_product": hex}]} x25]}},
     "schedules": {name: {"config": get_config(), "values": [hex x60]}}}

Usage (from the repository root; a venv with tensorflow-cpu 2.x, which ships Keras 3):
    python3 -m venv /opt/keras3-venv && /opt/keras3-venv/bin/pip install tensorflow-cpu
    /opt/keras3-venv/bin/python tests/tools/gen_keras3_optimizer_fixture.py \\
        > tests/fixtures/keras3_optimizers.json

The committed keras3_optimizers.json was produced by Keras 3.15.1 on TensorFlow (tensorflow-cpu)
2.21.0, NumPy 2.4.6, Python 3.11.7, x86-64 Linux, with TF_ENABLE_ONEDNN_OPTS=0. The output is
deterministic: running it again gives the same bytes.
"""
import json
import os
import platform
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

STEPS = 25
INIT = [0.5, -1.25, 3.0, -0.001, 1e-5, 100.0, -7.5, 0.0]
EXPONENTS = [-6, -4, -2, -1, 0, 1, -8, 3]

O = keras.optimizers
CONFIGS = [
    ("sgd", O.SGD, {"learning_rate": 0.01}),
    ("sgd_momentum", O.SGD, {"learning_rate": 0.01, "momentum": 0.9}),
    ("sgd_nesterov", O.SGD, {"learning_rate": 0.01, "momentum": 0.9, "nesterov": True}),
    ("adam", O.Adam, {}),
    ("adam_amsgrad", O.Adam, {"amsgrad": True}),
    ("rmsprop", O.RMSprop, {}),
    ("rmsprop_centered", O.RMSprop, {"centered": True}),
    ("rmsprop_momentum", O.RMSprop, {"momentum": 0.9}),
    ("rmsprop_centered_momentum", O.RMSprop, {"centered": True, "momentum": 0.9}),
    ("adagrad", O.Adagrad, {}),
    ("adamw", O.AdamW, {}),
    ("adamax", O.Adamax, {}),
    ("nadam", O.Nadam, {}),
    ("adadelta", O.Adadelta, {}),
    ("lion", O.Lion, {}),
    ("lamb", O.Lamb, {}),
    # BaseOptimizer's arguments, on every optimizer alike.
    ("adam_weight_decay", O.Adam, {"weight_decay": 0.05}),
    ("lion_weight_decay", O.Lion, {"weight_decay": 0.5}),
    ("adam_ema", O.Adam, {"use_ema": True, "ema_momentum": 0.9}),
    ("sgd_momentum_ema_overwrite", O.SGD, {"learning_rate": 0.01, "momentum": 0.9,
                                           "use_ema": True, "ema_overwrite_frequency": 4}),
    ("adam_accumulation", O.Adam, {"gradient_accumulation_steps": 3}),
    ("sgd_momentum_accumulation_ema", O.SGD, {"learning_rate": 0.01, "momentum": 0.9,
                                              "gradient_accumulation_steps": 2, "use_ema": True}),
    ("adamw_accumulation", O.AdamW, {"gradient_accumulation_steps": 4, "weight_decay": 0.1}),
    ("adam_clipnorm", O.Adam, {"clipnorm": 0.5}),
    ("rmsprop_clipvalue", O.RMSprop, {"clipvalue": 0.01}),
    ("sgd_momentum_global_clipnorm", O.SGD, {"learning_rate": 0.01, "momentum": 0.9,
                                             "global_clipnorm": 1.0}),
    # Schedules driving an optimizer (the C++ test builds the same schedule by name).
    ("adam_cosine_decay", O.Adam,
     {"learning_rate": O.schedules.CosineDecay(0.01, 20, alpha=0.1)}),
    ("sgd_polynomial_decay", O.SGD,
     {"learning_rate": O.schedules.PolynomialDecay(0.1, 10, 0.001, power=2.0, cycle=True)}),
    ("adam_cosine_accumulation", O.Adam,
     {"learning_rate": O.schedules.CosineDecay(0.01, 20, warmup_target=0.02, warmup_steps=5),
      "gradient_accumulation_steps": 2}),
]

# Schedules alone: the learning rate at steps 0 .. SCHEDULE_STEPS - 1, as float32 bits.
SCHEDULE_STEPS = 60
S = O.schedules
SCHEDULES = [
    ("exponential", S.ExponentialDecay(0.1, 7, 0.5)),
    ("exponential_staircase", S.ExponentialDecay(0.1, 7, 0.5, staircase=True)),
    ("inverse_time", S.InverseTimeDecay(0.1, 5, 0.3)),
    ("inverse_time_staircase", S.InverseTimeDecay(0.1, 5, 0.3, staircase=True)),
    ("polynomial", S.PolynomialDecay(0.1, 25)),
    ("polynomial_power_cycle", S.PolynomialDecay(0.1, 9, 0.002, power=0.5, cycle=True)),
    ("cosine", S.CosineDecay(0.05, 40)),
    ("cosine_alpha", S.CosineDecay(0.05, 33, alpha=0.2)),
    ("cosine_warmup", S.CosineDecay(0.0, 30, warmup_target=0.1, warmup_steps=10)),
    ("cosine_restarts", S.CosineDecayRestarts(0.1, 7)),
    ("cosine_restarts_constant", S.CosineDecayRestarts(0.1, 6, t_mul=1.0, m_mul=0.5, alpha=0.1)),
    ("cosine_restarts_geometric", S.CosineDecayRestarts(0.1, 5, t_mul=1.5, m_mul=0.8)),
]


def gradient(t, i):
    if i == 3 and (t + 1) % 7 == 0:
        return np.float32(0.0)
    e = EXPONENTS[(i + t) % 8]
    sign = "" if (i // 2 + t) % 2 == 0 else "-"
    return np.float32(float(f"{sign}1e{e}"))


GRADIENTS = np.array([[gradient(t, i) for i in range(8)] for t in range(STEPS)], np.float32)


def bits(values):
    a = np.asarray(values, dtype=np.float32)
    assert a.dtype == np.float32
    return ["0x%08x" % u for u in a.reshape(-1).view(np.uint32).tolist()]


def slots_of(opt, var):
    """The optimizer's per-variable slots for `var`, by slot name, in creation order."""
    prefix = var.name + "_"
    out = {}
    for v in opt.variables:
        if v.name.startswith(prefix) and tuple(v.shape) == tuple(var.shape):
            assert v.dtype == "float32", (v.name, v.dtype)
            out[v.name[len(prefix):]] = bits(v.numpy())
    return out


def run(cls, kwargs):
    var = keras.Variable(np.array(INIT, np.float32), name="w", dtype="float32")
    opt = cls(**kwargs)
    opt.build([var])
    initial_slots = slots_of(opt, var)
    steps = []
    for t in range(STEPS):
        opt.apply([tf.constant(GRADIENTS[t])], [var])
        step = {"variable": bits(var.numpy()), "slots": slots_of(opt, var)}
        if hasattr(opt, "_u_product"):  # Nadam
            step["state"] = {"u_product": bits(opt._u_product.numpy())[0]}
        steps.append(step)
    assert int(opt._iterations.numpy()) == STEPS
    return {"class": cls.__name__, "config": opt.get_config(), "initial_slots": initial_slots,
            "steps": steps, "iterations": int(opt.iterations.numpy())}


def main():
    assert keras.__version__.startswith("3"), keras.__version__
    assert keras.backend.backend() == "tensorflow", keras.backend.backend()
    d = lambda v: json.dumps(v, separators=(",", ":"))  # noqa: E731
    out = sys.stdout
    out.write("{\n")
    header = {
        "generator": "tests/tools/gen_keras3_optimizer_fixture.py",
        "keras_version": keras.__version__,
        "tensorflow_version": tf.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "backend": keras.backend.backend(),
        "tf_enable_onednn_opts": os.environ["TF_ENABLE_ONEDNN_OPTS"],
        "steps": STEPS,
        "initial": bits(INIT),
    }
    for k, v in header.items():
        out.write(f"{d(k)}: {d(v)},\n")
    out.write('"gradients": [\n')
    out.write(",\n".join(" " + d(bits(row)) for row in GRADIENTS))
    out.write("\n],\n")
    out.write('"optimizers": {\n')
    names = []
    for name, cls, kwargs in CONFIGS:
        r = run(cls, kwargs)
        lines = [f'{d(name)}: {{',
                 f' "class": {d(r["class"])},',
                 f' "config": {d(r["config"])},',
                 f' "initial_slots": {d(r["initial_slots"])},',
                 f' "iterations": {d(r["iterations"])},',
                 ' "steps": [',
                 ",\n".join("  " + d(s) for s in r["steps"]),
                 ' ]}']
        names.append("\n".join(lines))
    out.write(",\n".join(names))
    out.write("\n},\n")
    out.write('"schedules": {\n')
    rows = []
    for name, schedule in SCHEDULES:
        values = [schedule(step) for step in range(SCHEDULE_STEPS)]
        assert all(v.dtype == "float32" for v in values), name
        rows.append(f" {d(name)}: {{\"config\": {d(schedule.get_config())}, "
                    f"\"values\": {d(bits([float(v) for v in values]))}}}")
    out.write(",\n".join(rows))
    out.write("\n}\n}\n")


if __name__ == "__main__":
    main()
