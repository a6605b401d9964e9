#!/usr/bin/env bash
# The GPU check: builds eagle with its CUDA backend on a machine with an NVIDIA GPU, runs the
# tests, the GPU tests under compute-sanitizer, and the GPU benchmarks beside PyTorch and CuPy.
# Run from the repository root:
#
#   scripts/gpu_check.sh [--quick] [--gpu-only] [--skip-sanitizer] [--skip-bench] [--skip-ctest]
#                        [--skip-training] [--skip-build] [--ctest-jobs N] [--time-limit S]
#                        [--cuda-arch A] [--build-dir DIR] [--build-only] [--pack-build]
#
#   --quick           benchmarks in quick mode (10 reps, add at 2^26 instead of 2^28), tests and
#                     sanitized entries time out after 180 s instead of 600, and a time limit of
#                     570 s (under the 10 minutes a remote command gets)
#   --skip-sanitizer  no compute-sanitizer runs
#   --sanitizers L    which compute-sanitizer tools (default "memcheck racecheck")
#   --skip-bench      no benchmarks
#   --skip-ctest      no ctest runs (to split the work over two calls)
#   --gpu-only        build only what the GPU steps run (the library, the gpu-labelled tests, the
#                     samples, the GPU benchmarks) and skip the whole-suite ctest: the CPU tests
#                     are CI's; this saves most of the build on a leased machine
#   --skip-training   no training runs of samples/fashion_mnist_cnn (the seed CNN on GPU:0, and
#                     seed 003's mirrored run on two virtual GPUs)
#   --skip-build      reuse the build folder as it is, unconfigured (a second call on the same
#                     machine, or a build carried as .gpu-build.tar.gz)
#   --build-only      configure and build, nothing more (with --cuda-arch, on a machine with nvcc
#                     and no GPU)
#   --pack-build      after building, write .gpu-build.tar.gz: the build folder without its object
#                     files, for a GPU machine to run as it is (Note [A carried build] below)
#   --profile         also time each kernel of the seed CNN's step at batch 128 under Nsight
#                     Compute (scripts/gpu_kernel_times.py): which kernels the step's time is
#                     spent in
#   --time-limit S    stop starting steps, and cut the running one short, S seconds after the
#                     start, leaving time for the summary (0: none; the default without --quick)
#   --ctest-jobs N    parallel ctest jobs (default: every core). The CPU-labelled tests hide
#                     the GPU (CUDA_VISIBLE_DEVICES empty); the gpu-labelled ones hold the
#                     RESOURCE_LOCK cuda_gpu, so ctest runs them one at a time (an allocator
#                     without growth takes the GPU's whole free memory)
#   --cuda-arch A     CMAKE_CUDA_ARCHITECTURES (default: from nvidia-smi's compute capability,
#                     e.g. 90 on an H100 or H200)
#   --build-dir DIR   the build folder (default build/gpu)
#
# Steps: (a) nvcc and the GPU (nvidia-smi; CMAKE_CUDA_ARCHITECTURES from its compute capability);
# (b) dependencies: .deps/ (scripts/fetch_deps.sh; or its --pack archive .deps.tar.gz, unpacked
# here, with Fashion-MNIST) when present, else the system's packages, and a build carried as
# .gpu-build.tar.gz (Note [A carried build]); cuDNN and NCCL from NVIDIA's Python wheels where the
# toolkit lacks them; (c) configure and build build/gpu (Release, EAGLE_CUDA=ON, EAGLE_BENCH=ON)
# with every core; (d) ctest, the whole suite, then the entries labelled gpu, then the samples on
# the GPU; (g) samples/fashion_mnist_cnn: the seed CNN trained on GPU:0, and seed 003's mirrored
# run on two virtual GPUs; (f)
# bench/bench_gpu_ops, bench_cnn_step --device /GPU:0 and bench/cnn_step_torch.py,
# bench/gpu_peers.py --impl torch, --impl cupy, each its own process, their JSON lines in one file,
# one table (bench/gpu_table.py) and its picture (bench/gpu_plot.py); (e) last, compute-sanitizer
# memcheck and racecheck over the gpu entries (scripts/gpu_sanitize.py). Logs, results, table and
# picture in $OUT when set (a summary, the JSON lines, the table, gpu_plot.png and logs.tar.gz),
# else in build/gpu/report/.
#
# On a leased machine, with a build made beforehand elsewhere (Note [A carried build]):
#
#   here:  scripts/fetch_deps.sh --pack
#          scripts/gpu_check.sh --gpu-only --build-only --pack-build --cuda-arch 90-real
#   there: scripts/gpu_check.sh --quick --gpu-only --profile   (carrying .deps.tar.gz and
#          .gpu-build.tar.gz)
#
# Every step runs even when an earlier one failed (a failed build skips what needs it). Prints a
# summary of the steps; exits 1 when any step failed.
set -uo pipefail

