#!/usr/bin/env bash
# conv2d side by side in rotated rounds: eagle's bench_conv2d and bench/conv2d_peers.py's
# TensorFlow and PyTorch, each round running the three in an order rotated from the last, so that
# a burst of load from other processes hits every side alike (a single `bench/compare --filter
# conv2d` runs eagle first and then each peer, and moved by up to 30% from run to run on a shared
# VM). Each case's number is the median of its per-round medians. Builds nothing: build
# bench_conv2d first; TensorFlow and PyTorch come from the Python given (bench/compare sets up
# .venv; PyTorch is not in bench/requirements-cpu.txt).
#
#   bench/conv2d_rounds.sh [--rounds N] [--threads N] [--build DIR] [--python PY] [--out FILE]
#
#   --rounds N   rounds (default 3)
#   --threads N  threads for everyone (default 2): eagle --threads, OpenBLAS/OMP/MKL threads,
#                TensorFlow's pools, torch.set_num_threads; every process pinned to cores
#                0..N-1 with taskset, OMP_WAIT_POLICY=PASSIVE
#   --build DIR  the build holding bench/bench_conv2d (default <repo>/build/default)
#   --python PY  the Python with tensorflow and torch (default <repo>/.venv/bin/python)
#   --out FILE   every JSON line, tagged with its round (default <build>/bench/conv2d_rounds.jsonl)
#
# Prints the load average after each round, then a Markdown table: eagle's median, each peer's
# with its ratio peer time / eagle time (higher is better for eagle), and the ratio to the best
# peer against issue 17's target (>= 1.0x). Exit status 1 when a program fails.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3
threads=2
build="$repo/build/default"
python="$repo/.venv/bin/python"
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
out="${out:-$build/bench/conv2d_rounds.jsonl}"
[[ -x "$build/bench/bench_conv2d" ]] || { echo "build bench_conv2d first ($build)" >&2; exit 2; }

export OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
pin=()
command -v taskset >/dev/null && pin=(taskset -c "0-$((threads - 1))")

impls=(eagle tensorflow torch)
: >"$out"
for ((round = 0; round < rounds; ++round)); do
  for ((k = 0; k < ${#impls[@]}; ++k)); do
    impl="${impls[$(((round + k) % ${#impls[@]}))]}"
    if [[ $impl == eagle ]]; then
      cmd=("$build/bench/bench_conv2d" --threads "$threads")
    else
      cmd=("$python" "$repo/bench/conv2d_peers.py" --impl "$impl" --threads "$threads")
    fi
    if ! "${pin[@]}" "${cmd[@]}" 2>/dev/null | grep '^{' | sed "s/^{/{\"round\": $round, /" >>"$out"
    then
      echo "$impl failed in round $round" >&2
      exit 1
    fi
  done
  echo "# round $((round + 1)) of $rounds done; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done

python3 - "$out" <<'EOF'
import collections
import json
import statistics
import sys

medians = collections.defaultdict(list)
order = []
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    key = (r["label"], r["op"])
    if key not in order:
        order.append(key)
    medians[(key, r["impl"])].append(r["median_us"])


def fmt(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


peers = [("tensorflow", "TensorFlow"), ("torch", "PyTorch")]
print("| case | op | eagle | " + " | ".join(name for _, name in peers) + " | vs best | met |")
print("| --- | --- | --- | " + " | ".join("---" for _ in peers) + " | --- | --- |")
met = 0
for key in order:
    eagle = statistics.median(medians[(key, "eagle")])
    cells, best = [], None
    for impl, _ in peers:
        times = medians.get((key, impl))
        if not times:
            cells.append("-")
            continue
        t = statistics.median(times)
        cells.append(f"{fmt(t)} ({t / eagle:.2f}x)")
        best = t if best is None else min(best, t)
    ratio = best / eagle if best else None
    met += ratio is not None and ratio >= 1.0
    shown = f"{ratio:.2f}x" if ratio is not None else "-"
    print(f"| {key[0]} | {key[1]} | {fmt(eagle)} | " + " | ".join(cells) +
          f" | {shown} | {'yes' if ratio is not None and ratio >= 1.0 else 'no'} |")
print(f"\n{met} of {len(order)} rows at or above the best peer (issue 17: >= 1.0x)")
EOF
