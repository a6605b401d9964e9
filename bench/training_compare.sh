#!/usr/bin/env bash
# The training benchmarks of issues 16 and 17 side by side: eagle's bench_mlp_step,
# bench_cnn_step (keras train_on_batch and a tape step) and bench_tape_overhead against bench/training_peers.py (TensorFlow eager and
# tf.function, Keras 3 train_on_batch compiled and run_eagerly, JAX with and without jit,
# PyTorch when importable). Builds nothing: build the three bench_* targets first.
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

for name in mlp_step cnn_step tape_overhead; do
  [[ -x "$build/bench/bench_$name" ]] || {
    echo "missing $build/bench/bench_$name (build the bench_$name target)" >&2
    exit 1
  }
done

export OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
export TF_CPP_MIN_LOG_LEVEL=3 JAX_PLATFORMS=cpu
# eagle's oneDNN (Debian's libdnnl) runs on OpenMP (libgomp), whose idle workers spin by default:
# beside eagle's own intra-op pool and OpenBLAS's threads on 2 cores that made some CNN steps
# 100x slower (1.1 s instead of 6 ms). Passive waiting is what Intel advises for oneDNN builds of
# TensorFlow too (KMP_BLOCKTIME); the peers use no OpenMP, so the setting is eagle's alone.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
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
)

echo "# host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "# threads $threads, pinned: ${pin[*]}; OMP_WAIT_POLICY=$OMP_WAIT_POLICY; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; $rounds rounds; JSON lines -> $out"
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

"$python" - "$out" <<'EOF'
import json, statistics, sys
from collections import defaultdict

per_round = defaultdict(list)  # (case, size, impl) -> [median_us per round]
versions = {}
absent = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("absent"):
        absent.add(r["impl"])
        continue
    impl = r["impl"]
    if r["case"] == "tape_overhead" and impl == "untaped":
        continue
    per_round[(r["case"], r["size"], impl)].append(r["median_us"])
    if "version" in r:
        versions[impl.split("_")[0] if impl.startswith("tf_eager") else impl] = r["version"]

def med(case, size, impl):
    v = per_round.get((case, size, impl))
    return statistics.median(v) if v else None

def fmt_time(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"

def cell(peer_us, eagle_us):
    if peer_us is None:
        return "-"
    return f"{fmt_time(peer_us)} ({peer_us / eagle_us:.2f}x)"

peers = [("tf_eager", "TF eager"), ("tf_function", "TF tf.function"),
         ("keras", "Keras train_on_batch"), ("keras_eager", "Keras run_eagerly"),
         ("jax", "JAX"), ("jax_jit", "JAX jit"), ("torch", "PyTorch")]
print("| case | eagle | " + " | ".join(name for _, name in peers) + " | target | met |")
print("|" + " --- |" * (len(peers) + 4))

def row(label, case, size, eagle_us, peer_us, target, met):
    cells = [cell(peer_us.get(k), eagle_us) for k, _ in peers]
    print(f"| {label} | {fmt_time(eagle_us)} | " + " | ".join(cells) + f" | {target} | {met} |")

for b in (1, 32, 512):
    e = med("mlp_step", b, "eagle")
    if e is None:
        continue
    p = {k: med("mlp_step", b, k) for k in ("tf_eager", "tf_function", "jax", "jax_jit", "torch")}
    required = {k: v for k, v in p.items() if v is not None and k != "tf_function"}
    if b < 512:
        target = "ahead of TF eager, JAX, JAX jit, PyTorch"
        met = "yes" if all(v > e for v in required.values()) else "no"
    else:
        target = ">= 0.9x the best"
        best = min(required.values())
        met = ("yes" if best / e >= 0.9 else "no") + f" ({best / e:.2f}x the best)"
    row(f"MLP step, batch {b}", "mlp_step", b, e, p, target, met)

taped, backward = med("tape_overhead", 1, "taped"), med("tape_overhead", 1, "backward")
tf_taped = med("tape_overhead", 1, "tf_eager_taped")
tf_backward = med("tape_overhead", 1, "tf_eager_backward")
if taped is not None:
    ops = 3000
    for label, e, t in (("tape chain forward, per op", taped, tf_taped),
                        ("tape backward, per recorded op", backward, tf_backward)):
        row(label, "", 1, e / ops, {"tf_eager": t / ops if t else None}, "", "")
    if tf_taped is not None:
        ratio = (tf_taped + tf_backward) / (taped + backward)
        row("tape forward + backward, per op", "", 1, (taped + backward) / ops,
            {"tf_eager": (tf_taped + tf_backward) / ops}, ">= 20x tf.GradientTape",
            "yes" if ratio >= 20 else "no")

for b in (32, 128):
    p = {k: med("cnn_step", b, k) for k in ("keras", "keras_eager", "jax_jit", "torch")}
    for impl, how in (("eagle_keras", "eagle train_on_batch"), ("eagle_tape", "eagle tape")):
        e = med("cnn_step", b, impl)
        if e is None:
            continue
        keras = p["keras"]
        met = []
        if keras is not None:
            met.append(("yes" if keras / e >= 1.2 else "no") + f" vs Keras ({keras / e:.2f}x)")
        if b == 32:
            target = "ahead of PyTorch; epoch >= 1.2x TF-CPU"
            met.append("PyTorch " + ("absent" if p["torch"] is None else
                                     "yes" if p["torch"] > e else "no"))
        else:
            target = "epoch >= 1.2x TF-CPU"
        row(f"CNN step, batch {b} ({how})", "cnn_step", b, e, p, target, "; ".join(met))

print()
print("Medians of the per-round medians; in brackets peer time / eagle time (higher is better "
      "for eagle).")
if absent:
    print("Absent (not importable): " + ", ".join(sorted(absent)) + ".")
print("Versions: " + "; ".join(sorted(set(versions.values()))) + ".")
EOF
exit "$status"
