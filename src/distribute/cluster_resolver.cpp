// Cluster resolvers and the multi-worker roles: TensorFlow's cluster_resolver.py,
// tfconfig_cluster_resolver.py and multi_worker_util.py, with their texts.
#include "eagle/distribute/cluster_resolver.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"

namespace eagle::distribute {
namespace cluster_resolver {
namespace {

io::Json load_tf_config() {
  const char* text = ::getenv("TF_CONFIG");
  if (text == nullptr) return io::Json::object();
  io::Json parsed;
  try {
    parsed = io::Json::parse(text);
  } catch (const Error& e) {
    throw InvalidArgumentError(
        fmt::format("TF_CONFIG is not valid JSON ({}): TF_CONFIG={}", e.what(), text));
  }
  if (!parsed.is_object()) {
    throw InvalidArgumentError(fmt::format("TF_CONFIG must be a JSON object, not {}: TF_CONFIG={}",
                                           parsed.type_name(), text));
  }
  return parsed;
}

// A field of TF_CONFIG's "task": a pointer into `tf_config`, which must outlive it.
const io::Json* task_field(const io::Json& tf_config, const char* key) {
  const io::Json* task = tf_config.find("task");
  if (task == nullptr || !task->is_object()) return nullptr;
  return task->find(key);
}
const io::Json* task_field(const io::Json&& temporary, const char* key) = delete;

}  // namespace

std::string format_master_url(const std::string& master,
                              const std::optional<std::string>& rpc_layer) {
  return rpc_layer && !rpc_layer->empty() ? *rpc_layer + "://" + master : master;
}

SimpleClusterResolver::SimpleClusterResolver(ClusterSpec cluster_spec, std::string master,
                                             std::optional<std::string> task_type,
                                             std::optional<std::int64_t> task_id,
                                             std::string environment,
                                             std::optional<std::string> rpc_layer)
    : cluster_spec_(std::move(cluster_spec)),
      master_(std::move(master)),
      task_type_(std::move(task_type)),
      task_id_(task_id),
      environment_(std::move(environment)),
      rpc_layer_(std::move(rpc_layer)) {}

std::string SimpleClusterResolver::master(const std::optional<std::string>& task_type,
                                          const std::optional<std::int64_t>& task_id,
                                          const std::optional<std::string>& rpc_layer) const {
  const std::string address =
      task_type && task_id ? cluster_spec_.task_address(*task_type, *task_id) : master_;
  return format_master_url(address, rpc_layer ? rpc_layer : rpc_layer_);
}

TFConfigClusterResolver::TFConfigClusterResolver(std::optional<std::string> task_type,
                                                 std::optional<std::int64_t> task_id,
                                                 std::optional<std::string> rpc_layer,
                                                 std::string environment)
    : task_type_(std::move(task_type)),
      task_id_(task_id),
      rpc_layer_(std::move(rpc_layer)),
      environment_(std::move(environment)) {}

ClusterSpec TFConfigClusterResolver::cluster_spec() const {
  const io::Json tf_config = load_tf_config();
  const io::Json* cluster = tf_config.find("cluster");
  if (cluster == nullptr) return ClusterSpec();
  try {
    return ClusterSpec::from_json(*cluster);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(
        fmt::format("{} (TF_CONFIG's cluster: {})", e.what(), cluster->dump()));
  }
}

std::optional<std::string> TFConfigClusterResolver::task_type() const {
  if (task_type_) return task_type_;
  const io::Json tf_config = load_tf_config();  // task_field points into it
  const io::Json* type = task_field(tf_config, "type");
  if (type == nullptr) return std::nullopt;
  // TensorFlow's str(task["type"]).
  return type->is_string() ? type->as_string() : type->dump();
}

std::optional<std::int64_t> TFConfigClusterResolver::task_id() const {
  if (task_id_) return task_id_;
  const io::Json tf_config = load_tf_config();  // task_field points into it
  const io::Json* index = task_field(tf_config, "index");
  if (index == nullptr) return std::nullopt;
  // TensorFlow's int(task["index"]): a number, or a string of one.
  if (index->is_integer()) return index->as_integer();
  if (index->is_string()) {
    const std::string& text = index->as_string();
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && end != nullptr && *end == '\0') return value;
  }
  throw InvalidArgumentError(
      fmt::format("TF_CONFIG's task index {} is not an integer", index->dump()));
}

std::optional<std::string> TFConfigClusterResolver::rpc_layer() const {
  if (rpc_layer_) return rpc_layer_;
  const io::Json tf_config = load_tf_config();
  const io::Json* layer = tf_config.find("rpc_layer");
  if (layer == nullptr || layer->is_null()) return std::nullopt;
  return layer->is_string() ? layer->as_string() : layer->dump();
}

std::string TFConfigClusterResolver::master(const std::optional<std::string>& task_type,
                                            const std::optional<std::int64_t>& task_id,
                                            const std::optional<std::string>& rpc_layer) const {
  const io::Json tf_config = load_tf_config();
  if (const io::Json* session_master = tf_config.find("session_master");
      session_master != nullptr && session_master->is_string()) {
    return session_master->as_string();
  }
  const ClusterSpec spec = cluster_spec();
  const std::vector<std::string> jobs = spec.jobs();
  if (jobs.empty() || (jobs.size() == 1 && spec.job_tasks(jobs[0]).size() == 1)) return "";
  const std::optional<std::string> type = task_type ? task_type : this->task_type();
  const std::optional<std::int64_t> id = task_id ? task_id : this->task_id();
  if (!type || !id) {
    throw InvalidArgumentError(
        "TF_CONFIG has no task (\"task\": {\"type\": ..., \"index\": ...}) and none was given, "
        "so this task's address is unknown");
  }
  return format_master_url(spec.task_address(*type, *id),
                           rpc_layer ? rpc_layer : this->rpc_layer());
}

}  // namespace cluster_resolver