all_args=("$@")
quick=0
skip_sanitizer=0
sanitizers="memcheck racecheck"
skip_bench=0
skip_ctest=0
gpu_only=0
skip_training=0
skip_build=0
build_only=0
pack_build=0
profile=0
ctest_jobs=""
time_limit=""
cuda_arch=""
build_dir=build/gpu
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --skip-sanitizer) skip_sanitizer=1; shift ;;
    --sanitizers) sanitizers="$2"; shift 2 ;;
    --skip-bench) skip_bench=1; shift ;;
    --ctest-jobs) ctest_jobs="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --skip-ctest) skip_ctest=1; shift ;;
    --gpu-only) gpu_only=1; shift ;;
    --skip-training) skip_training=1; shift ;;
    --skip-build) skip_build=1; shift ;;
    --profile) profile=1; shift ;;
    --time-limit) time_limit="$2"; shift 2 ;;
    --cuda-arch) cuda_arch="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --pack-build) pack_build=1; shift ;;
    -h|--help) sed -n '2,62p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo" || exit 2

# Note [A carried build]
# A leased GPU machine's time is short, and building eagle there takes minutes of it. So the
# build can be made on any machine with nvcc (--build-only --pack-build --cuda-arch 90-real, with
# .deps/ from scripts/fetch_deps.sh, and without oneDNN, HDF5 and MPI, which .deps/ lacks) and
# carried as .gpu-build.tar.gz. Its CMake and CTest files hold the absolute paths of the checkout
# it was built in; where this checkout lies elsewhere, that path is made a link to this one and
# the script runs again from there, so every path in the carried files resolves.
carried_build="$repo/.gpu-build.tar.gz"
if [[ -f "$carried_build" && $pack_build == 0 && $build_only == 0 ]]; then
  cache="$repo/$build_dir/CMakeCache.txt"
  if [[ -f "$cache" ]]; then
    built_in="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")"
  else
    built_in="$(tar -xzOf "$carried_build" "$build_dir/CMakeCache.txt" 2>/dev/null |
                sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p')"
  fi
  if [[ -n "$built_in" && "$built_in" != "$repo" ]]; then
    if [[ ! -e "$built_in" ]]; then
      echo "the carried build was made in $built_in: linking that to $repo"
      mkdir -p "$(dirname "$built_in")" && ln -s "$repo" "$built_in"
    fi
    if [[ "$(cd "$built_in" 2>/dev/null && pwd -P)" == "$(pwd -P)" ]]; then
      exec bash "$built_in/scripts/gpu_check.sh" "${all_args[@]}"
    fi
    echo "the carried build was made in $built_in, which is another folder here: not using it"
  else
    if [[ ! -f "$cache" ]]; then
      echo "unpacking $carried_build"
      tar -xzf "$carried_build" -C "$repo"
    fi
    skip_build=1
  fi
fi
mkdir -p "$build_dir"
build="$(cd "$build_dir" && pwd)"
report="$build/report"
rm -rf "$report"
mkdir -p "$report"
results="$report/gpu_results.jsonl"
table="$report/gpu_table.txt"
summary="$report/summary.txt"
: >"$results"
jobs="$(nproc 2>/dev/null || echo 4)"
[[ -n "$ctest_jobs" ]] || ctest_jobs="$jobs"
# Per test (ctest) and per sanitized entry: a hung test must not eat the whole time budget.
test_timeout=600
[[ $quick == 1 ]] && test_timeout=180
[[ -z "$time_limit" ]] && time_limit=$((quick == 1 ? 570 : 0))
started=$SECONDS

# guarded CMD...: runs CMD, cut short (exit 124) where the time limit would pass; 15 s are kept
# back for the summary.
guarded() {
  if ((time_limit <= 0)); then
    "$@"
    return
  fi
  local left=$((time_limit - (SECONDS - started) - 15))
  if ((left <= 0)); then
    echo "(not started: the time limit of $time_limit s is reached)"
    return 124
  fi
  timeout -k 5 "$left" "$@"
}
# cut_note RC: a note for a command that guarded cut short.
cut_note() {
  if [[ "$1" == 124 ]]; then echo "cut short by the time limit; "; fi
}
# True (with the step marked FAIL: the check is incomplete) when no time is left for the step.
out_of_time() {
  if ((time_limit > 0 && SECONDS - started >= time_limit - 20)); then
    end "$1" FAIL "not run: the time limit of $time_limit s is reached"
    return 0
  fi
  return 1
}

# ---- Step bookkeeping ---------------------------------------------------------------------------
step_names=()
step_status=()
step_notes=()
step_secs=()
step_start=0
failed=0

begin() {
  step_start=$SECONDS
  echo
  echo "=== $1 ($(date -u +%H:%M:%S))"
}
# end NAME PASS|FAIL|SKIP NOTE
end() {
  step_names+=("$1")
  step_status+=("$2")
  step_notes+=("$3")
  step_secs+=($((SECONDS - step_start)))
  [[ "$2" == FAIL ]] && failed=1
  echo "--- $1: $2${3:+ ($3)}"
  publish
}
# Shows the end of a log (on failure).
show_tail() {
  echo "    ... last ${2:-40} lines of $1:"
  tail -n "${2:-40}" "$1" | sed 's/^/    /'
}

