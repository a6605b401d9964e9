// A build without gRPC (EAGLE_GRPC=OFF): a cluster has no transport (Note [Cluster transport]).
#include "cluster/rpc.hpp"
#include "eagle/errors.hpp"

namespace eagle::cluster {
namespace {

[[noreturn]] void throw_no_grpc() {
  throw UnimplementedError(
      "Clusters need gRPC, and this eagle was built without it (EAGLE_GRPC=OFF or gRPC not "
      "found: install libgrpc++-dev, protobuf-compiler-grpc, libprotobuf-dev and "
      "protobuf-compiler, scripts/install_deps.sh, and reconfigure)");
}

}  // namespace

std::unique_ptr<RpcServer> start_rpc_server(const std::string&, int, const std::string&,
                                            std::shared_ptr<const TaskService>) {
  throw_no_grpc();
}

TaskInfo get_task_info(const std::string&, const std::string&, std::chrono::milliseconds) {
  throw_no_grpc();
}

std::unique_ptr<TaskClient> make_task_client(const std::string&, const std::string&,
                                             std::chrono::milliseconds) {
  throw_no_grpc();
}

}  // namespace eagle::cluster
