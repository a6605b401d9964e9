// A build without MPI (EAGLE_MPI=OFF): MultiWorkerMirroredStrategy cannot find its processes.
#include "distribute/worker_group.hpp"

#include "eagle/errors.hpp"

namespace eagle::distribute::detail {

std::shared_ptr<WorkerGroup> connect_worker_group() {
  throw UnimplementedError(
      "MultiWorkerMirroredStrategy needs MPI, and this eagle was built without it (EAGLE_MPI=OFF "
      "or MPI not found: install libopenmpi-dev and openmpi-bin, scripts/install_deps.sh, and "
      "reconfigure)");
}

}  // namespace eagle::distribute::detail