write_summary() {
  {
    echo "eagle GPU check: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')" \
         "$(git -C "$repo" status --porcelain 2>/dev/null | grep -q . && echo '(local changes)')"
    echo "host: $(uname -n), $jobs cores; GPU: ${gpu_desc:-none found}; options:" \
         "quick=$quick skip_sanitizer=$skip_sanitizer skip_bench=$skip_bench" \
         "skip_ctest=$skip_ctest gpu_only=$gpu_only skip_training=$skip_training" \
         "time_limit=$time_limit"
    echo
    printf '%-22s %-5s %6s  %s\n' step result secs note
    local i
    for i in "${!step_names[@]}"; do
      printf '%-22s %-5s %6s  %s\n' "${step_names[$i]}" "${step_status[$i]}" "${step_secs[$i]}" \
             "${step_notes[$i]}"
    done
    echo
    echo "total $((SECONDS - started)) s; overall: $([[ $failed == 0 ]] && echo PASS || echo FAIL)"
  } >"$summary"
}

# Keeps $OUT current after every step, so a run cut short still returns what it has: at most 8
# files come back from there, so the logs travel as one archive.
publish() {
  write_summary
  [[ -n "${OUT:-}" ]] || return 0
  mkdir -p "$OUT"
  cp "$summary" "$OUT/summary.txt"
  [[ -s "$results" ]] && cp "$results" "$OUT/gpu_results.jsonl"
  [[ -s "$table" ]] && cp "$table" "$OUT/gpu_table.txt"
  [[ -s "$report/gpu_plot.png" ]] && cp "$report/gpu_plot.png" "$OUT/gpu_plot.png"
  tar -czf "$OUT/logs.tar.gz" -C "$build" report 2>/dev/null || true
}

# ---- (a) nvcc and the GPU ---------------------------------------------------------------------
begin "a: toolkit and GPU"
nvcc=""
if command -v nvcc >/dev/null 2>&1; then
  nvcc="$(command -v nvcc)"
elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
[[ -d /usr/local/cuda/bin ]] && export PATH="$PATH:/usr/local/cuda/bin"
gpu_desc=""
archs=""
note=""
status=PASS
if [[ -n "$nvcc" ]]; then
  echo "nvcc: $nvcc ($("$nvcc" --version | grep -o 'release [0-9.]*' | head -1))"
else
  echo "nvcc: not found (PATH, /usr/local/cuda/bin)"
  status=FAIL
  note="no nvcc"
fi
if command -v nvidia-smi >/dev/null 2>&1 &&
   smi="$(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total \
            --format=csv,noheader 2>&1)" &&
   [[ -n "$smi" ]]; then
  while IFS= read -r line; do echo "GPU: $line"; done <<<"$smi"
  gpu_desc="$(echo "$smi" | head -1 | awk -F", *" '{print $1 " cc " $2 ", driver " $3 ", " $4}')"
  archs="$(echo "$smi" | cut -d, -f2 | tr -d ' .' | sort -u | paste -sd';')"
  ngpus="$(echo "$smi" | wc -l)"
  ((ngpus > 1)) && gpu_desc="$gpu_desc (+$((ngpus - 1)) more)"
else
  echo "nvidia-smi: no GPU found (${smi:-nvidia-smi not on PATH})"
  # --build-only needs none (with --cuda-arch).
  [[ $build_only == 1 && -n "$cuda_arch" ]] || status=FAIL
  note="${note:+$note; }no GPU"
fi
if [[ -n "$cuda_arch" ]]; then
  archs="$cuda_arch"
elif [[ ! "$archs" =~ ^[0-9]+(\;[0-9]+)*$ ]]; then
  [[ -n "$archs" ]] && echo "unexpected compute capability '$archs'; building for 90"
  archs=90
fi
echo "CMAKE_CUDA_ARCHITECTURES=$archs"
echo "compiler: $(c++ --version 2>/dev/null | head -1); $(ldd --version 2>/dev/null | head -1)"
end "a: toolkit and GPU" "$status" "${note:-arch $archs}"

# ---- (b) dependencies ---------------------------------------------------------------------------
begin "b: dependencies"
status=PASS
note=""
cmake_args=()
# The Python peers run with the machine's own library path: .deps' libgfortran and OpenBLAS are
# for eagle's programs only.
peer_env=(env)
if [[ -n "${LD_LIBRARY_PATH+set}" ]]; then
  peer_env+=("LD_LIBRARY_PATH=$LD_LIBRARY_PATH")
else
  peer_env+=(-u LD_LIBRARY_PATH)
fi
# scripts/fetch_deps.sh --pack's archive travels compressed; unpack it once.
if [[ ! -f "$repo/.deps/env.sh" && -f "$repo/.deps.tar.gz" ]]; then
  echo "unpacking $repo/.deps.tar.gz"
  tar -xzf "$repo/.deps.tar.gz" -C "$repo" || status=FAIL
