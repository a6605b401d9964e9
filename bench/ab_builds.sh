#!/usr/bin/env bash
# Interleaved A/B of cases 1-3 of docs/performance.md (bench_dispatch_chain, bench_elementwise,
# bench_tensor_ops) between two builds, e.g. EAGLE_NATIVE=ON against the portable build with its
# run-time CPU variants: `bench/ab_builds.sh A_BUILD B_BUILD [ROUNDS [THREADS]]`. Prints, per case
# and size, the median over rounds of each run's median µs, and B/A.
set -euo pipefail
a=$1/bench
b=$2/bench
rounds=${3:-5}
threads=${4:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 0; r < rounds; ++r)); do
  for prog in bench_dispatch_chain bench_elementwise bench_tensor_ops; do
    "$a/$prog" --quick --threads "$threads" | grep '^{' >>"$out/a.jsonl"
    "$b/$prog" --quick --threads "$threads" | grep '^{' >>"$out/b.jsonl"
  done
done
python3 - "$out/a.jsonl" "$out/b.jsonl" <<'PY'
import json, statistics, sys
def load(path):
    runs = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("impl") != "eagle" or "median_us" not in r:
            continue
        us = r.get("us_per_op", r["median_us"])
        runs.setdefault((r["case"], r["label"]), []).append(us)
    return {k: statistics.median(v) for k, v in runs.items()}
a, b = load(sys.argv[1]), load(sys.argv[2])
print(f"| case | size | A µs | B µs | B/A |\n|---|---|---:|---:|---:|")
for k in a:
    if k in b:
        print(f"| {k[0]} | {k[1]} | {a[k]:.4g} | {b[k]:.4g} | {b[k]/a[k]:.3f} |")
PY
