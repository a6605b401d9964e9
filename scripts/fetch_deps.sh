#!/usr/bin/env bash
# Builds .deps/: everything eagle's build needs besides a compiler, CMake and CUDA, unpacked from
# the Debian packages scripts/install_deps.sh would install, for a machine that has no Debian
# packages and no network (the GPU machine scripts/gpu_check.sh runs on). Carry the folder over
# and use it with
#
#   source .deps/env.sh   # sets CMAKE_PREFIX_PATH, LD_LIBRARY_PATH, PATH (ninja)
#   cmake -S . -B build/x -DCMAKE_PREFIX_PATH="$PWD/.deps/usr" ...
#
# or simply run scripts/gpu_check.sh, which does that when .deps/ exists.
#
#   scripts/fetch_deps.sh [--keep-debs DIR] [--pack]
#
# --pack also writes .deps.tar.gz (what `run`'s carry takes to a GPU machine: OpenBLAS compresses
# from 36 to 12 MiB) with Fashion-MNIST's four files under data/fashion-mnist when this machine
# has them (Debian's dataset-fashion-mnist), for the GPU check's training runs. gpu_check.sh
# unpacks it when .deps/ is absent.
#
# Needs apt-get (a Debian 12 "bookworm" machine; the libraries then need glibc >= 2.34 where they
# run). Idempotent: every run rebuilds .deps/ from scratch (atomically: a failed run leaves the
# previous .deps/ in place). The result must stay under 64 MiB (checked).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$repo/.deps"
limit_mib=64
keep_debs=""
pack=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep-debs) keep_debs="$2"; shift 2 ;;
    --pack) pack=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"

# Header-only libraries with their CMake package files, and the libraries behind BLAS:
# OpenBLAS (pthread flavour) with its Fortran runtime. libopenblas-dev and libopenblas0 are empty
# meta packages; libfmt9 is needed because fmt's CMake targets file checks that libfmt.so.9
# exists (eagle itself uses fmt header-only). ninja-build is optional (gpu_check.sh falls back to
# Makefiles when the carried ninja does not run).
# zlib (the IDX reader's gzip) is in most images' /lib but its header rarely is.
packages=(libxtensor-dev xtl-dev libxsimd-dev libfmt-dev libfmt9 catch2
          libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0 ninja-build
          zlib1g zlib1g-dev)

work="$(mktemp -d "${TMPDIR:-/tmp}/eagle-deps.XXXXXX")"
trap 'rm -rf "$work"' EXIT
debs="$work/debs"
stage="$work/stage"
mkdir -p "$debs" "$stage"

download() { (cd "$debs" && apt-get download "${packages[@]}"); }
echo "fetch_deps: downloading ${packages[*]}"
if ! download >"$work/download.log" 2>&1; then
  echo "fetch_deps: apt-get download failed; running apt-get update and retrying"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  download
fi

