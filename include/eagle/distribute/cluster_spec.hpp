// eagle::distribute::ClusterSpec, TensorFlow's tf.train.ClusterSpec: the jobs of a cluster and
// the network address of each of their tasks (docs/guide.md, "Clusters").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "eagle/io/json.hpp"

namespace eagle::distribute {

class ClusterSpec {
 public:
  // Addresses by task index, one job.
  using Tasks = std::map<std::int64_t, std::string>;

  // The empty cluster (TensorFlow's ClusterSpec({}): a single process).
  ClusterSpec() = default;
  // One dense job: its name and its tasks' addresses, each task's index its position.
  struct Job {
    Job(std::string job_name, std::vector<std::string> task_addresses)
        : name(std::move(job_name)), addresses(std::move(task_addresses)) {}
    std::string name;
    std::vector<std::string> addresses;
  };
  // Dense jobs in the order given (TensorFlow's dict of lists):
  // ClusterSpec({{"local", {"localhost:2222", "localhost:2223"}}}). A job named twice is
  // InvalidArgumentError.
  ClusterSpec(std::initializer_list<Job> dense_jobs);  // NOLINT: implicit, as TensorFlow's dict
  static ClusterSpec dense(std::vector<Job> jobs);
  // Sparse jobs (TensorFlow's dict of {index: address}): only the tasks this process needs to
  // know. A negative index or a job named twice is InvalidArgumentError.
  static ClusterSpec sparse(std::vector<std::pair<std::string, Tasks>> jobs);
  // The "cluster" of a TF_CONFIG: job -> list of addresses, or job -> {"index": address} (the
  // keys strings, as JSON has them, read as integers: TensorFlow's int(i)). Anything else is
  // InvalidArgumentError with TensorFlow's TypeError or ValueError text.
  static ClusterSpec from_json(const io::Json& cluster);

  // The job names, in the order given.
  std::vector<std::string> jobs() const;
  // The number of tasks of the job; an unknown job is InvalidArgumentError ("No such job in
  // cluster: 'ps'"), as task_indices, task_address and job_tasks.
  std::int64_t num_tasks(const std::string& job_name) const;
  // The job's task indices, ascending.
  std::vector<std::int64_t> task_indices(const std::string& job_name) const;
  // The address of a task; an unknown index is InvalidArgumentError ("No task with index 3 in
  // job 'worker'").
  const std::string& task_address(const std::string& job_name, std::int64_t task_index) const;
  // The job's addresses by index up to the largest, std::nullopt where a sparse job has none.
  std::vector<std::optional<std::string>> job_tasks(const std::string& job_name) const;
  // TensorFlow's as_dict(), as JSON (the form TF_CONFIG's "cluster" takes): a dense job a list of
  // addresses, a sparse one an object {"index": address}, an empty one {}.
  io::Json as_dict() const;
  // TensorFlow's repr: ClusterSpec({'ps': ['localhost:2224'], 'worker': {1: 'localhost:2223'}}),
  // the jobs sorted.
  std::string repr() const;

  bool empty() const { return jobs_.empty(); }
  explicit operator bool() const { return !empty(); }
  // The same jobs with the same tasks, whatever their order (TensorFlow compares the dicts).
  bool operator==(const ClusterSpec& other) const;
  bool operator!=(const ClusterSpec& other) const { return !(*this == other); }

 private:
  const Tasks& job(const std::string& job_name) const;
  void add_job(std::string name, Tasks tasks);

  std::vector<std::pair<std::string, Tasks>> jobs_;
};

std::ostream& operator<<(std::ostream& out, const ClusterSpec& spec);

}  // namespace eagle::distribute

namespace eagle::train {
// TensorFlow's tf.train.ClusterSpec, the same class.
using ClusterSpec = eagle::distribute::ClusterSpec;
}  // namespace eagle::train
