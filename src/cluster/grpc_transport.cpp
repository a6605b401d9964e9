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

DType checked_dtype(std::int32_t value) {
  if (value < 0 || value >= kNumDTypes) {
    throw InvalidArgumentError("A remote call named DType value " + std::to_string(value) +
                               ", which this eagle does not have");
  }
  return static_cast<DType>(value);
}

CallHeader from_proto(const rpc::CallHeader& proto) {
  return {proto.client(), proto.incarnation(), {proto.releases().begin(), proto.releases().end()}};
}

void to_proto(const CallHeader& header, rpc::CallHeader* proto) {
  proto->set_client(header.client);
  proto->set_incarnation(header.incarnation);
  for (std::uint64_t handle : header.releases) proto->add_releases(handle);
}

WireTensor from_proto(const rpc::TensorValue& proto) {
  WireTensor value;
  value.dtype = checked_dtype(proto.dtype());
  value.shape.assign(proto.shape().begin(), proto.shape().end());
  value.bytes = proto.content();
  value.strings.assign(proto.strings().begin(), proto.strings().end());
  return value;
}

void to_proto(const WireTensor& value, rpc::TensorValue* proto) {
  proto->set_dtype(static_cast<std::int32_t>(value.dtype));
  for (std::int64_t dim : value.shape) proto->add_shape(dim);
  proto->set_content(value.bytes);
  for (const std::string& s : value.strings) proto->add_strings(s);
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
      response->set_tensors_held(info.tensors_held);
      for (const RemoteDevice& device : info.devices) {
        rpc::DeviceAttributes* attributes = response->add_devices();
        attributes->set_name(device.name);
        attributes->set_device_type(device.device_type);
      }
    });
  }

  grpc::Status Enqueue(grpc::ServerContext*, const rpc::EnqueueRequest* request,
                       rpc::EnqueueResponse*) override {
    return answer([&] {
      const CallHeader header = from_proto(request->header());
      service_->check_header(header);
      EnqueueCall call;
      call.device = request->device();
      call.op = request->op();
      call.kernel_dtype = checked_dtype(request->kernel_dtype());
      call.inputs.assign(request->inputs().begin(), request->inputs().end());
      call.resource_inputs = request->resource_inputs();
      for (const rpc::OutputSpec& output : request->outputs()) {
        call.outputs.push_back(
            {checked_dtype(output.dtype()), {output.shape().begin(), output.shape().end()}});
      }
      call.output_handles.assign(request->output_handles().begin(),
                                 request->output_handles().end());
      call.attrs = request->attrs();
      service_->enqueue(header, call);
    });
  }

  grpc::Status SendTensor(grpc::ServerContext*, const rpc::SendTensorRequest* request,
                          rpc::SendTensorResponse*) override {
    return answer([&] {
      const CallHeader header = from_proto(request->header());
      service_->check_header(header);
      service_->send_tensor(header, request->device(), request->handle(),
                            from_proto(request->value()));
    });
  }

  grpc::Status FetchTensor(grpc::ServerContext*, const rpc::FetchTensorRequest* request,
                           rpc::FetchTensorResponse* response) override {
    return answer([&] {
      const CallHeader header = from_proto(request->header());
      service_->check_header(header);
      to_proto(service_->fetch_tensor(header, request->handle()), response->mutable_value());
    });
  }

  grpc::Status CopyTensor(grpc::ServerContext*, const rpc::CopyTensorRequest* request,
                          rpc::CopyTensorResponse*) override {
    return answer([&] {
      const CallHeader header = from_proto(request->header());
      service_->check_header(header);
      service_->copy_tensor(header, request->device(), request->source(), request->destination());
    });
  }

  grpc::Status ReleaseHandles(grpc::ServerContext*, const rpc::ReleaseHandlesRequest* request,
                              rpc::ReleaseHandlesResponse*) override {
    return answer([&] { service_->check_header(from_proto(request->header())); });
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

namespace {

class GrpcTaskClient final : public TaskClient {
 public:
  GrpcTaskClient(const std::string& address, std::string task_name,
                 std::chrono::milliseconds call_timeout)
      : address_(address),
        task_name_(std::move(task_name)),
        call_timeout_(call_timeout),
        stub_(rpc::EagleService::NewStub(grpc::CreateCustomChannel(
            address, grpc::InsecureChannelCredentials(), channel_arguments()))) {}

  void enqueue(const CallHeader& header, const EnqueueCall& call) override {
    rpc::EnqueueRequest request;
    to_proto(header, request.mutable_header());
    request.set_device(call.device);
    request.set_op(call.op);
    request.set_kernel_dtype(static_cast<std::int32_t>(call.kernel_dtype));
    for (std::uint64_t handle : call.inputs) request.add_inputs(handle);
    request.set_resource_inputs(call.resource_inputs);
    for (const WireSpec& output : call.outputs) {
      rpc::OutputSpec* spec = request.add_outputs();
      spec->set_dtype(static_cast<std::int32_t>(output.dtype));
      for (std::int64_t dim : output.shape) spec->add_shape(dim);
    }
    for (std::uint64_t handle : call.output_handles) request.add_output_handles(handle);
    request.set_attrs(call.attrs);
    rpc::EnqueueResponse response;
    call_rpc(&rpc::EagleService::Stub::Enqueue, request, &response);
  }

  void send_tensor(const CallHeader& header, const std::string& device, std::uint64_t handle,
                   const WireTensor& value) override {
    rpc::SendTensorRequest request;
    to_proto(header, request.mutable_header());
    request.set_device(device);
    request.set_handle(handle);
    to_proto(value, request.mutable_value());
    rpc::SendTensorResponse response;
    call_rpc(&rpc::EagleService::Stub::SendTensor, request, &response);
  }

  WireTensor fetch_tensor(const CallHeader& header, std::uint64_t handle) override {
    rpc::FetchTensorRequest request;
    to_proto(header, request.mutable_header());
    request.set_handle(handle);
    rpc::FetchTensorResponse response;
    call_rpc(&rpc::EagleService::Stub::FetchTensor, request, &response);
    return from_proto(response.value());
  }

  void copy_tensor(const CallHeader& header, const std::string& device, std::uint64_t source,
                   std::uint64_t destination) override {
    rpc::CopyTensorRequest request;
    to_proto(header, request.mutable_header());
    request.set_device(device);
    request.set_source(source);
    request.set_destination(destination);
    rpc::CopyTensorResponse response;
    call_rpc(&rpc::EagleService::Stub::CopyTensor, request, &response);
  }

  void release_handles(const CallHeader& header) override {
    rpc::ReleaseHandlesRequest request;
    to_proto(header, request.mutable_header());
    rpc::ReleaseHandlesResponse response;
    call_rpc(&rpc::EagleService::Stub::ReleaseHandles, request, &response);
  }

 private:
  template <typename Method, typename Request, typename Response>
  void call_rpc(Method method, const Request& request, Response* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + call_timeout_);
    grpc::Status status = ((*stub_).*method)(&context, request, response);
    if (!status.ok()) throw_call_failure(status, task_name_, address_);
  }

  std::string address_;
  std::string task_name_;
  std::chrono::milliseconds call_timeout_;
  std::unique_ptr<rpc::EagleService::Stub> stub_;
};

}  // namespace

std::unique_ptr<TaskClient> make_task_client(const std::string& address,
                                             const std::string& task_name,
                                             std::chrono::milliseconds call_timeout) {
  return std::make_unique<GrpcTaskClient>(address, task_name, call_timeout);
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
  info.tensors_held = response.tensors_held();
  for (const rpc::DeviceAttributes& device : response.devices()) {
    info.devices.push_back({device.name(), device.device_type()});
  }
  return info;
}

}  // namespace eagle::cluster
