#!/usr/bin/env python3
"""Where a GPU program's time goes, per kernel: runs it under Nsight Compute (ncu) collecting
only each launch's duration, and prints the kernels by total time.

    python3 scripts/gpu_kernel_times.py [--top N] [--ncu PATH] -- PROGRAM [ARGS...]

Used by scripts/gpu_check.sh --profile on the seed CNN's training step (bench_cnn_step --device
/GPU:0), to find which of the step's kernels makes it slower than PyTorch's. ncu serializes the
launches and adds its own time between them, so the per-kernel durations are right and the
program's wall time is not. The clocks are left alone (--clock-control none), as the lent
machines require.
"""

import argparse
import collections
import csv
import glob
import io
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--ncu", default="")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        ap.error("no program given")
    candidates = [args.ncu, shutil.which("ncu"), "/usr/local/cuda/bin/ncu"]
    candidates += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    ncu = next((c for c in candidates if c and os.access(c, os.X_OK)), None)
    if ncu is None:
        print("gpu_kernel_times: ncu not found (PATH, /usr/local/cuda/bin, /opt/nvidia/...)")
        return 2
    cmd = [
        ncu, "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "--csv",
        "--page", "raw", "--print-units", "base",
    ] + program
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    # The CSV starts at the first line that names the columns; the program's output comes first.
    lines = p.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        print(f"gpu_kernel_times: no ncu table (exit {p.returncode})")
        print("\n".join((p.stdout + p.stderr).splitlines()[-30:]))
        return 1
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    total = collections.Counter()
    count = collections.Counter()
    for r in rows:
        value = r.get("gpu__time_duration.sum", "")
        try:
            ns = float(value.replace(",", ""))
        except ValueError:  # the units row
            continue
        name = r.get("Kernel Name", "?")
        total[name] += ns
        count[name] += 1
    overall = sum(total.values())
    print(f"{sum(count.values())} launches, {overall / 1e3:.1f} us of kernel time in all")
    print(f"{'us total':>10} {'launches':>8} {'share':>6}  kernel")
    for name, ns in total.most_common(args.top):
        print(f"{ns / 1e3:10.1f} {count[name]:8d} {100 * ns / overall:5.1f}%  {name[:110]}")
    return 0 if p.returncode == 0 else p.returncode


if __name__ == "__main__":
    sys.exit(main())