fi
# Fashion-MNIST for the training runs: the packed copy, else Debian's (the samples' default).
if [[ -z "${EAGLE_DATA_DIR:-}" && -f "$repo/.deps/data/fashion-mnist/train-images-idx3-ubyte.gz" ]]
then
  export EAGLE_DATA_DIR="$repo/.deps/data"  # it holds fashion-mnist/ (docs/guide.md)
  echo "EAGLE_DATA_DIR=$EAGLE_DATA_DIR"
fi
if [[ -f "$repo/.deps/env.sh" ]]; then
  # shellcheck source=/dev/null
  source "$repo/.deps/env.sh"
  cmake_args+=("-DCMAKE_PREFIX_PATH=$repo/.deps/usr")
  note="from .deps ($(du -sh "$repo/.deps" | cut -f1))"
  echo "using $repo/.deps: CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  sed -n '1p;$p' "$repo/.deps/MANIFEST" 2>/dev/null
  need="$(grep -o 'GLIBC_[0-9.]*' "$repo/.deps/MANIFEST" 2>/dev/null | head -1 | cut -d_ -f2)"
  have="$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9]\+\.[0-9]\+$')"
  if [[ -n "$need" && -n "$have" ]] &&
     [[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]]; then
    echo "WARNING: .deps needs glibc $need, this machine has $have"
    status=FAIL
    note="$note; glibc $have < $need"
  fi
  if [[ ! -e "$repo/.deps/usr/lib/x86_64-linux-gnu/libopenblas.so" ]]; then
    echo ".deps has no libopenblas.so (symbolic links lost on the way?); run scripts/fetch_deps.sh"
    status=FAIL
    note="$note; .deps incomplete"
  fi
else
  note="system packages (no .deps/)"
  echo "no .deps/: using the system's packages (scripts/install_deps.sh)"
fi
# The toolkit's own library folders, before the wheels': a build made elsewhere (Note [A carried
# build]) looks for libcudart, and its dlopen fallbacks, where that machine's toolkit had them.
cuda_home="$(dirname "${nvcc:-/usr/local/cuda/bin/nvcc}")/.."
for dir in "$cuda_home/lib64" "$cuda_home/lib"; do
  [[ -n "$(compgen -G "$dir/libcudart.so*")" ]] &&
    export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(cd "$dir" && pwd)"
done
# cuDNN, NCCL and cuBLAS where an image has them only as NVIDIA's Python wheels (PyTorch's): their
# lib/ folders go last on the library path (eagle dlopens them by soname), and the wheel's cuDNN
# headers serve the build when the toolkit has none.
nvidia_py="$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null)"
if [[ -n "$nvidia_py" ]]; then
  # cu13: the CUDA 13 wheels' shared folder (cuBLAS, the runtime); the rest one folder each.
  for pkg in cudnn nccl cublas cu13 cuda_runtime; do
    if [[ -d "$nvidia_py/$pkg/lib" ]]; then
      export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$nvidia_py/$pkg/lib"
    fi
  done
  cuda_include="$(dirname "${nvcc:-/usr/local/cuda/bin/nvcc}")/../include"
  if [[ ! -f "$cuda_include/cudnn_version.h" && -f "$nvidia_py/cudnn/include/cudnn_version.h" ]]
  then
    cmake_args+=("-DEAGLE_CUDNN_ROOT=$nvidia_py/cudnn")
    echo "cuDNN's headers from $nvidia_py/cudnn (the toolkit has none)"
  fi
  echo "NVIDIA wheels: $nvidia_py; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi
cmake_version="$(cmake --version 2>/dev/null | head -1 | grep -o '[0-9][0-9.]*')"
echo "cmake: ${cmake_version:-not found}"
if [[ -z "$cmake_version" ]] ||
   [[ "$(printf '%s\n%s\n' 3.25 "$cmake_version" | sort -V | head -1)" != 3.25 ]]; then
  status=FAIL
  note="$note; CMake >= 3.25 needed (have ${cmake_version:-none})"
fi
generator="Unix Makefiles"
if ninja --version >/dev/null 2>&1; then
  generator=Ninja
  echo "ninja: $(command -v ninja) $(ninja --version)"
fi
# A build folder made with another generator cannot be reused.
if [[ -f "$build/CMakeCache.txt" ]] &&
   ! grep -q "^CMAKE_GENERATOR:INTERNAL=$generator\$" "$build/CMakeCache.txt"; then
  echo "removing $build/CMakeCache.txt (made with another generator)"
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi
end "b: dependencies" "$status" "$note; $generator"

# ---- (c) configure and build ------------------------------------------------------------------
begin "c: configure"
built=0
configured=0
cmake_args+=(-G "$generator" -DCMAKE_BUILD_TYPE=Release -DEAGLE_CUDA=ON -DEAGLE_BENCH=ON
             -DEAGLE_TESTS=ON "-DCMAKE_CUDA_ARCHITECTURES=$archs")
