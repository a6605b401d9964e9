#!/usr/bin/env bash
# Interleaved A/B of BENCHMARKS case 1 (bench_dispatch_chain) between two builds, e.g. a commit
# before a dispatcher change and after it: `bench/ab_dispatch.sh OLD_BUILD NEW_BUILD [ROUNDS]`.
# Prints the median over rounds of each run's median µs/op, per case and size, and new/old.
set -euo pipefail
old=$1/bench/bench_dispatch_chain
new=$2/bench/bench_dispatch_chain
rounds=${3:-5}
out=$(mktemp -d)
for ((r = 0; r < rounds; ++r)); do
  "$old" --reps 10 --threads 1 | grep '^{' >>"$out/old.jsonl"
  "$new" --reps 10 --threads 1 | grep '^{' >>"$out/new.jsonl"
done
python3 - "$out/old.jsonl" "$out/new.jsonl" <<'PY'
import json, statistics, sys
def load(path):
    runs = {}
    for line in open(path):
        r = json.loads(line)
        runs.setdefault((r["case"], r["impl"], r["size"]), []).append(r["us_per_op"])
    return {k: statistics.median(v) for k, v in runs.items()}
old, new = load(sys.argv[1]), load(sys.argv[2])
print(f"{'case':>22} {'impl':>17} {'size':>6} {'old us/op':>10} {'new us/op':>10} {'new/old':>8}")
for k in sorted(old):
    if k in new:
        print(f"{k[0]:>22} {k[1]:>17} {k[2]:>6} {old[k]:>10.4f} {new[k]:>10.4f} {new[k]/old[k]:>8.3f}")
PY
