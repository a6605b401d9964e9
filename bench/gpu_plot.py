#!/usr/bin/env python3
"""A picture of the GPU table: per case, PyTorch's and CuPy's time over eagle's (above 1 eagle
is faster), from the JSON lines of scripts/gpu_check.sh (the same input as bench/gpu_table.py).

    python3 bench/gpu_plot.py gpu_results.jsonl out.png [--title TEXT]

Needs matplotlib (the GPU machines' image has it; here: the .venv of bench/compare).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_table  # noqa: E402  (the same records, keys and order as the table)


def label_of(key, record):
    case, size, dtype, tf32 = key
    size_text = gpu_table.fmt_size(case, size, record)
    extra = dtype if case == "matmul" else ""
    if tf32 is not None and case == "matmul" and dtype == "float32":
        extra = "TF32" if tf32 else "fp32"
    return " ".join(t for t in (case, size_text, extra) if t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {}
    gpu = ""
    for r in gpu_table.load([args.results]):
        rows.setdefault(gpu_table.key_of(r), {})[r["impl"]] = r
        gpu = gpu or r.get("gpu", "")
    labels, torch_ratio, cupy_ratio = [], [], []
    for key in sorted(rows, key=gpu_table.sort_key):
        impls = rows[key]
        mine = impls.get("eagle", {}).get("median_us")
        if not mine:
            continue
        labels.append(label_of(key, impls["eagle"]))
        for impl, out in (("torch", torch_ratio), ("cupy", cupy_ratio)):
            peer = impls.get(impl, {}).get("median_us")
            out.append(peer / mine if peer else 0.0)

    fig, ax = plt.subplots(figsize=(11, 0.32 * len(labels) + 1.5))
    ys = range(len(labels))
    ax.barh([y - 0.2 for y in ys], torch_ratio, height=0.4, label="PyTorch time / eagle time")
    ax.barh([y + 0.2 for y in ys], cupy_ratio, height=0.4, label="CuPy time / eagle time")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(list(ys))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ratio (above 1: eagle is faster; a missing bar: no peer for that case)")
    ax.set_title(args.title or f"eagle on {gpu or 'a GPU'}: median time per op against the peers")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out} ({len(labels)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