[[ -n "$nvcc" ]] && cmake_args+=("-DCMAKE_CUDA_COMPILER=$nvcc")
# A carried build runs without oneDNN, HDF5 and MPI: .deps/ has none of them (Note [A carried
# build]).
[[ $pack_build == 1 ]] && cmake_args+=(-DEAGLE_ONEDNN=OFF -DEAGLE_HDF5=OFF -DEAGLE_MPI=OFF)
if [[ $skip_build == 1 && -f "$build/CMakeCache.txt" ]]; then
  # Configuring again could only differ from the build it reuses (another CMake, another path).
  configured=1
  end "c: configure" SKIP "--skip-build: $(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' \
                                             "$build/CMakeCache.txt") as configured"
elif echo "cmake -S . -B $build ${cmake_args[*]}" &&
     cmake -S "$repo" -B "$build" "${cmake_args[@]}" >"$report/configure.log" 2>&1; then
  configured=1
  grep -E "CUDA backend|Found BLAS|CUDA compiler identification" "$report/configure.log"
  # Where each dependency came from.
  grep -E '^(fmt|xtl|xtensor|Catch2)_DIR|^(BLAS_openblas_LIBRARY|EAGLE_CBLAS_INCLUDE_DIR)' \
    "$build/CMakeCache.txt" | sed 's/^/    /'
  end "c: configure" PASS ""
else
  show_tail "$report/configure.log" 40
  end "c: configure" FAIL "see configure.log"
fi

begin "c: build"
# --gpu-only: what steps d to g run, not the CPU suite.
build_targets=()
if [[ $gpu_only == 1 ]]; then
  build_targets=(--target eagle backend_ops_test cuda_runtime_test cuda_nccl_test cuda_smoke_test
                 log_device_placement manual_placement soft_placement memory_growth memory_limit
                 visible_devices virtual_gpus multi_gpu_towers tour linear_regression
                 custom_training_loop keras_mlp fashion_mnist_cnn multi_gpu_towers_training
                 sync_vs_async bench_gpu_ops bench_cnn_step)
  # Built where MPI was found (its sample test is registered either way).
  if cmake --build "$build" --target help 2>/dev/null | grep -q 'multi_worker_training'; then
    build_targets+=(multi_worker_training)
  fi
fi
if [[ $skip_build == 1 && $configured == 1 && -f "$build/bench/bench_gpu_ops" ]]; then
  built=1
  end "c: build" SKIP "--skip-build: the build folder as it is"
elif [[ $configured == 1 ]]; then
  if guarded cmake --build "$build" -j "$jobs" "${build_targets[@]}" >"$report/build.log" 2>&1
  then
    built=1
    warnings="$(grep -c 'warning:' "$report/build.log")"
    end "c: build" PASS "$jobs jobs; $warnings warning lines"
  else
    grep -E 'error|FAILED' "$report/build.log" | head -40 | sed 's/^/    /'
    show_tail "$report/build.log" 30
    end "c: build" FAIL "see build.log"
  fi
else
  end "c: build" SKIP "not configured"
fi

# Note [A carried build]: the build folder without what only a rebuild reads (object files,
# CMake's own files), from the checkout's root so it unpacks into build/gpu there.
if [[ $pack_build == 1 ]]; then
  begin "c: pack"
  if [[ $built == 1 && "$build" == "$repo/build/gpu" ]]; then
    tar -czf "$repo/.gpu-build.tar.gz" -C "$repo" --exclude='*.o' --exclude=CMakeFiles \
      --exclude=report --exclude='*.ninja' --exclude=.ninja_log --exclude=.ninja_deps build/gpu
    end "c: pack" PASS "$(du -h "$repo/.gpu-build.tar.gz" | cut -f1) in .gpu-build.tar.gz"
  else
    end "c: pack" FAIL "needs a successful build in build/gpu"
  fi
fi
if [[ $build_only == 1 ]]; then
  write_summary
  publish
  cat "$summary"
  exit "$failed"
fi

# ---- (d) ctest ----------------------------------------------------------------------------------
# Counts from a ctest JUnit file: "P passed, F failed, N not run, of T".
junit_counts() {
  python3 - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except Exception as e:  # no file: ctest did not get that far
    print(f"no results ({type(e).__name__})")
    sys.exit(0)
p = f = n = 0
for c in cases:
    status = c.get("status", "")
    if c.find("failure") is not None or c.find("error") is not None or status == "fail":
        f += 1
    elif c.find("skipped") is not None or status in ("notrun", "disabled"):
        n += 1
    else:
        p += 1
print(f"{p} passed, {f} failed, {n} not run, of {p + f + n}")
EOF
}

# ctest_step NAME LOG XML NOTE_REGEX ARGS...: one ctest run with ARGS; the lines of its log
# matching NOTE_REGEX shown; PASS when ctest passes.
ctest_step() {
  local name="$1" log="$2" xml="$3" shown="$4"
  shift 4
  (cd "$build" && guarded ctest --output-on-failure --timeout "$test_timeout" \
     --output-junit "$xml" "$@") >"$log" 2>&1
  local rc=$?
  local counts
  counts="$(junit_counts "$xml")"
  grep -E "$shown" "$log" | sed 's/^/    /' | head -60
  if [[ $rc == 0 ]]; then
    end "$name" PASS "$counts"
  else
    end "$name" FAIL "$(cut_note $rc)$counts"
  fi
}
failures='tests passed|tests failed|\(Failed\)|\(Timeout\)|\(Subprocess|\(Not Run\)'

