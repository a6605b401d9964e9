#!/usr/bin/env bash
# Installs the Debian packages eagle builds with, when any is missing. Safe to run repeatedly.
set -euo pipefail

packages=(cmake g++ ninja-build libxtensor-dev xtl-dev libxsimd-dev libopenblas-dev libfmt-dev
          catch2 libbenchmark-dev
          libdnnl-dev libhdf5-dev dataset-fashion-mnist zlib1g-dev
          libopenmpi-dev openmpi-bin
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler)
if [[ "${1:-}" == "--fuzz" ]]; then packages+=(clang libclang-rt-dev); fi
packages+=(valgrind qemu-user)  # the deterministic checks of scripts/test.sh
packages+=(python3)  # tests/tools/doc_blocks.py: the docs' C++ blocks become tests

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "eagle: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
