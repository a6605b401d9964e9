#!/usr/bin/env python3
"""Writes tests/fixtures/tf_optimizers.json: 20-step trajectories of each Keras 2 optimizer and
option, computed by TensorFlow's own kernels (tf.raw_ops.ResourceApply*, fed the hyperparameters
Keras 2's optimizers feed them: lr, the beta powers of the 1-based step) and, where Keras 2 uses
plain ops (RMSprop without momentum), by Keras 2's formula in float32 NumPy. Gradients are a
fixed function of the step and the variable, so no tape is involved: this pins the updates.

Usage: .venv/bin/python tests/tools/gen_optimizer_fixture.py > tests/fixtures/tf_optimizers.json
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

INIT = [1.0, -2.0, 0.5, 3.0]
STEPS = 20


def grad_at(step, var):
    # Depends on the variable, so an update that goes wrong shows in later steps.
    return (np.float32(0.3) * var + np.float32(0.1) * np.float32(step) - np.float32(0.2)).astype(np.float32)


def slot(value=0.0):
    return tf.Variable(np.full(len(INIT), value, np.float32))


def run(name, options, update):
    var = tf.Variable(np.array(INIT, np.float32))
    state = {}
    trajectory = []
    for step in range(1, STEPS + 1):
        g = grad_at(step, var.numpy())
        update(var, state, tf.constant(g), step)
        trajectory.append([float(x) for x in var.numpy()])
    return {"name": name, "options": options, "trajectory": trajectory}


def sgd(lr, momentum=0.0, nesterov=False):
    def update(var, s, g, step):
        if momentum == 0:
            tf.raw_ops.ResourceApplyGradientDescent(var=var.handle, alpha=np.float32(lr), delta=g)
        else:
            s.setdefault("m", slot())
            tf.raw_ops.ResourceApplyKerasMomentum(var=var.handle, accum=s["m"].handle,
                                                  lr=np.float32(lr), grad=g,
                                                  momentum=np.float32(momentum),
                                                  use_nesterov=nesterov)
    return update


def adam(lr, b1, b2, eps, amsgrad):
    def update(var, s, g, step):
        for k in ("m", "v", "vhat"):
            s.setdefault(k, slot())
        args = dict(var=var.handle, m=s["m"].handle, v=s["v"].handle,
                    beta1_power=np.float32(b1 ** step), beta2_power=np.float32(b2 ** step),
                    lr=np.float32(lr), beta1=np.float32(b1), beta2=np.float32(b2),
                    epsilon=np.float32(eps), grad=g)
        if amsgrad:
            tf.raw_ops.ResourceApplyAdamWithAmsgrad(vhat=s["vhat"].handle, **args)
        else:
            tf.raw_ops.ResourceApplyAdam(**args)
    return update


def rmsprop(lr, rho, momentum, eps, centered):
    def update(var, s, g, step):
        for k in ("rms", "mg", "mom"):
            s.setdefault(k, slot())
        if momentum > 0:
            args = dict(var=var.handle, ms=s["rms"].handle, mom=s["mom"].handle,
                        lr=np.float32(lr), rho=np.float32(rho), momentum=np.float32(momentum),
                        epsilon=np.float32(eps), grad=g)
            if centered:
                tf.raw_ops.ResourceApplyCenteredRMSProp(mg=s["mg"].handle, **args)
            else:
                tf.raw_ops.ResourceApplyRMSProp(**args)
            return
        # Keras 2's RMSprop._resource_apply_dense without momentum: plain ops.
        gg = g.numpy()
        rms = s["rms"].numpy()
        rms = (rms + (gg * gg - rms) * np.float32(1 - rho)).astype(np.float32)
        s["rms"].assign(rms)
        denom = rms
        if centered:
            mg = s["mg"].numpy()
            mg = (mg + (gg - mg) * np.float32(1 - rho)).astype(np.float32)
            s["mg"].assign(mg)
            denom = (rms - mg * mg).astype(np.float32)
        var.assign((var.numpy() - np.float32(lr) * gg / (np.sqrt(denom) + np.float32(eps))).astype(np.float32))
    return update


def adagrad(lr, init, eps):
    def update(var, s, g, step):
        s.setdefault("acc", slot(init))
        tf.raw_ops.ResourceApplyAdagradV2(var=var.handle, accum=s["acc"].handle, lr=np.float32(lr),
                                          epsilon=np.float32(eps), grad=g)
    return update


CASES = [
    run("SGD", {"learning_rate": 0.01}, sgd(0.01)),
    run("SGD", {"learning_rate": 0.05, "momentum": 0.9}, sgd(0.05, 0.9)),
    run("SGD", {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True}, sgd(0.05, 0.9, True)),
    run("Adam", {}, adam(0.001, 0.9, 0.999, 1e-7, False)),
    run("Adam", {"learning_rate": 0.1, "beta_1": 0.8, "beta_2": 0.99, "epsilon": 1e-3},
        adam(0.1, 0.8, 0.99, 1e-3, False)),
    run("Adam", {"learning_rate": 0.1, "amsgrad": True}, adam(0.1, 0.9, 0.999, 1e-7, True)),
    run("RMSprop", {}, rmsprop(0.001, 0.9, 0.0, 1e-7, False)),
    run("RMSprop", {"learning_rate": 0.01, "centered": True}, rmsprop(0.01, 0.9, 0.0, 1e-7, True)),
    run("RMSprop", {"learning_rate": 0.01, "momentum": 0.5}, rmsprop(0.01, 0.9, 0.5, 1e-7, False)),
    run("RMSprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True},
        rmsprop(0.01, 0.9, 0.5, 1e-7, True)),
    run("Adagrad", {}, adagrad(0.001, 0.1, 1e-7)),
    run("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.5},
        adagrad(0.1, 0.5, 1e-7)),
]

print(json.dumps({"init": INIT, "steps": STEPS, "cases": CASES}, indent=1))
