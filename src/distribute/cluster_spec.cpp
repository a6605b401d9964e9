// ClusterSpec: TensorFlow's tf.train.ClusterSpec (python/training/server_lib.py), its members,
// texts and repr.
#include "eagle/distribute/cluster_spec.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"

namespace eagle::distribute {
namespace {

using detail::str_repr;

// Python's int() of a JSON object key ("1" -> 1), with its text for anything else.
std::int64_t parse_index(const std::string& key) {
  std::size_t begin = 0;
  std::size_t end = key.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(key[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(key[end - 1]))) --end;
  const std::string digits = key.substr(begin, end - begin);
  bool ok = !digits.empty();
  for (std::size_t i = 0; i < digits.size() && ok; ++i) {
    ok = std::isdigit(static_cast<unsigned char>(digits[i])) ||
         (i == 0 && (digits[i] == '-' || digits[i] == '+'));
  }
  if (ok && digits != "-" && digits != "+" && digits.size() < 19) return std::stoll(digits);
  throw InvalidArgumentError(
      fmt::format("invalid literal for int() with base 10: {}", str_repr(key)));
}

// TensorFlow's as_dict rule: a job whose indices are 0..n-1 is a list (an empty job is {}).
bool is_dense(const ClusterSpec::Tasks& tasks) {
  return !tasks.empty() && tasks.rbegin()->first + 1 == static_cast<std::int64_t>(tasks.size());
}

std::string tasks_repr(const ClusterSpec::Tasks& tasks) {
  const bool dense = is_dense(tasks);
  std::string out;
  for (const auto& [index, address] : tasks) {
    if (!out.empty()) out += ", ";
    out += dense ? str_repr(address) : fmt::format("{}: {}", index, str_repr(address));
  }
  return dense ? "[" + out + "]" : "{" + out + "}";
}

}  // namespace

ClusterSpec::ClusterSpec(std::initializer_list<Job> dense_jobs)
    : ClusterSpec(dense(std::vector<Job>(dense_jobs))) {}

ClusterSpec ClusterSpec::dense(std::vector<Job> jobs) {
  ClusterSpec spec;
  for (Job& job : jobs) {
    Tasks tasks;
    for (std::size_t i = 0; i < job.addresses.size(); ++i) {
      tasks.emplace(static_cast<std::int64_t>(i), std::move(job.addresses[i]));
    }
    spec.add_job(std::move(job.name), std::move(tasks));
  }
  return spec;
}

ClusterSpec ClusterSpec::sparse(std::vector<std::pair<std::string, Tasks>> jobs) {
  ClusterSpec spec;
  for (auto& [name, tasks] : jobs) spec.add_job(std::move(name), std::move(tasks));
  return spec;
}

ClusterSpec ClusterSpec::from_json(const io::Json& cluster) {
  if (!cluster.is_object()) {
    throw InvalidArgumentError(
        "`cluster` must be a dictionary mapping one or more job names to lists of network "
        "addresses, or a `ClusterDef` protocol buffer");
  }
  ClusterSpec spec;
  for (const auto& [name, value] : cluster.as_object()) {
    Tasks tasks;
    const auto address = [](const io::Json& a) {
      if (!a.is_string()) {
        throw InvalidArgumentError(
            fmt::format("Task address {} must be bytes or unicode", a.dump()));
      }
      return a.as_string();
    };
    if (value.is_array()) {
      std::int64_t index = 0;
      for (const io::Json& a : value.as_array()) tasks.emplace(index++, address(a));
    } else if (value.is_object()) {
      for (const auto& [key, a] : value.as_object()) tasks[parse_index(key)] = address(a);
    } else {
      throw InvalidArgumentError(
          fmt::format("The tasks for job {} must be a list or a dictionary from integers to "
                      "strings.",
                      str_repr(name)));
    }
    spec.add_job(name, std::move(tasks));
  }
  return spec;
}

void ClusterSpec::add_job(std::string name, Tasks tasks) {
  for (const auto& [existing, unused] : jobs_) {
    if (existing == name) {
      throw InvalidArgumentError(
          fmt::format("Job {} appears twice in the cluster", str_repr(name)));
    }
  }
  if (!tasks.empty() && tasks.begin()->first < 0) {
    throw InvalidArgumentError(
        fmt::format("Task index {} of job {} is negative", tasks.begin()->first, str_repr(name)));
  }
  jobs_.emplace_back(std::move(name), std::move(tasks));
}

const ClusterSpec::Tasks& ClusterSpec::job(const std::string& job_name) const {
  for (const auto& [name, tasks] : jobs_) {
    if (name == job_name) return tasks;
  }
  throw InvalidArgumentError(fmt::format("No such job in cluster: {}", str_repr(job_name)));
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> names;
  for (const auto& [name, tasks] : jobs_) names.push_back(name);
  return names;
}

std::int64_t ClusterSpec::num_tasks(const std::string& job_name) const {
  return static_cast<std::int64_t>(job(job_name).size());
}

std::vector<std::int64_t> ClusterSpec::task_indices(const std::string& job_name) const {
  std::vector<std::int64_t> indices;
  for (const auto& [index, address] : job(job_name)) indices.push_back(index);
  return indices;
}

const std::string& ClusterSpec::task_address(const std::string& job_name,
                                             std::int64_t task_index) const {
  const Tasks& tasks = job(job_name);
  const auto found = tasks.find(task_index);
  if (found == tasks.end()) {
    throw InvalidArgumentError(
        fmt::format("No task with index {} in job {}", task_index, str_repr(job_name)));
  }
  return found->second;
}

std::vector<std::optional<std::string>> ClusterSpec::job_tasks(const std::string& job_name) const {
  const Tasks& tasks = job(job_name);
  std::vector<std::optional<std::string>> out;
  if (tasks.empty()) return out;
  out.resize(static_cast<std::size_t>(tasks.rbegin()->first + 1));
  for (const auto& [index, address] : tasks) out[static_cast<std::size_t>(index)] = address;
  return out;
}

io::Json ClusterSpec::as_dict() const {
  io::Json out = io::Json::object();
  for (const auto& [name, tasks] : jobs_) {
    const bool dense = is_dense(tasks);
    io::Json job = dense ? io::Json::array() : io::Json::object();
    for (const auto& [index, address] : tasks) {
      if (dense) {
        job.push_back(address);
      } else {
        job.set(std::to_string(index), address);
      }
    }
    out.set(name, std::move(job));
  }
  return out;
}

std::string ClusterSpec::repr() const {
  std::vector<std::pair<std::string, Tasks>> sorted = jobs_;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string items;
  for (const auto& [name, tasks] : sorted) {
    if (!items.empty()) items += ", ";
    items += str_repr(name) + ": " + tasks_repr(tasks);
  }
  return "ClusterSpec({" + items + "})";
}

bool ClusterSpec::operator==(const ClusterSpec& other) const {
  if (jobs_.size() != other.jobs_.size()) return false;
  for (const auto& [name, tasks] : jobs_) {
    const auto match = std::find_if(other.jobs_.begin(), other.jobs_.end(),
                                    [&](const auto& job) { return job.first == name; });
    if (match == other.jobs_.end() || match->second != tasks) return false;
  }
  return true;
}

std::ostream& operator<<(std::ostream& out, const ClusterSpec& spec) { return out << spec.repr(); }

}  // namespace eagle::distribute
