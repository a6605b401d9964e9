# Every dependency comes from a Debian package through find_package (docs/design.md says why
# each one is here). scripts/install_deps.sh installs them.
find_package(fmt 9 REQUIRED CONFIG)
find_package(xtl REQUIRED CONFIG)
find_package(xtensor REQUIRED CONFIG)
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(EAGLE_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas REQUIRED)
find_package(Threads REQUIRED)
# eagle::data reads gzipped IDX files (Fashion-MNIST) through zlib.
find_package(ZLIB REQUIRED)
# Keras .weights.h5 files (eagle::io) need HDF5's C library; without it the build still works and
# saving or loading weights raises UnimplementedError (docs/design.md, "Dependencies and why").
# FindHDF5 test-compiles a C file, so the C language is enabled first (the library stays C++).
if(NOT DEFINED EAGLE_HDF5 OR EAGLE_HDF5)
  enable_language(C)
  find_package(HDF5 COMPONENTS C QUIET)
endif()
option(EAGLE_HDF5 "Read and write Keras .weights.h5 files through HDF5's C library" ${HDF5_FOUND})
if(EAGLE_HDF5 AND NOT HDF5_FOUND)
  message(FATAL_ERROR "EAGLE_HDF5=ON but HDF5's C library was not found (Debian: libhdf5-dev)")
endif()

# oneDNN (Debian libdnnl-dev), optional: the float32 convolution, pooling and batch norm kernels.
# Debian's dnnl-config.cmake requires OpenCL's headers (its GPU runtime is OpenCL), which a CPU
# build has no use for, so the library and its header are found directly.
find_library(EAGLE_DNNL_LIBRARY NAMES dnnl)
find_path(EAGLE_DNNL_INCLUDE_DIR dnnl.hpp)
if(EAGLE_DNNL_LIBRARY AND EAGLE_DNNL_INCLUDE_DIR)
  set(eagle_dnnl_found ON)
else()
  set(eagle_dnnl_found OFF)
endif()
option(EAGLE_ONEDNN
       "Use oneDNN for the CPU convolutions, pooling and batch norm (when libdnnl is found)"
       ${eagle_dnnl_found})
set(EAGLE_ONEDNN_ENABLED OFF)
if(EAGLE_ONEDNN)
  if(NOT eagle_dnnl_found)
    message(FATAL_ERROR "EAGLE_ONEDNN=ON but oneDNN (libdnnl-dev) was not found")
  endif()
  set(EAGLE_ONEDNN_ENABLED ON)
endif()

# MPI (Debian libopenmpi-dev, openmpi-bin), optional: the process group and the cross-process
# collectives of MultiWorkerMirroredStrategy (docs/design.md, "Dependencies and why"). Without it
# the build still works and the strategy's constructor raises UnimplementedError.
if(NOT DEFINED EAGLE_MPI OR EAGLE_MPI)
  enable_language(C)
  find_package(MPI COMPONENTS C QUIET)
endif()
option(EAGLE_MPI "Run MultiWorkerMirroredStrategy across processes over MPI (when MPI is found)"
       ${MPI_C_FOUND})
if(EAGLE_MPI AND NOT MPI_C_FOUND)
  message(FATAL_ERROR "EAGLE_MPI=ON but MPI's C library was not found (Debian: libopenmpi-dev)")
endif()
# The environment of the tests and samples launched with mpiexec: Open MPI's out-of-band and TCP
# traffic on the loopback interface only, never the machine's other addresses.
set(EAGLE_MPI_LOOPBACK_ENV "OMPI_MCA_oob_tcp_if_include=lo;OMPI_MCA_btl_tcp_if_include=lo")

# gRPC and protobuf (Debian libgrpc++-dev, protobuf-compiler-grpc, libprotobuf-dev), optional:
# the cluster runtime (eagle::distribute::Server, remote devices; docs/design.md, "Dependencies
# and why"). Without them the build still works and a Server's constructor raises
# UnimplementedError.
if(NOT DEFINED EAGLE_GRPC OR EAGLE_GRPC)
  find_package(Protobuf QUIET)
  find_package(gRPC CONFIG QUIET)
endif()
if(Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE AND gRPC_FOUND AND TARGET gRPC::grpc_cpp_plugin)
  set(eagle_grpc_found ON)
else()
  set(eagle_grpc_found OFF)
endif()
option(EAGLE_GRPC "Run clusters of tasks (servers, remote devices) over gRPC (when found)"
       ${eagle_grpc_found})
if(EAGLE_GRPC AND NOT eagle_grpc_found)
  message(FATAL_ERROR "EAGLE_GRPC=ON but gRPC or protobuf was not found (Debian: libgrpc++-dev, "
                      "protobuf-compiler-grpc, libprotobuf-dev, protobuf-compiler)")
endif()