begin "d: ctest (all)"
if [[ $skip_ctest == 1 ]]; then
  end "d: ctest (all)" SKIP "--skip-ctest"
elif [[ $gpu_only == 1 ]]; then
  end "d: ctest (all)" SKIP "--gpu-only"
elif out_of_time "d: ctest (all)"; then
  :
elif [[ $built == 1 ]]; then
  ctest_step "d: ctest (all)" "$report/ctest_all.log" "$report/ctest_all.xml" \
    "$failures|\(Skipped\)" -j "$ctest_jobs"
else
  end "d: ctest (all)" SKIP "not built"
fi

# --quick: backend_ops_test's CUDA cases run in one process (as the memcheck step runs them), not
# one process each: each process pays for CUDA's context and cuBLAS's and cuDNN's handles, about
# a second, and there are some 140 cases.
# With one GPU, the case that needs two physical GPUs is left out (it would report "Not Run").
gpu_excluded=()
((${ngpus:-0} < 2)) && gpu_excluded+=('cuda_nccl_test: ?two GPUs:')
[[ $quick == 1 ]] && gpu_excluded+=('^backend_ops_test_cuda:[^ ]')
gpu_ctest_args=()
if ((${#gpu_excluded[@]} > 0)); then
  gpu_ctest_args=(-E "$(IFS='|'; echo "${gpu_excluded[*]}")")
fi
if [[ $quick == 1 ]]; then
  begin "d: backend_ops_test (gpu)"
  if [[ $skip_ctest == 1 ]]; then
    end "d: backend_ops_test (gpu)" SKIP "--skip-ctest"
  elif out_of_time "d: backend_ops_test (gpu)"; then
    :
  elif [[ $built == 1 ]]; then
    (cd "$build/tests" && guarded env -u EAGLE_SIMULATED_GPUS ./backend_ops_test --warn NoTests \
       --require-cuda --reporter junit --out "$report/backend_ops_gpu.xml") \
      >"$report/backend_ops_gpu.log" 2>&1
    rc=$?
    counts="$(junit_counts "$report/backend_ops_gpu.xml")"
    sed 's/^/    /' "$report/backend_ops_gpu.log" | tail -20
    # The failed sections with the start of their messages, and the slowest cases.
    python3 - "$report/backend_ops_gpu.xml" <<'EOF' | sed 's/^/    /' | head -80
import sys
import xml.etree.ElementTree as ET
try:
    cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
except Exception:
    sys.exit(0)
for c in cases:
    for f in list(c.iter("failure")) + list(c.iter("error")):
        text = " ".join((f.get("message", "") + " " + (f.text or "")).split())
        print(f"FAILED {c.get('name')}: {text[:400]}")
slowest = sorted(cases, key=lambda c: -float(c.get("time", "0")))[:5]
print("slowest: " + "; ".join(f"{c.get('name')[:60]} {float(c.get('time')):.2f} s"
                             for c in slowest))
EOF
    if [[ $rc == 0 ]]; then
      end "d: backend_ops_test (gpu)" PASS "sections: $counts"
    else
      end "d: backend_ops_test (gpu)" FAIL "$(cut_note $rc)exit $rc; sections: $counts"
    fi
  else
    end "d: backend_ops_test (gpu)" SKIP "not built"
  fi
fi

begin "d: ctest -L gpu"
if [[ $skip_ctest == 1 ]]; then
  end "d: ctest -L gpu" SKIP "--skip-ctest"
elif out_of_time "d: ctest -L gpu"; then
  :
elif [[ $built == 1 ]]; then
  (cd "$build" && guarded ctest -L gpu "${gpu_ctest_args[@]}" --output-on-failure \
     --timeout "$test_timeout" --output-junit "$report/ctest_gpu.xml") >"$report/ctest_gpu.log" 2>&1
  rc=$?
  counts="$(junit_counts "$report/ctest_gpu.xml")"
  sed 's/^/    /' "$report/ctest_gpu.log" | tail -40
  # With a GPU present, a gpu entry that is "not run" (exit 77: no GPU seen) is a failure too.
  if [[ $rc == 0 && "$counts" =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ 0\ not\ run ]]; then
    end "d: ctest -L gpu" PASS "$counts${gpu_ctest_args[1]:+; left out: ${gpu_ctest_args[1]}}"
  else
    end "d: ctest -L gpu" FAIL "$(cut_note $rc)$counts"
  fi
else
  end "d: ctest -L gpu" SKIP "not built"
fi

begin "d: ctest -L sample"
if [[ $skip_ctest == 1 ]]; then
  end "d: ctest -L sample" SKIP "--skip-ctest"
elif out_of_time "d: ctest -L sample"; then
  :
elif [[ $built == 1 ]]; then
  # The samples take the real GPU here (those that pin simulated GPUs keep them).
  # Without HDF5 (a carried build) the CNN sample's entries cannot save what they trained: they are
  # left out here, and step g trains the same model without saving.
  sample_args=(-L sample -j "$ctest_jobs")
  if grep -q '^EAGLE_HDF5:BOOL=OFF' "$build/CMakeCache.txt"; then
    sample_args+=(-E '^sample_fashion_mnist_cnn')
    echo "    EAGLE_HDF5=OFF: sample_fashion_mnist_cnn* left out (they save .h5 and .keras files)"
  fi
  ctest_step "d: ctest -L sample" "$report/ctest_sample.log" "$report/ctest_sample.xml" \
    "$failures" "${sample_args[@]}"
else
  end "d: ctest -L sample" SKIP "not built"
fi

# ---- (g) training on the GPU ------------------------------------------------------------------
# train NAME LOG ARGS...: the seed CNN sample with ARGS; its epochs, timings and accuracy shown.
train() {
  local name="$1" log="$2"
  shift 2
  begin "g: $name"
  if [[ $skip_training == 1 ]]; then
    end "g: $name" SKIP "--skip-training"
    return
  fi
  if [[ $built != 1 ]]; then
    end "g: $name" SKIP "not built"
    return
  fi
  out_of_time "g: $name" && return
  # At most 240 s a run: a slow GPU path must leave time for the sanitizers.
  guarded timeout -k 5 240 "$build/samples/fashion_mnist_cnn" --save "" --seed 1 "$@" >"$log" 2>&1
  local rc=$?
  # Keras's bar rewrites its line with \r; the last state of each line is what a terminal shows.
  sed 's/.*\r//' "$log" | grep -E 'Epoch|/step|Test|Fashion|Mirrored|replica|Error|error' |
    sed 's/^/    /' | tail -30
  local acc
  acc="$(grep -o 'test accuracy: [0-9.]*' "$log" | tail -1)"
  if [[ $rc == 0 ]]; then
    end "g: $name" PASS "${acc:-no accuracy printed}"
  else
    end "g: $name" FAIL "$(cut_note $rc)exit $rc; ${acc:-no accuracy printed}"
  fi
}
train "seed CNN on GPU:0" "$report/train_gpu0.log" --device /GPU:0 --epochs 5 --min-accuracy 0.88
train "seed 003 mirrored" "$report/train_seed003.log" --virtual-gpus 2 --strategy mirrored \
  --epochs 1 --min-accuracy 0.80

# ---- (f) benchmarks -----------------------------------------------------------------------------
bench_args=()
[[ $quick == 1 ]] && bench_args+=(--quick)
export PYTHONUNBUFFERED=1
# run_bench NAME LOG CMD...: JSON lines to the results file, the rest of the output to the log.
run_bench() {
  local name="$1" log="$2"
  shift 2
  begin "f: bench $name"
  out_of_time "f: bench $name" && return
  guarded "$@" >"$log" 2>&1
  local rc=$?
  local lines
  lines="$(grep -c '^{' "$log")"
  grep '^{' "$log" >>"$results"
  grep -v '^{' "$log" | sed 's/^/    /' | tail -40
  if [[ $rc != 0 ]]; then
    end "f: bench $name" FAIL "$(cut_note $rc)exit $rc, $lines results"
  elif [[ $lines == 0 ]]; then
    end "f: bench $name" SKIP "no results: $(grep -m1 '^#' "$log" | cut -c1-100)"
  else
    end "f: bench $name" PASS "$lines results"
  fi
}
if [[ $skip_bench == 1 ]]; then
  begin "f: benchmarks"
  end "f: benchmarks" SKIP "--skip-bench"
else
  if [[ $built == 1 ]]; then
    run_bench eagle "$report/bench_eagle.log" "$build/bench/bench_gpu_ops" "${bench_args[@]}"
  else
    begin "f: bench eagle"
    end "f: bench eagle" SKIP "not built"
  fi
  if [[ $built == 1 ]]; then
    run_bench "eagle cnn_step" "$report/bench_eagle_cnn.log" "$build/bench/bench_cnn_step" \
      --device /GPU:0 "${bench_args[@]}"
    # The same with cuDNN's algorithms measured, not chosen by heuristics (Note [cuDNN
    # convolutions]): its rows are cnn_step_autotune.
    run_bench "eagle cnn_step autotune" "$report/bench_eagle_cnn_autotune.log" \
      env EAGLE_CUDNN_AUTOTUNE=1 "$build/bench/bench_cnn_step" --device /GPU:0 "${bench_args[@]}"
    # And with cuDNN in NCHW, as TensorFlow runs float32 convolutions on a GPU (Note [cuDNN
    # convolutions]): its rows are cnn_step_nchw, beside PyTorch's NCHW and channels_last rows.
    run_bench "eagle cnn_step nchw" "$report/bench_eagle_cnn_nchw.log" \
      env EAGLE_CUDNN_LAYOUT=nchw "$build/bench/bench_cnn_step" --device /GPU:0 "${bench_args[@]}"
  fi
  run_bench "torch cnn_step" "$report/bench_torch_cnn.log" "${peer_env[@]}" \
    python3 "$repo/bench/cnn_step_torch.py" "${bench_args[@]}"
  if [[ $built == 1 && $profile == 1 ]]; then
    begin "f: kernel times"
    if ! out_of_time "f: kernel times"; then
      guarded python3 "$repo/scripts/gpu_kernel_times.py" -- "$build/bench/bench_cnn_step" \
        --device /GPU:0 --filter cnn_step/128 --reps 2 --warmup 1 >"$report/kernel_times.log" 2>&1
      rc=$?
      sed 's/^/    /' "$report/kernel_times.log" | head -25
      if [[ $rc == 0 ]]; then
        end "f: kernel times" PASS "$(head -1 "$report/kernel_times.log")"
      else
        end "f: kernel times" FAIL "$(cut_note $rc)exit $rc"
      fi
    fi
  fi
  # The peers do not need eagle's build.
  for impl in torch cupy; do
    run_bench "$impl" "$report/bench_$impl.log" "${peer_env[@]}" \
      python3 "$repo/bench/gpu_peers.py" \
      --impl "$impl" "${bench_args[@]}"
  done
  begin "f: table"
  if python3 "$repo/bench/gpu_table.py" "$results" >"$table" 2>&1; then
    # The picture beside it, where matplotlib is installed.
    python3 "$repo/bench/gpu_plot.py" "$results" "$report/gpu_plot.png" >/dev/null 2>&1 || true
    end "f: table" PASS "$(grep -c '' "$results") results"
  else
    cat "$table"
    end "f: table" FAIL "no results"
  fi
fi

# ---- (e) compute-sanitizer ---------------------------------------------------------------------
# Last: the slowest step, and the one whose length is least known (a leased machine's time limit
# cuts it rather than the benchmarks).
# The backend_ops_test cases whose CUDA kernels use shared memory (grep __shared__ src/backends/cuda/; Cumsum
# through CUB's scan), for racecheck.
racecheck_cases="Sum on*,Mean on*,Max on*,Min on*,Prod on*,Any on*,All on*,ArgMax on*,ArgMin on*"
racecheck_cases+=",Softmax on*,LogSoftmax on*,BiasAddGrad on*,FusedBatchNormV3 on*"
racecheck_cases+=",FusedBatchNormGradV3 on*,L2Loss on*,SoftmaxCrossEntropyWithLogits on*"
racecheck_cases+=",SparseSoftmaxCrossEntropyWithLogits on*,TopKV2 on*,Transpose on*,Cumsum on*"
for tool in $sanitizers; do
  begin "e: $tool"
  if [[ $skip_sanitizer == 1 ]]; then
    end "e: $tool" SKIP "--skip-sanitizer"
    continue
  fi
  if [[ $built != 1 ]]; then
    end "e: $tool" SKIP "not built"
    continue
  fi
  out_of_time "e: $tool" && continue
  # (Twice a test's timeout: the whole program runs as one entry, instrumented.)
  # memcheck: every case of backend_ops_test in one process, CUDA calls' error returns not
  # reported (gpu_sanitize.py --no-api-errors says why); racecheck: the cases of the ops whose
  # kernels share memory between threads (__shared__, and CUB's scan), checked for hazards.
  sanitize_args=(--whole-binary backend_ops_test)
  if [[ $tool == memcheck ]]; then
    sanitize_args+=(--no-api-errors)
  else
    sanitize_args+=(--whole-binary-filter "$racecheck_cases")
  fi
  guarded python3 "$repo/scripts/gpu_sanitize.py" --build "$build" --tool "$tool" --label gpu \
    "${sanitize_args[@]}" --timeout "$((test_timeout * 2))" >"$report/sanitizer_$tool.log" 2>&1
  rc=$?
  sed 's/^/    /' "$report/sanitizer_$tool.log" | tail -40
  counts="$(grep -o '[0-9]* passed, [0-9]* failed, [0-9]* not run, of [0-9]*' \
            "$report/sanitizer_$tool.log" | tail -1)"
  case $rc in
    0)
      # Run on a GPU machine, an entry that did not run (exit 77: no GPU seen) checked nothing.
      if [[ "$counts" =~ ^0\ passed ]]; then
        end "e: $tool" FAIL "nothing ran under the sanitizer: $counts"
      else
        end "e: $tool" PASS "$counts"
      fi
      ;;
    3) end "e: $tool" FAIL "compute-sanitizer does not support this machine (gVisor?)" ;;
    *) end "e: $tool" FAIL "$(cut_note $rc)${counts:-see sanitizer_$tool.log}" ;;
  esac
done

# ---- (g) report ---------------------------------------------------------------------------------
write_summary
publish
echo
if [[ -s "$table" ]]; then
  cat "$table"
  echo
fi
cat "$summary"
echo "report: ${OUT:+$OUT (summary.txt, gpu_results.jsonl, gpu_table.txt, logs.tar.gz) and }$report"
exit "$failed"
