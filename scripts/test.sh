#!/usr/bin/env bash
# Builds eagle and runs the whole test suite twice: in the default preset (Release), then under
# AddressSanitizer + UndefinedBehaviorSanitizer (preset asan). This is what CI runs.
# `scripts/test.sh default`, `asan` or `tsan` builds and runs that one preset.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# > 0)); then presets=("$@"); else presets=(default asan); fi
scripts/install_deps.sh

# The Release build also runs its CPU tests on an emulated pre-AVX CPU (the portable build must
# never execute AVX2/AVX-512 code there) and counts the instructions of one eager op against the
# budget (bench/dispatch_instructions.sh): both deterministic, neither a timing.
extra_checks() {
  [[ $1 == default ]] || return 0
  scripts/check_old_cpu.sh build/default && bench/dispatch_instructions.sh build/default --check
}

# Every preset runs even when an earlier one failed, so one run shows everything that is wrong.
summary=()
status=0
for preset in "${presets[@]}"; do
  echo "=== eagle: preset $preset: configure, build, test"
  start=$SECONDS
  if cmake --preset "$preset" && cmake --build --preset "$preset" && ctest --preset "$preset" &&
    extra_checks "$preset"; then
    result=passed
  else
    result=FAILED
    status=1
  fi
  summary+=("preset $preset: $result ($((SECONDS - start)) s)")
done
printf '=== eagle: %s\n' "${summary[@]}"
exit "$status"
