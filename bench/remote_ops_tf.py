#!/usr/bin/env python3
"""TensorFlow's side of bench/remote_ops.cpp (cases 13 and 14 of docs/performance.md): remote
eager ops and copies between two tasks over loopback, one JSON line per case.

    .venv/bin/python bench/remote_ops_tf.py [--quick] [--reps N]

Task 1 is `tf.distribute.Server(cluster, "local", 1).join()` in a child process; this process
joins as task 0 with tf.config.experimental_connect_to_cluster (TensorFlow's defaults: remote ops
are enqueued asynchronously). The cases are eagle's:
  remote_add_kept     a chain of 100 1-element AddV2 on task 1, one .numpy() at the end; per op
  remote_add_fetched  a 1-element AddV2 on task 1 and its .numpy(); per op
  send                tf.identity of a local float32 tensor under task 1's scope (a new local
                      handle each time: TensorFlow keeps a sent tensor's mirror), synchronous
  fetch               tf.identity on task 1, then .numpy() of it (a new handle each time:
                      TensorFlow keeps a read's local copy)
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

TASK1 = "/job:local/replica:0/task:1/device:CPU:0"
CHAIN = 100


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def emit(case, nbytes, times, per):
    times = [t / per for t in times]
    print(json.dumps({"case": case, "impl": "tensorflow", "bytes": nbytes,
                      "median_us": statistics.median(times), "min_us": min(times),
                      "max_us": max(times), "reps": len(times)}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=0)
    args = parser.parse_args()
    reps = args.reps or (10 if args.quick else 30)
    ports = [free_port(), free_port()]
    cluster = {"local": [f"localhost:{p}" for p in ports]}
    server = subprocess.Popen(
        [sys.executable, "-c",
         "import os; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'\n"
         "import tensorflow as tf\n"
         f"tf.distribute.Server(tf.train.ClusterSpec({cluster!r}), 'local', 1).join()"],
        stderr=subprocess.DEVNULL)
    try:
        tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec(cluster), "local", 0)
        with tf.device(TASK1):
            one = tf.constant(1.0)

        def kept():
            with tf.device(TASK1):
                x = one
                for _ in range(CHAIN):
                    x = x + one
            assert x.numpy() == CHAIN + 1

        emit("remote_add_kept", 4, measure(kept, 2, reps), CHAIN)

        def fetched():
            total = 0.0
            for _ in range(CHAIN):
                with tf.device(TASK1):
                    y = one + one
                total += float(y.numpy())
            return total

        emit("remote_add_fetched", 4, measure(fetched, 2, reps), CHAIN)

        # The copies are timed in TensorFlow's synchronous mode, as eagle's calls are: each
        # returns once the bytes are where they go.
        tf.config.experimental.set_synchronous_execution(True)
        sizes = [4 << 10, 1 << 20, 16 << 20] + ([] if args.quick else [256 << 20])
        for nbytes in sizes:
            local = tf.random.uniform([nbytes // 4])
            copies = min(reps, 10) if nbytes >= (64 << 20) else reps

            def send_synced():
                fresh = tf.identity(local)
                with tf.device(TASK1):
                    there = tf.identity(fresh)
                return there

            emit("send", nbytes, measure(send_synced, 1, copies), 1)
            with tf.device(TASK1):
                there = tf.identity(local)
            want = local.numpy()

            def fetch():
                with tf.device(TASK1):
                    again = tf.identity(there)
                return again.numpy()

            got = fetch()
            assert np.array_equal(got, want)
            emit("fetch", nbytes, measure(fetch, 1, copies), 1)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
