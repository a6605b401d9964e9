#!/usr/bin/env bash
# Sets everything up (packages, build) and runs the demo: a guided tour of the seed tutorials.
# From a terminal the tour waits for Enter between steps; otherwise it runs straight through.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset default >/dev/null
samples=(log_device_placement manual_placement soft_placement visible_devices memory_growth
         memory_limit virtual_gpus multi_gpu_towers tour)
cmake --build --preset default --target "${samples[@]}"
build/default/samples/tour
printf '\nEach example on its own: build/default/samples/<name>, <name> one of\n  %s\n' \
  "${samples[*]:0:${#samples[@]}-1}"
