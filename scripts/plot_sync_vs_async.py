#!/usr/bin/env python3
"""Draws samples/sync_vs_async's curves: the loss against the step and against the wall-clock time,
synchronous (MirroredStrategy) and asynchronous (ParameterServerTraining) training on each device
count the CSV holds.

    build/default/samples/sync_vs_async --csv /tmp/sync_vs_async.csv
    .venv/bin/python scripts/plot_sync_vs_async.py /tmp/sync_vs_async.csv docs/sync_vs_async.png

A step is one global batch (devices x batch-size examples): one synchronous update, or one
asynchronous update per worker, so both modes have seen as many examples at a step. The losses
are the batches' own (each update's, computed from the weights it read), smoothed with a running
mean over `--window` steps. Needs matplotlib (bench/requirements-cpu.txt).
"""

import argparse
import csv
from collections import defaultdict


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("csv", help="the sample's --csv file")
    p.add_argument("png", help="the picture to write")
    p.add_argument("--window", type=int, default=10, help="running mean over this many steps")
    opt = p.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = defaultdict(list)  # (mode, devices) -> [(step, seconds, loss)] in the order applied
    with open(opt.csv) as f:
        for row in csv.DictReader(f):
            runs[(row["mode"], int(row["devices"]))].append(
                (float(row["step"]), float(row["seconds"]), float(row["loss"])))

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), dpi=80)
    colors = {2: "tab:blue", 4: "tab:red", 1: "tab:green", 8: "tab:purple"}
    for (mode, devices), points in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        updates_per_step = max(1, round(len(points) / max(p[0] for p in points)))
        window = opt.window * updates_per_step
        smoothed = []
        total = 0.0
        for i, (_, _, loss) in enumerate(points):
            total += loss
            if i >= window:
                total -= points[i - window][2]
            smoothed.append(total / min(i + 1, window))
        style = "-" if mode == "sync" else "--"
        label = f"{'sync (MirroredStrategy)' if mode == 'sync' else 'async (parameter server)'}, " \
                f"{devices} devices"
        color = colors.get(devices)
        axes[0].plot([p[0] for p in points], smoothed, style, color=color, label=label, lw=1.3)
        axes[1].plot([p[1] for p in points], smoothed, style, color=color, label=label, lw=1.3)
    axes[0].set_xlabel("step (global batches of devices x batch examples)")
    axes[1].set_xlabel("wall-clock seconds")
    for ax in axes:
        ax.set_ylabel("training loss")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("The same MLP trained synchronously and asynchronously (samples/sync_vs_async)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(opt.png)
    print(f"wrote {opt.png}")


if __name__ == "__main__":
    main()
