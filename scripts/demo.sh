#!/usr/bin/env bash
# Sets everything up (packages, build) and runs the demo programs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset default >/dev/null
samples=(log_device_placement manual_placement soft_placement)
cmake --build --preset default --target "${samples[@]}"
for s in "${samples[@]}"; do
  printf '\n==== samples/%s ====\n' "$s"
  "build/default/samples/$s"
done
