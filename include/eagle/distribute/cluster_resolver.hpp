// Cluster resolvers (TensorFlow's tf.distribute.cluster_resolver): where a task learns the
// cluster and its own place in it, and the roles of TensorFlow's multi-worker training
// (multi_worker_util): chief, worker, ps, evaluator (docs/guide.md, "Clusters").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "eagle/distribute/cluster_spec.hpp"

namespace eagle::distribute::cluster_resolver {

class ClusterResolver {
 public:
  virtual ~ClusterResolver() = default;
  virtual ClusterSpec cluster_spec() const = 0;
  // The address of the task (this one by default) with the rpc layer's scheme:
  // "grpc://localhost:2223"; "" for a cluster of one task.
  virtual std::string master(const std::optional<std::string>& task_type = std::nullopt,
                             const std::optional<std::int64_t>& task_id = std::nullopt,
                             const std::optional<std::string>& rpc_layer = std::nullopt) const = 0;
  virtual std::optional<std::string> task_type() const = 0;
  virtual std::optional<std::int64_t> task_id() const = 0;
  virtual std::optional<std::string> rpc_layer() const = 0;
  virtual std::string environment() const = 0;
};

// TensorFlow's SimpleClusterResolver: a cluster given in the program.
class SimpleClusterResolver : public ClusterResolver {
 public:
  explicit SimpleClusterResolver(ClusterSpec cluster_spec, std::string master = "",
                                 std::optional<std::string> task_type = std::nullopt,
                                 std::optional<std::int64_t> task_id = std::nullopt,
                                 std::string environment = "",
                                 std::optional<std::string> rpc_layer = std::nullopt);
  ClusterSpec cluster_spec() const override { return cluster_spec_; }
  // With a task type and id, that task's address; else the master given. Prefixed with
  // "<rpc_layer>://" when there is an rpc layer.
  std::string master(const std::optional<std::string>& task_type = std::nullopt,
                     const std::optional<std::int64_t>& task_id = std::nullopt,
                     const std::optional<std::string>& rpc_layer = std::nullopt) const override;
  std::optional<std::string> task_type() const override { return task_type_; }
  std::optional<std::int64_t> task_id() const override { return task_id_; }
  std::optional<std::string> rpc_layer() const override { return rpc_layer_; }
  std::string environment() const override { return environment_; }
  void set_task_type(std::optional<std::string> task_type) { task_type_ = std::move(task_type); }
  void set_task_id(std::optional<std::int64_t> task_id) { task_id_ = task_id; }
  void set_rpc_layer(std::optional<std::string> rpc_layer) { rpc_layer_ = std::move(rpc_layer); }

 private:
  ClusterSpec cluster_spec_;
  std::string master_;
  std::optional<std::string> task_type_;
  std::optional<std::int64_t> task_id_;
  std::string environment_;
  std::optional<std::string> rpc_layer_;
};

// TensorFlow's TFConfigClusterResolver: the TF_CONFIG environment variable, read at every call
// (as TensorFlow does), {"cluster": {"worker": [...], ...}, "task": {"type": "worker", "index":
// 0}, "rpc_layer": "grpc", "session_master": ...}. Without TF_CONFIG, or without "cluster", the
// cluster is empty (one process). The constructor's arguments override the task and the rpc
// layer. TF_CONFIG that is not JSON, or a cluster of the wrong form, is InvalidArgumentError
// quoting it.
class TFConfigClusterResolver : public ClusterResolver {
 public:
  explicit TFConfigClusterResolver(std::optional<std::string> task_type = std::nullopt,
                                   std::optional<std::int64_t> task_id = std::nullopt,
                                   std::optional<std::string> rpc_layer = std::nullopt,
                                   std::string environment = "");
  ClusterSpec cluster_spec() const override;
  // session_master when TF_CONFIG sets it; "" for no cluster or one job of one task; else the
  // task's address with the rpc layer's scheme.
  std::string master(const std::optional<std::string>& task_type = std::nullopt,
                     const std::optional<std::int64_t>& task_id = std::nullopt,
                     const std::optional<std::string>& rpc_layer = std::nullopt) const override;
  std::optional<std::string> task_type() const override;
  std::optional<std::int64_t> task_id() const override;
  std::optional<std::string> rpc_layer() const override;
  std::string environment() const override { return environment_; }
  void set_task_type(std::optional<std::string> task_type) { task_type_ = std::move(task_type); }
  void set_task_id(std::optional<std::int64_t> task_id) { task_id_ = task_id; }
  void set_rpc_layer(std::optional<std::string> rpc_layer) { rpc_layer_ = std::move(rpc_layer); }

 private:
  std::optional<std::string> task_type_;
  std::optional<std::int64_t> task_id_;
  std::optional<std::string> rpc_layer_;
  std::string environment_;
};

// "<rpc_layer>://<address>", or the address alone without an rpc layer (TensorFlow's
// format_master_url).
std::string format_master_url(const std::string& master,
                              const std::optional<std::string>& rpc_layer);

}  // namespace eagle::distribute::cluster_resolver

// TensorFlow's multi_worker_util: the roles of a multi-worker cluster. The jobs may be "chief"
// (at most one task: it writes checkpoints and summaries), "worker", "ps" and "evaluator" (at
// most one, outside training). Every function validates first, with TensorFlow's texts
// (InvalidArgumentError), and, beyond TensorFlow, suggests the name meant for a job or task type
// it does not know ("ps_hosts" is not a job name; did you mean "ps"?).
namespace eagle::distribute::multi_worker_util {

// The checks of TensorFlow's _validate_cluster_spec: known job names, a known task type present
// in the cluster (an evaluator may be absent), at most one chief and one evaluator, a task id
// below the job's task count.
void validate_cluster_spec(const ClusterSpec& cluster_spec,
                           const std::optional<std::string>& task_type, std::int64_t task_id);
// The chief, or the evaluator, or worker 0 when there is no chief.
bool is_chief(const ClusterSpec& cluster_spec, const std::optional<std::string>& task_type,
              std::int64_t task_id);
// Chiefs and workers together (the evaluators for an evaluator).
std::int64_t worker_count(const ClusterSpec& cluster_spec, const std::string& task_type);
// The task's rank among the workers: the chief 0, workers after the chief.
std::int64_t id_in_cluster(const ClusterSpec& cluster_spec, const std::string& task_type,
                           std::int64_t task_id);
// "/job:chief/replica:0/task:0", else "/job:worker/replica:0/task:0"; "" for no cluster or an
// evaluator.
std::string collective_leader(const ClusterSpec& cluster_spec,
                              const std::optional<std::string>& task_type, std::int64_t task_id);

}  // namespace eagle::distribute::multi_worker_util
