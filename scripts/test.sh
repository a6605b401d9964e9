#!/usr/bin/env bash
# Builds eagle and runs the whole test suite. `scripts/test.sh asan` (or tsan) uses that preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/install_deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
