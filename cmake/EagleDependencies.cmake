# Every dependency comes from a Debian package through find_package (docs/design.md says why
# each one is here). scripts/install_deps.sh installs them.
find_package(fmt 9 REQUIRED CONFIG)
find_package(xtl REQUIRED CONFIG)
find_package(xtensor REQUIRED CONFIG)
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(EAGLE_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas REQUIRED)
find_package(Threads REQUIRED)
