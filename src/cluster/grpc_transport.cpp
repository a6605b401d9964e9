// Note [Cluster transport]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The tasks of a cluster talk gRPC (one service, src/cluster/eagle_service.proto), as
// TensorFlow's do, so deadlines, cancellation, flow control and message framing are gRPC's, not
// eagle's. gRPC's and protobuf's headers reach this file only: the rest of eagle calls the plain
// functions of cluster/rpc.hpp, and a build without gRPC (EAGLE_GRPC=OFF) links no_rpc.cpp, whose
// functions raise UnimplementedError. Errors cross the wire as a code and a text (gRPC's status
// codes are TensorFlow's), and are raised again on the caller's side as the same eagle class.
#include <grpcpp/grpcpp.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster/eagle_service.grpc.pb.h"
#include "cluster/port_holder.hpp"
#include "cluster/rpc.hpp"
#include "eagle/errors.hpp"

namespace eagle::cluster {
namespace {

grpc::Status to_status(const Error& error) {
  return grpc::Status(static_cast<grpc::StatusCode>(error.code()), error.what());
}

// Runs a handler; an eagle::Error becomes its status, anything else INTERNAL.
template <typename Handler>
grpc::Status answer(Handler&& handler) {
  try {
    handler();
    return grpc::Status::OK;
  } catch (const Error& error) {
    return to_status(error);
  } catch (const std::exception& error) {
    return grpc::Status(grpc::StatusCode::INTERNAL, error.what());
  }
}

class EagleServiceImpl final : public rpc::EagleService::Service {
 public:
  explicit EagleServiceImpl(std::shared_ptr<const TaskService> service)
      : service_(std::move(service)) {}

  grpc::Status GetTaskInfo(grpc::ServerContext*, const rpc::GetTaskInfoRequest*,
                           rpc::GetTaskInfoResponse* response) override {
    return answer([&] {
      TaskInfo info = service_->get_task_info();
      response->set_job_name(info.job_name);
      response->set_task_index(static_cast<std::int32_t>(info.task_index));
      response->set_incarnation(info.incarnation);
      for (const RemoteDevice& device : info.devices) {
        rpc::DeviceAttributes* attributes = response->add_devices();
        attributes->set_name(device.name);
        attributes->set_device_type(device.device_type);
      }
    });
  }

 private:
  std::shared_ptr<const TaskService> service_;
};

class GrpcServer final : public RpcServer {
 public:
  GrpcServer(std::unique_ptr<EagleServiceImpl> service, std::unique_ptr<grpc::Server> server,
             int bound_port)
      : service_(std::move(service)), server_(std::move(server)), bound_port_(bound_port) {}
  ~GrpcServer() override { shutdown(std::chrono::milliseconds(0)); }

  int bound_port() const override { return bound_port_; }

  void shutdown(std::chrono::milliseconds grace) override {
    if (server_ == nullptr) return;
    server_->Shutdown(std::chrono::system_clock::now() + grace);
    server_->Wait();
    server_.reset();
  }

 private:
  std::unique_ptr<EagleServiceImpl> service_;  // outlives the server that calls it
  std::unique_ptr<grpc::Server> server_;
  int bound_port_;
};

// Why binding `port` fails, asked of the system directly: gRPC's own status only says that no
// address could be added. Empty when a plain bind succeeds now.
std::string bind_failure(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::strerror(errno);
  int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));  // as gRPC binds
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string failure;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    failure = errno == EADDRINUSE ? "in use" : std::strerror(errno);
  }
  ::close(fd);
  return failure;
}

[[noreturn]] void throw_start_failure(int port, const std::string& task_address) {
  std::string message = "Could not start gRPC server: cannot listen on " + task_address;
  std::string failure = port > 0 ? bind_failure(port) : "";
  if (failure == "in use") {
    message += ": port " + std::to_string(port) + " is already in use";
    if (auto holder = describe_port_holder(port)) {
      message += " by " + *holder;
    } else {
      message += " (by a process the system does not name to this one)";
    }
  } else if (!failure.empty()) {
    message += ": " + failure;
  }
  throw UnknownError(message);
}

grpc::ChannelArguments channel_arguments() {
  grpc::ChannelArguments arguments;
  // Tensors of any size fit one message, as TensorFlow's (INT32_MAX).
  arguments.SetMaxReceiveMessageSize(INT_MAX);
  arguments.SetMaxSendMessageSize(INT_MAX);
  return arguments;
}

// An error the call itself hit: the transport's (the task is not there, or too slow) names the
// task; one its handler raised comes back as the same class and text.
[[noreturn]] void throw_call_failure(const grpc::Status& status, const std::string& task_name,
                                     const std::string& address) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      throw UnavailableError("Task " + task_name + " at " + address +
                             " is unavailable: " + status.error_message());
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      throw DeadlineExceededError("Task " + task_name + " at " + address +
                                  " did not answer in time: " + status.error_message());
    default:
      throw_error(static_cast<ErrorCode>(status.error_code()), status.error_message());
  }
}

}  // namespace

std::unique_ptr<RpcServer> start_rpc_server(const std::string& bind_host, int port,
                                            const std::string& task_address,
                                            std::shared_ptr<const TaskService> service) {
  auto implementation = std::make_unique<EagleServiceImpl>(std::move(service));
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(bind_host + ":" + std::to_string(port),
                           grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(implementation.get());
  // A second server on a port in use must fail, not share it (TensorFlow turns SO_REUSEPORT off
  // too).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound_port == 0) throw_start_failure(port, task_address);
  return std::make_unique<GrpcServer>(std::move(implementation), std::move(server), bound_port);
}

TaskInfo get_task_info(const std::string& address, const std::string& task_name,
                       std::chrono::milliseconds timeout) {
  auto channel =
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), channel_arguments());
  auto stub = rpc::EagleService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  rpc::GetTaskInfoRequest request;
  rpc::GetTaskInfoResponse response;
  grpc::Status status = stub->GetTaskInfo(&context, request, &response);
  if (!status.ok()) throw_call_failure(status, task_name, address);
  TaskInfo info;
  info.job_name = response.job_name();
  info.task_index = response.task_index();
  info.incarnation = response.incarnation();
  for (const rpc::DeviceAttributes& device : response.devices()) {
    info.devices.push_back({device.name(), device.device_type()});
  }
  return info;
}

}  // namespace eagle::cluster