namespace multi_worker_util {
namespace {

constexpr std::array<const char*, 4> kTaskTypes = {"chief", "worker", "evaluator", "ps"};
constexpr const char* kAllowedRepr = "('chief', 'worker', 'evaluator', 'ps', None)";

bool allowed(const std::string& name) {
  return std::find_if(kTaskTypes.begin(), kTaskTypes.end(),
                      [&](const char* t) { return name == t; }) != kTaskTypes.end();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The task type a mistaken name most likely meant: TensorFlow 1's flag spellings ("ps_hosts",
// "worker_hosts"), its "master", or a near miss ("workers").
std::optional<std::string> meant(const std::string& name) {
  if (name == "master") return std::string("chief");
  for (const char* type : kTaskTypes) {
    const std::string t = type;
    if (name.rfind(t, 0) == 0 || edit_distance(name, t) <= 2) return t;
  }
  return std::nullopt;
}

std::string suggestion(const std::string& name, const char* what) {
  const std::optional<std::string> guess = meant(name);
  return guess ? fmt::format(" \"{}\" is not a {}; did you mean \"{}\"?", name, what, *guess)
               : std::string();
}

std::int64_t task_count(const ClusterSpec& spec, const std::string& job) {
  const std::vector<std::string> jobs = spec.jobs();
  return std::find(jobs.begin(), jobs.end(), job) == jobs.end() ? 0 : spec.num_tasks(job);
}

bool has_job(const ClusterSpec& spec, const std::string& job) {
  const std::vector<std::string> jobs = spec.jobs();
  return std::find(jobs.begin(), jobs.end(), job) != jobs.end();
}

}  // namespace

void validate_cluster_spec(const ClusterSpec& cluster_spec,
                           const std::optional<std::string>& task_type, std::int64_t task_id) {
  for (const std::string& job : cluster_spec.jobs()) {
    if (!allowed(job)) {
      throw InvalidArgumentError(fmt::format(
          "Disallowed task type found in cluster spec. Allowed types are {} and the cluster spec "
          "is {}.{}",
          kAllowedRepr, cluster_spec.repr(), suggestion(job, "job name")));
    }
  }
  if (task_type && !allowed(*task_type)) {
    const std::string hint = suggestion(*task_type, "task type");
    throw InvalidArgumentError(fmt::format("Unrecognized task_type: {}, valid task types are: {}{}",
                                           *task_type, kAllowedRepr,
                                           hint.empty() ? "" : "." + hint));
  }
  if (task_type && !task_type->empty() && !has_job(cluster_spec, *task_type) &&
      *task_type != "evaluator") {
    throw InvalidArgumentError(
        fmt::format("`task_type` {} not found in cluster_spec.", detail::str_repr(*task_type)));
  }
  if (task_count(cluster_spec, "chief") > 1) {
    throw InvalidArgumentError("There must be at most one 'chief' job.");
  }
  if (task_count(cluster_spec, "evaluator") > 1) {
    throw InvalidArgumentError("There must be at most one 'evaluator' job.");
  }
  if (task_type && has_job(cluster_spec, *task_type) &&
      task_id >= task_count(cluster_spec, *task_type)) {
    throw InvalidArgumentError(
        fmt::format("The `task_id` {} exceeds the maximum id of {}.", task_id, *task_type));
  }
}

bool is_chief(const ClusterSpec& cluster_spec, const std::optional<std::string>& task_type,
              std::int64_t task_id) {
  validate_cluster_spec(cluster_spec, task_type, task_id);
  if (task_type == "chief" || task_type == "evaluator") return true;
  return !has_job(cluster_spec, "chief") && task_type == "worker" && task_id == 0;
}

std::int64_t worker_count(const ClusterSpec& cluster_spec, const std::string& task_type) {
  validate_cluster_spec(cluster_spec, task_type, 0);
  if (task_type != "chief" && task_type != "worker" && task_type != "evaluator") {
    throw InvalidArgumentError(
        fmt::format("Unexpected `task_type` {}", detail::str_repr(task_type)));
  }
  if (task_type == "evaluator") return task_count(cluster_spec, "evaluator");
  return task_count(cluster_spec, "chief") + task_count(cluster_spec, "worker");
}

std::int64_t id_in_cluster(const ClusterSpec& cluster_spec, const std::string& task_type,
                           std::int64_t task_id) {
  validate_cluster_spec(cluster_spec, task_type, task_id);
  if (task_type == "chief") return 0;
  if (task_type == "worker") return task_id + task_count(cluster_spec, "chief");
  if (task_type == "evaluator") return task_id;
  throw InvalidArgumentError(
      fmt::format("There is no id for task_type {}", detail::str_repr(task_type)));
}

std::string collective_leader(const ClusterSpec& cluster_spec,
                              const std::optional<std::string>& task_type, std::int64_t task_id) {
  if (cluster_spec.empty()) return "";
  validate_cluster_spec(cluster_spec, task_type, task_id);
  if (task_type == "evaluator") return "";
  if (has_job(cluster_spec, "chief")) return "/job:chief/replica:0/task:0";
  return "/job:worker/replica:0/task:0";
}

}  // namespace multi_worker_util
}  // namespace eagle::distribute
