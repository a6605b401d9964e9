#!/usr/bin/env python3
"""TensorFlow's side of bench/strategy_step.cpp (issue 18 §4, case 12 of docs/performance.md): the seed
CNN's training step at a global batch of 128 through tf.distribute.MirroredStrategy on the CPU
split in two logical CPUs (tf.config.set_logical_device_configuration), one JSON line per case.

    .venv/bin/python bench/strategy_peers.py [--threads N] [--quick] [--reps N]

Cases (impl), all in this one process, timed in rounds as eagle's (each round: one untimed step,
then 5 timed steps of every case in turn):
  tf_plain            the step in a tf.function, no strategy
  tf_mirrored_1       MirroredStrategy(["CPU:0"]): strategy.run inside a tf.function
  tf_mirrored_2       MirroredStrategy(["CPU:0", "CPU:1"]), 64 examples per replica
strategy.run called eagerly (as eagle's is) is not among them: with Keras 3's Adam, TensorFlow
2.21 fails in apply_gradients ("Collective ops is aborted by: Shape mismatch in the collective
instance ...", CPU:0's all-reduce of shape [10] met CPU:1's of [93322], all gradients packed),
and TF warns that eager strategy.run "has significant overhead" anyway.
The model, initialization and data are bench/training_peers.py's (glorot_uniform kernels, zero
biases, images uniform in [0, 1), labels uniform in [0, 10)); the loss is
tf.nn.compute_average_loss(per-example sparse softmax cross entropy, global_batch_size=128) and
the optimizer Keras's Adam created under the strategy's scope. Threads: TensorFlow's intra- and
inter-op pools = --threads (one pool for both logical CPUs: TensorFlow cannot give each logical
CPU its own threads). Each case's loss must fall.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import training_peers as peers

GLOBAL_BATCH = 128
STEPS_PER_ROUND = 5


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=0)
    return p.parse_args()


def main():
    opt = parse_args()
    peers.set_thread_env(opt.threads)
    import numpy as np
    import tensorflow as tf
    import keras

    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
    tf.config.threading.set_intra_op_parallelism_threads(opt.threads)
    tf.config.threading.set_inter_op_parallelism_threads(opt.threads)
    tf.get_logger().setLevel("ERROR")
    version = f"tensorflow {tf.__version__}, keras {keras.__version__}"

    x_np, labels_np = peers.data(np, GLOBAL_BATCH, True, 300 + GLOBAL_BATCH)
    init = peers.init_params(np, peers.CNN_SHAPES)

    def per_example_loss(ws, x, labels):
        def conv_relu(h, w, b):
            return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, 1, "VALID"), b))

        h = tf.nn.max_pool2d(conv_relu(x, ws[0], ws[1]), 2, 2, "VALID")
        h = tf.nn.max_pool2d(conv_relu(h, ws[2], ws[3]), 2, 2, "VALID")
        h = tf.reshape(conv_relu(h, ws[4], ws[5]), [-1, 576])
        h = tf.nn.relu(tf.matmul(h, ws[6]) + ws[7])
        logits = tf.matmul(h, ws[8]) + ws[9]
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    def replica_step(ws, adam, x, labels):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(per_example_loss(ws, x, labels),
                                              global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, ws)
        adam.apply_gradients(zip(grads, ws))
        return loss

    def plain_case():
        ws = [tf.Variable(p) for p in init]
        adam = keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-7)
        adam.build(ws)
        x, labels = tf.constant(x_np), tf.constant(labels_np)
        step = tf.function(lambda: replica_step(ws, adam, x, labels))
        return lambda: float(step())

    def mirrored_case(devices):
        strategy = tf.distribute.MirroredStrategy(devices)
        with strategy.scope():
            ws = [tf.Variable(p) for p in init]
            adam = keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-7)
            adam.build(ws)  # its slots mirrored here, not on the first traced step
        dataset = tf.data.Dataset.from_tensors((x_np, labels_np))
        x, labels = next(iter(strategy.experimental_distribute_dataset(dataset)))

        def step():
            losses = strategy.run(replica_step, args=(ws, adam, x, labels))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

        step = tf.function(step)
        return lambda: float(step())

    cases = [("tf_plain", 1, plain_case()),
             ("tf_mirrored_1", 1, mirrored_case(["CPU:0"])),
             ("tf_mirrored_2", 2, mirrored_case(["CPU:0", "CPU:1"]))]
    reps = opt.reps or (10 if opt.quick else 30)
    rounds = (reps + STEPS_PER_ROUND - 1) // STEPS_PER_ROUND
    first = {name: step() for name, _, step in cases}
    us = {name: [] for name, _, _ in cases}
    for _ in range(rounds):
        for name, _, step in cases:
            step()
            for _ in range(STEPS_PER_ROUND):
                t0 = time.perf_counter()
                step()
                us[name].append((time.perf_counter() - t0) * 1e6)
    for name, replicas, step in cases:
        last = step()
        if not (math.isfinite(last) and last < first[name]):
            sys.exit(f"CHECK FAILED: strategy_step/{name}: the loss did not fall "
                     f"({first[name]} -> {last})")
        median = statistics.median(us[name])
        print(json.dumps({"case": "strategy_step", "impl": name, "version": version,
                          "size": GLOBAL_BATCH, "median_us": median, "min_us": min(us[name]),
                          "max_us": max(us[name]), "reps": len(us[name]),
                          "threads": opt.threads, "replicas": replicas,
                          "steps_per_s": 1e6 / median, "first_loss": first[name],
                          "last_loss": last}), flush=True)


if __name__ == "__main__":
    main()
