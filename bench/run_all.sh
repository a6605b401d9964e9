#!/usr/bin/env bash
# Runs every benchmark program in turn (each in its own process), appends their JSON lines to
# one file and prints their tables.
#
#   bench/run_all.sh [--quick] [--reps N] [--out FILE] [--build DIR]
#
#   --quick      passed to every program: fewer repetitions, finishes in well under a minute
#   --reps N     passed to every program
#   --out FILE   JSON lines go here (default: <build>/bench/results.jsonl; overwritten)
#   --build DIR  the CMake build directory holding bench/bench_* (default: <repo>/build/default,
#                the default preset's; any build configured with -DEAGLE_BENCH=ON works)
#
# Exits non-zero when a program fails (a result that disagrees with its reference included).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build/default"
out=""
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) args+=(--quick); shift ;;
    --reps) args+=(--reps "$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -n "$out" ]] || out="$build/bench/results.jsonl"
mkdir -p "$(dirname "$out")"
: > "$out"

# OMP_WAIT_POLICY (libgomp, under eagle's oneDNN) is left as the environment has it: the default
# is as fast as PASSIVE for training since 2026-11-26 (docs/guide.md, "Convolution").

echo "# host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}; JSON lines -> $out"

status=0
for name in dispatch_chain elementwise tensor_ops matmul allocator_churn tape_overhead \
    mlp_step cnn_step strategy_step; do
  exe="$build/bench/bench_$name"
  if [[ ! -x "$exe" ]]; then
    echo "missing $exe (configure with -DEAGLE_BENCH=ON and build bench_$name)" >&2
    status=1
    continue
  fi
  echo
  echo "## bench_$name ${args[*]:-}"
  log="$(mktemp)"
  if "$exe" "${args[@]}" > "$log"; then :; else
    echo "bench_$name FAILED (exit $?)" >&2
    status=1
  fi
  grep '^{' "$log" >> "$out" || true   # JSON lines to the file
  grep -v '^{' "$log" || true          # the table to the terminal
  rm -f "$log"
done
# Issue 17: conv2d forward and backprops, max pooling, and one epoch of the seed CNN's fit on
# Fashion-MNIST, one process per batch size so each peak RSS is that fit's own (only --quick
# passes: --reps counts epochs there; bench/compare runs their peers).
for run in conv2d max_pool "fit_epoch --filter fit_epoch/32" "fit_epoch --filter fit_epoch/128"; do
  read -r name extra <<< "$run"
  exe="$build/bench/bench_$name"
  if [[ ! -x "$exe" ]]; then
    echo "missing $exe (configure with -DEAGLE_BENCH=ON and build bench_$name)" >&2
    status=1
    continue
  fi
  pass=("${args[@]}")
  if [[ "$name" == fit_epoch ]]; then
    pass=()
    if [[ " ${args[*]:-} " == *" --quick "* ]]; then pass=(--quick); fi
  fi
  echo
  echo "## bench_$name $extra ${pass[*]:-}"
  log="$(mktemp)"
  # shellcheck disable=SC2086  # $extra is the filter's two words
  if "$exe" $extra "${pass[@]}" > "$log"; then :; else
    echo "bench_$name FAILED (exit $?)" >&2
    status=1
  fi
  grep '^{' "$log" >> "$out" || true
  grep -v '^{' "$log" || true
  rm -f "$log"
done
# The GEMM providers (built only with oneDNN): OpenBLAS, oneDNN and eagle on the same shapes.
if [[ -x "$build/bench/bench_gemm_providers" ]]; then
  echo
  echo "## bench_gemm_providers ${args[*]:-}"
  log="$(mktemp)"
  if "$build/bench/bench_gemm_providers" "${args[@]}" > "$log"; then :; else
    echo "bench_gemm_providers FAILED (exit $?)" >&2
    status=1
  fi
  grep '^{' "$log" >> "$out" || true
  grep -v '^{' "$log" || true
  rm -f "$log"
fi
# Batch norm (built only with oneDNN): the reference and oneDNN kernels on the same buffers.
if [[ -x "$build/bench/bench_batch_norm" ]]; then
  echo
  echo "## bench_batch_norm ${args[*]:-}"
  log="$(mktemp)"
  if "$build/bench/bench_batch_norm" "${args[@]}" > "$log"; then :; else
    echo "bench_batch_norm FAILED (exit $?)" >&2
    status=1
  fi
  grep '^{' "$log" >> "$out" || true
  grep -v '^{' "$log" || true
  rm -f "$log"
fi
echo
echo "# $(wc -l < "$out") JSON lines in $out"
exit "$status"
