#!/usr/bin/env bash
# Dispatch cost as a count, not a time: the instructions one eager op executes, measured by
# valgrind's callgrind on case 1 of docs/performance.md (the 10,000-op chains of 1-element
# tensors in bench_dispatch_chain). Counts do not depend on the machine's load or clock, so a
# change can be judged on a shared 2-core VM where timings move by 10-20%.
#
#   bench/dispatch_instructions.sh [BUILD_DIR] [--base BASE_BUILD_DIR] [--check]
#
# Each case runs twice, with 1 and with 3 timed repetitions; the difference divided by the
# 2 x 10,000 extra ops is the per-op count, free of start-up and set-up. The baseline CPU variant
# is forced (EAGLE_CPU_VARIANT=baseline) and one thread used, so the count is the same on every
# x86-64 host with the same compiler and libraries.
#   --base DIR  also count a second build (e.g. one of an older commit) and print new/base;
#               exits 1 when a case costs more than 10% over the base.
#   --check     compare with bench/dispatch_instructions_budget.txt (per case, the most
#               instructions per op allowed: the count when the budget was set, plus 10%);
#               exits 1 over budget. CI runs this on the Release build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=build/default
base=""
check=false
while (($#)); do
  case $1 in
    --base) base=$2; shift 2 ;;
    --check) check=true; shift ;;
    -h | --help) sed -n 2,19p "$0"; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
if ! command -v valgrind >/dev/null; then
  echo "dispatch_instructions: valgrind not found (apt-get install valgrind): skipped"
  exit 0
fi
cases=(dispatch_chain_add dispatch_chain_mixed)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count BUILD CASE: instructions per op of one case in one build.
count() {
  local prog=$1/bench/bench_dispatch_chain total=()
  if [[ ! -x $prog ]]; then
    echo "dispatch_instructions: $prog not built (cmake --build $1 --target bench_dispatch_chain)" >&2
    exit 2
  fi
  for reps in 1 3; do
    EAGLE_CPU_VARIANT=baseline EAGLE_SIMULATED_GPUS=0 CUDA_VISIBLE_DEVICES= \
      valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$prog" --filter "$2/1" \
      --reps "$reps" --warmup 1 --threads 1 >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 2; }
    total+=("$(sed -n 's/^summary: //p' "$tmp/out")")
  done
  echo $(((total[1] - total[0]) / 20000))
}

budget_file=$here/dispatch_instructions_budget.txt
status=0
printf '| case (1 element, baseline variant) | instructions/op |%s\n' \
  "$([[ -n $base ]] && echo ' base | new/base |')$($check && echo ' budget |')"
printf '|---|---:|%s\n' "$([[ -n $base ]] && echo '---:|---:|')$($check && echo '---:|')"
for c in "${cases[@]}"; do
  n=$(count "$build" "$c")
  line="| $c | $n |"
  if [[ -n $base ]]; then
    b=$(count "$base" "$c")
    ratio=$(awk -v n="$n" -v b="$b" 'BEGIN { printf "%.3f", n / b }')
    line+=" $b | $ratio |"
    awk -v r="$ratio" 'BEGIN { exit !(r > 1.10) }' && status=1
  fi
  if $check; then
    limit=$(awk -v c="$c" '$1 == c { print $2 }' "$budget_file")
    line+=" ${limit:-none} |"
    if [[ -z $limit ]] || ((n > limit)); then status=1; fi
  fi
  echo "$line"
done
if ((status)); then
  echo "dispatch_instructions: over budget (a change made every op dearer; see docs/performance.md)" >&2
fi
exit "$status"
