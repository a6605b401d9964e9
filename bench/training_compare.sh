#!/usr/bin/env bash
# The training benchmarks of issues 16, 17 and 18 side by side: eagle's bench_mlp_step,
# bench_cnn_step (keras train_on_batch and a tape step) and bench_tape_overhead against bench/training_peers.py (TensorFlow eager and
# tf.function, Keras 3 train_on_batch compiled and run_eagerly, JAX with and without jit,
# PyTorch when importable), and bench_strategy_step (MirroredStrategy) against
# bench/strategy_peers.py (TensorFlow's MirroredStrategy on 2 logical CPUs). Builds nothing:
# build the four bench_* targets first.
#
#   bench/training_compare.sh [--rounds N] [--threads N] [--quick] [--build DIR] [--out FILE]
#                             [--python PY]
#
#   --rounds N   rounds (default 3). Each round runs every program once, in an order rotated
#                from round to round, so load from other processes hits every side alike; a
#                case's number is the median of its per-round medians.
#   --threads N  threads for everyone (default: all cores): eagle --threads, OpenBLAS/OMP,
#                TensorFlow's intra/inter pools, XLA's pool, torch.set_num_threads; every
#                process pinned to cores 0..N-1 with taskset.
#   --quick      fewer repetitions (a smoke run)
#   --build DIR  the build holding bench/bench_* (default <repo>/build/default)
#   --out FILE   all JSON lines, each tagged with its round (default <build>/bench/training.jsonl)
#   --python PY  the Python with TensorFlow and JAX (default <repo>/.venv/bin/python, else
#                /work/main/.venv/bin/python)
#
# Prints the load average before each round, then one Markdown table: each case's eagle median,
# each peer's median with its ratio peer time / eagle time (higher is better for eagle), and the
# issue's target. Exit status 1 when a program fails (a loss that does not fall included).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build/default"
rounds=3
threads="$(nproc)"
quick=()
out=""
python=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$python" ]]; then
  python="$repo/.venv/bin/python"
  [[ -x "$python" ]] || python="/work/main/.venv/bin/python"
fi
[[ -n "$out" ]] || out="$build/bench/training.jsonl"
mkdir -p "$(dirname "$out")"
: > "$out"

for name in mlp_step cnn_step tape_overhead strategy_step; do
  [[ -x "$build/bench/bench_$name" ]] || {
    echo "missing $build/bench/bench_$name (build the bench_$name target)" >&2
    exit 1
  }
done

export OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
export TF_CPP_MIN_LOG_LEVEL=3 JAX_PLATFORMS=cpu
# eagle's oneDNN (Debian's libdnnl) and PyTorch run on OpenMP (libgomp). Its wait policy is left
# as the environment has it: on 2 cores its default spinning once made some CNN steps 100x
# slower beside eagle's own pool (1.1 s instead of 6 ms), so these scripts set PASSIVE until
# 2026-11-26, when the batch blocks and the polling intra-op pool had made the default as fast
# (docs/guide.md, "Convolution"). OMP_WAIT_POLICY=PASSIVE in the environment gives the old runs.
unset EAGLE_SIMULATED_GPUS
pin=(taskset -c "0-$((threads - 1))")
peers="$repo/bench/training_peers.py"

# name|command: one process each
programs=(
  "eagle_mlp|$build/bench/bench_mlp_step --threads $threads ${quick[*]:-}"
  "eagle_cnn|$build/bench/bench_cnn_step --threads $threads ${quick[*]:-}"
  "eagle_tape|$build/bench/bench_tape_overhead --threads $threads ${quick[*]:-}"
  "tf_eager|$python $peers --impl tf_eager --case mlp,tape --threads $threads ${quick[*]:-}"
  "tf_function|$python $peers --impl tf_function --case mlp --threads $threads ${quick[*]:-}"
  "keras|$python $peers --impl keras --case cnn --threads $threads ${quick[*]:-}"
  "keras_eager|$python $peers --impl keras_eager --case cnn --threads $threads ${quick[*]:-}"
  "jax|$python $peers --impl jax --case mlp --threads $threads ${quick[*]:-}"
  "jax_jit|$python $peers --impl jax_jit --case mlp,cnn --threads $threads ${quick[*]:-}"
  "torch|$python $peers --impl torch --threads $threads ${quick[*]:-}"
  "eagle_strategy|$build/bench/bench_strategy_step --threads $threads ${quick[*]:-}"
  "tf_strategy|$python $repo/bench/strategy_peers.py --threads $threads ${quick[*]:-}"
)

echo "# host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "# threads $threads, pinned: ${pin[*]}; OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; $rounds rounds; JSON lines -> $out"
status=0
n=${#programs[@]}
for ((round = 1; round <= rounds; ++round)); do
  echo "# round $round, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((k = 0; k < n; ++k)); do
    entry="${programs[$(((k + round - 1) % n))]}"
    name="${entry%%|*}"
    cmd="${entry#*|}"
    t0=$(date +%s.%N)
    log="$(mktemp)"
    # shellcheck disable=SC2086  # the command is split on purpose
    if ! "${pin[@]}" $cmd > "$log" 2> "$log.err"; then
      echo "#   $name FAILED:" >&2
      tail -5 "$log.err" >&2
      status=1
    fi
    grep '^{' "$log" | sed "s/^{/{\"round\": $round, \"program\": \"$name\", /" >> "$out" || true
    printf '#   %-12s %6.1f s\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
    rm -f "$log" "$log.err"
  done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

"$python" "$repo/bench/training_table.py" "$out"  # the table (shared with bench/compare)
exit "$status"
