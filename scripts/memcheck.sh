#!/usr/bin/env bash
# Runs the CPU tests (ctest label `cpu`) under valgrind memcheck: no invalid reads or writes, no
# uses of uninitialised values, no definite or indirect leaks. A test with a valgrind error fails
# (--error-exitcode), and so does this script.
#
# Builds preset `memcheck` in build/memcheck: RelWithDebInfo, no sanitizers, no CUDA backend
# (the GPU tests need a GPU and valgrind does not see device memory; the CUDA host code's plans
# are checked by cuda_plans_test under ASan), no samples or benchmarks.
#
#   scripts/memcheck.sh                 # every cpu test, two at a time (MEMCHECK_JOBS=2)
#   scripts/memcheck.sh -R ops_test     # extra arguments go to ctest
#
# Logs: build/memcheck/Testing/Temporary/MemoryChecker.<test number>.log. Suppressions, for
# third-party code only: scripts/valgrind.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

scripts/install_deps.sh
if ! command -v valgrind >/dev/null; then
  echo "memcheck: valgrind is missing (Debian: apt-get install valgrind)" >&2
  exit 2
fi

cmake --preset memcheck
cmake --build --preset memcheck

# ctest's memory checker reads its settings from DartConfiguration.tcl, which a project without
# include(CTest) does not generate; this one holds just those settings.
options=(
  --tool=memcheck
  --leak-check=full
  --show-leak-kinds=definite,indirect
  --errors-for-leak-kinds=definite,indirect
  --num-callers=30
  --error-exitcode=99
)
# MEMCHECK_VALGRIND_OPTIONS adds options, e.g. "--track-origins=yes" (about twice as slow) to find
# where an uninitialised value came from, or "--gen-suppressions=all" to write a suppression.
read -r -a extra <<<"${MEMCHECK_VALGRIND_OPTIONS:-}"
options+=("${extra[@]}")
cat > build/memcheck/DartConfiguration.tcl <<EOF
SourceDirectory: $root
BuildDirectory: $root/build/memcheck
MemoryCheckType: Valgrind
MemoryCheckCommand: $(command -v valgrind)
MemoryCheckCommandOptions: ${options[*]}
MemoryCheckSuppressionFile: $root/scripts/valgrind.supp
TimeOut: 3600
EOF

cd build/memcheck
start=$SECONDS
status=0
# valgrind 3.19 does not decode AVX-512: run the baseline CPU kernels (Note [CPU kernel variants])
# and leave out the one test entry that forces the avx512 variant.
export EAGLE_CPU_VARIANT="${EAGLE_CPU_VARIANT:-baseline}"
ctest -T memcheck -L cpu -E "cpu_variant_test: avx512" -j "${MEMCHECK_JOBS:-2}" --output-on-failure \
  "$@" || status=$?
echo "memcheck: $((SECONDS - start)) s; valgrind logs in build/memcheck/Testing/Temporary/"
exit "$status"
