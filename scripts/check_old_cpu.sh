#!/usr/bin/env bash
# Runs CPU tests of a default (portable) build under qemu-user emulating a pre-AVX CPU, to show
# that libeagle picks its baseline kernels there and never executes AVX2/AVX-512 code (Note [CPU
# kernel variants]). Usage: scripts/check_old_cpu.sh [BUILD_DIR [QEMU_CPU]]
# (defaults: build/isa, Nehalem: SSE4.2, no AVX). Needs qemu-user (Debian: apt-get install
# qemu-user); skips with a message without it. About 2 minutes on the 2-core dev VM.
set -euo pipefail
build=${1:-build/isa}
cpu=${2:-Nehalem}
qemu=$(command -v qemu-x86_64 || true)
if [[ -z $qemu ]]; then
  echo "check_old_cpu: qemu-x86_64 not found (apt-get install qemu-user): skipped"
  exit 0
fi
if [[ ! -x $build/tests/cpu_kernels_test ]]; then
  echo "check_old_cpu: build $build first (cmake --build $build)" >&2
  exit 1
fi
# OpenBLAS (Debian's, DYNAMIC_ARCH) may pick its Haswell kernels under qemu-user whatever -cpu
# says (and the dev VM sets OPENBLAS_CORETYPE=Haswell); they crash there. Its choice is not what
# this checks, so it is pinned to the emulated CPU's.
export OPENBLAS_CORETYPE=Nehalem
run() {  # run NAME ARGS...: one test binary under the emulated CPU
  local name=$1
  shift
  echo "== $name under qemu-x86_64 -cpu $cpu"
  CUDA_VISIBLE_DEVICES= "$qemu" -cpu "$cpu" "$build/tests/$name" "$@"
}
# The emulated CPU must lack AVX2, and the library must say it runs its baseline kernels.
bits=$(mktemp)
trap 'rm -f "$bits"' EXIT
# tee -a: appending, so a log file that is also stdout is not truncated by the reopen.
run cpu_variant_test write "$bits" | tee -a /dev/stderr | grep -q "by the baseline kernels"
rc=0
EAGLE_CPU_VARIANT=avx2 run cpu_variant_test compare "$bits" || rc=$?
if [[ $rc -ne 77 ]]; then
  echo "check_old_cpu: the emulated $cpu CPU claims AVX2 (or the check failed); pick an older model" >&2
  exit 1
fi
# Forcing the variant the CPU lacks must fail clearly, not with SIGILL.
EAGLE_CPU_VARIANT=avx512 run cpu_variant_test expect-error "this CPU lacks the instructions"
for t in cpu_kernels_test broadcast_loop_test ops_test; do
  run "$t" --warn NoTests | tail -3
done
echo "check_old_cpu: all passed on $cpu"