for deb in "$debs"/*.deb; do
  dpkg -x "$deb" "$stage"
done

usr="$stage/usr"
lib="$usr/lib/$arch"
inc="$usr/include/$arch"

# Debian points the generic names (libopenblas.so, libblas.so.3, cblas.h, ...) at the chosen
# flavour through /etc/alternatives, made by the packages' postinst scripts, which dpkg -x does
# not run. Make the same names here, as relative links into the pthread flavour, so FindBLAS
# (BLA_VENDOR=OpenBLAS finds libopenblas.so), find_path(cblas.h) and the dynamic loader (with
# LD_LIBRARY_PATH=.deps/usr/lib/<arch>) find them.
for f in libopenblas.so libopenblas.so.0 libblas.so libblas.so.3; do
  [[ -e "$lib/openblas-pthread/$f" ]] || { echo "fetch_deps: missing openblas-pthread/$f" >&2; exit 1; }
  ln -sfn "openblas-pthread/$f" "$lib/$f"
done
for f in cblas.h f77blas.h openblas_config.h; do
  [[ -e "$inc/openblas-pthread/$f" ]] || { echo "fetch_deps: missing openblas-pthread/$f" >&2; exit 1; }
  ln -sfn "openblas-pthread/$f" "$inc/$f"
done

# zlib1g puts the library in /lib/<arch> and zlib1g-dev points libz.so at it by an absolute path:
# move the library beside the others and point the link at it relatively.
if [[ -d "$stage/lib/$arch" ]]; then
  mv "$stage/lib/$arch"/libz.so* "$lib/"
  rm -rf "$stage/lib"
fi
zlib_real="$(cd "$lib" && ls libz.so.1.* | head -1)"
ln -sfn "$zlib_real" "$lib/libz.so"
ln -sfn "$zlib_real" "$lib/libz.so.1"
rm -f "$lib/libz.a"

# Prune what a build never reads: documentation, manual pages, editor and shell files, lintian
# overrides, pkg-config and OpenBLAS's own CMake files (FindBLAS does not use them; they hold
# absolute /usr paths), the static OpenBLAS archives (eagle links the shared library) and
# OpenBLAS's separate liblapack.so.3 (7 MB; eagle uses no LAPACK). libCatch2WithMain.a stays:
# Catch2's CMake targets file refuses to load without it.
rm -rf "$usr/share/doc" "$usr/share/doc-base" "$usr/share/man" "$usr/share/lintian" \
       "$usr/share/Catch2" "$usr/share/vim" "$usr/share/emacs" "$usr/share/zsh" \
       "$usr/share/bash-completion" "$usr/share/pkgconfig" \
       "$lib/openblas-pthread/cmake" "$lib/openblas-pthread/pkgconfig" "$lib/pkgconfig"
find "$lib/openblas-pthread" \( -name '*.a' -o -name 'liblapack.so*' \) -delete
find "$stage" -xtype l -print -delete | sed 's/^/fetch_deps: removed dangling link /'

# Every symlink must stay inside .deps (an absolute link would point into the machine it runs on).
if bad="$(find "$stage" -type l -lname '/*')" && [[ -n "$bad" ]]; then
  echo "fetch_deps: absolute symlinks left:" >&2
  echo "$bad" >&2
  exit 1
fi

# The carried ninja is a dynamically linked Debian binary; gpu_check.sh checks it runs.
mkdir -p "$stage/bin"
[[ -x "$usr/bin/ninja" ]] && ln -sfn ../usr/bin/ninja "$stage/bin/ninja"

# env.sh: what a shell needs to build and run against .deps (paths relative to where it lies).
cat >"$stage/env.sh" <<EOF
# Source this file: eagle's dependencies from this folder (made by scripts/fetch_deps.sh).
_eagle_deps="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
export CMAKE_PREFIX_PATH="\$_eagle_deps/usr\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="\$_eagle_deps/usr/lib/$arch\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
if "\$_eagle_deps/bin/ninja" --version >/dev/null 2>&1; then
  export PATH="\$_eagle_deps/bin:\$PATH"
fi
unset _eagle_deps
EOF

# A manifest: package versions, and the newest glibc symbol the carried libraries need.
{
  # shellcheck source=/dev/null
  echo "# made by scripts/fetch_deps.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) ($(. /etc/os-release && echo "$PRETTY_NAME"))"
  for deb in "$debs"/*.deb; do
    dpkg-deb -f "$deb" Package Version | paste -sd' '
  done
  glibc="$(find "$lib" -name '*.so*' -type f -exec objdump -T {} + 2>/dev/null |
           grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
  echo "# needs ${glibc:-GLIBC_?} or newer at run time"
} >"$stage/MANIFEST"

if [[ -n "$keep_debs" ]]; then
  mkdir -p "$keep_debs"
  cp "$debs"/*.deb "$keep_debs"/
fi

rm -rf "$dest.old"
[[ -e "$dest" ]] && mv "$dest" "$dest.old"
mv "$stage" "$dest"
rm -rf "$dest.old"

size_kib="$(du -sk "$dest" | cut -f1)"
size_mib="$(awk -v k="$size_kib" 'BEGIN { printf "%.1f", k / 1024 }')"
echo "fetch_deps: $dest is $size_mib MiB ($(find "$dest" -type f | wc -l) files)"
cat "$dest/MANIFEST"
if ((size_kib > limit_mib * 1024)); then
  echo "fetch_deps: over the $limit_mib MiB limit" >&2
  exit 1
fi

if [[ $pack == 1 ]]; then
  data_src=/usr/share/datasets/fashion-mnist
  data_stage="$work/data"
  with_data=""
  if [[ -f "$data_src/train-images-idx3-ubyte.gz" ]]; then
    mkdir -p "$data_stage/data/fashion-mnist"
    cp "$data_src"/*-ubyte.gz "$data_stage/data/fashion-mnist/"
    with_data=" with $data_src"
  fi
  # data/ goes inside .deps/ in the archive: gpu_check.sh finds it at .deps/data/fashion-mnist.
  tar -czf "$repo/.deps.tar.gz" -C "$repo" .deps \
    ${with_data:+--transform 's,^data,.deps/data,' -C "$data_stage" data}
  echo "fetch_deps: $repo/.deps.tar.gz$with_data: $(du -sh "$repo/.deps.tar.gz" | cut -f1)"
fi
