// ClusterSpec, the cluster resolvers and the multi-worker roles against TensorFlow 2.21's
// behaviour and texts (server_lib.py, tfconfig_cluster_resolver.py, multi_worker_util.py), and
// eagle's suggestions for TensorFlow 1's job spellings.
#include <stdlib.h>

#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "eagle/distribute.hpp"
#include "eagle/errors.hpp"
#include "eagle/io/json.hpp"

namespace {

using eagle::distribute::ClusterSpec;
using eagle::io::Json;
namespace resolver = eagle::distribute::cluster_resolver;
namespace util = eagle::distribute::multi_worker_util;

// TF_CONFIG set while alive (unset before and after).
class TFConfig {
 public:
  explicit TFConfig(const std::string& json) { ::setenv("TF_CONFIG", json.c_str(), 1); }
  ~TFConfig() { ::unsetenv("TF_CONFIG"); }
  TFConfig(const TFConfig&) = delete;
  TFConfig& operator=(const TFConfig&) = delete;
};

ClusterSpec seed_cluster() {
  return ClusterSpec({{"local", {"localhost:2222", "localhost:2223"}}});
}

}  // namespace

TEST_CASE("ClusterSpec: seed 001's cluster, its members and repr") {
  const ClusterSpec spec = seed_cluster();
  CHECK(spec.jobs() == std::vector<std::string>{"local"});
  CHECK(spec.num_tasks("local") == 2);
  CHECK(spec.task_indices("local") == std::vector<std::int64_t>{0, 1});
  CHECK(spec.task_address("local", 1) == "localhost:2223");
  CHECK(spec.job_tasks("local") ==
        std::vector<std::optional<std::string>>{"localhost:2222", "localhost:2223"});
  CHECK(spec.repr() == "ClusterSpec({'local': ['localhost:2222', 'localhost:2223']})");
  std::ostringstream printed;
  printed << spec;
  CHECK(printed.str() == spec.repr());
  CHECK(spec.as_dict().dump() == R"({"local": ["localhost:2222", "localhost:2223"]})");
  CHECK(static_cast<bool>(spec));
  CHECK_FALSE(static_cast<bool>(ClusterSpec()));
  CHECK(ClusterSpec().repr() == "ClusterSpec({})");
  // eagle::train::ClusterSpec is TensorFlow's tf.train.ClusterSpec, the same class.
  const eagle::train::ClusterSpec same = spec;
  CHECK(same == spec);
}

TEST_CASE("ClusterSpec: jobs keep their order, repr sorts them, sparse jobs have holes") {
  const ClusterSpec spec({{"worker", {"w0:1", "w1:1"}}, {"ps", {"p0:1"}}, {"chief", {}}});
  CHECK(spec.jobs() == std::vector<std::string>{"worker", "ps", "chief"});
  CHECK(spec.repr() == "ClusterSpec({'chief': {}, 'ps': ['p0:1'], 'worker': ['w0:1', 'w1:1']})");
  CHECK(spec.job_tasks("chief").empty());

  const ClusterSpec sparse = ClusterSpec::sparse({{"worker", {{1, "w1:1"}, {3, "w3:1"}}}});
  CHECK(sparse.num_tasks("worker") == 2);
  CHECK(sparse.task_indices("worker") == std::vector<std::int64_t>{1, 3});
  CHECK(sparse.job_tasks("worker") ==
        std::vector<std::optional<std::string>>{std::nullopt, "w1:1", std::nullopt, "w3:1"});
  CHECK(sparse.repr() == "ClusterSpec({'worker': {1: 'w1:1', 3: 'w3:1'}})");
  CHECK(sparse.as_dict().dump() == R"({"worker": {"1": "w1:1", "3": "w3:1"}})");
  // A sparse job whose indices happen to be dense is a list, as TensorFlow's as_dict.
  CHECK(ClusterSpec::sparse({{"ps", {{0, "a:1"}, {1, "b:1"}}}}) ==
        ClusterSpec({{"ps", {"a:1", "b:1"}}}));
  // Equality ignores the jobs' order, as TensorFlow's dict comparison.
  CHECK(ClusterSpec({{"a", {"x:1"}}, {"b", {"y:1"}}}) ==
        ClusterSpec({{"b", {"y:1"}}, {"a", {"x:1"}}}));
  CHECK(ClusterSpec({{"a", {"x:1"}}}) != ClusterSpec({{"a", {"x:2"}}}));
}

TEST_CASE("ClusterSpec: TensorFlow's errors") {
  const ClusterSpec spec = seed_cluster();
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { spec.num_tasks("ps"); }, [&] { spec.task_indices("ps"); },
           [&] { spec.task_address("ps", 0); }, [&] { spec.job_tasks("ps"); }}) {
    CHECK_THROWS_MATCHES(call(), eagle::InvalidArgumentError,
                         Catch::Message("No such job in cluster: 'ps'"));
  }
  CHECK_THROWS_MATCHES(spec.task_address("local", 2), eagle::InvalidArgumentError,
                       Catch::Message("No task with index 2 in job 'local'"));
  CHECK_THROWS_MATCHES(ClusterSpec({{"a", {"x:1"}}, {"a", {"y:1"}}}), eagle::InvalidArgumentError,
                       Catch::Message("Job 'a' appears twice in the cluster"));
  CHECK_THROWS_MATCHES(ClusterSpec::sparse({{"a", {{-1, "x:1"}}}}), eagle::InvalidArgumentError,
                       Catch::Message("Task index -1 of job 'a' is negative"));
}

TEST_CASE("ClusterSpec from TF_CONFIG's JSON: lists, string-keyed dicts, TensorFlow's texts") {
  const ClusterSpec spec = ClusterSpec::from_json(
      Json::parse(R"({"worker": ["w0:1", "w1:1"], "ps": {"1": "p1:1", " 0 ": "p0:1"}})"));
  CHECK(spec.jobs() == std::vector<std::string>{"worker", "ps"});
  CHECK(spec.task_address("ps", 0) == "p0:1");
  CHECK_THROWS_MATCHES(ClusterSpec::from_json(Json::parse(R"(["w0:1"])")),
                       eagle::InvalidArgumentError,
                       Catch::Message("`cluster` must be a dictionary mapping one or more job "
                                      "names to lists of network addresses, or a `ClusterDef` "
                                      "protocol buffer"));
  CHECK_THROWS_MATCHES(
      ClusterSpec::from_json(Json::parse(R"({"worker": "w0:1"})")), eagle::InvalidArgumentError,
      Catch::Message("The tasks for job 'worker' must be a list or a dictionary from integers to "
                     "strings."));
  CHECK_THROWS_MATCHES(ClusterSpec::from_json(Json::parse(R"({"worker": [2222]})")),
                       eagle::InvalidArgumentError,
                       Catch::Message("Task address 2222 must be bytes or unicode"));
  CHECK_THROWS_MATCHES(ClusterSpec::from_json(Json::parse(R"({"worker": {"one": "w:1"}})")),
                       eagle::InvalidArgumentError,
                       Catch::Message("invalid literal for int() with base 10: 'one'"));
}

TEST_CASE("TFConfigClusterResolver reads TF_CONFIG at each call, overrides win") {
  ::unsetenv("TF_CONFIG");
  resolver::TFConfigClusterResolver none;
  CHECK(none.cluster_spec() == ClusterSpec());
  CHECK(none.task_type() == std::nullopt);
  CHECK(none.task_id() == std::nullopt);
  CHECK(none.master().empty());
  {
    TFConfig config(R"({"cluster": {"worker": ["localhost:12345", "localhost:23456"]},
                        "task": {"type": "worker", "index": "1"}, "rpc_layer": "grpc"})");
    resolver::TFConfigClusterResolver r;
    CHECK(r.cluster_spec() == ClusterSpec({{"worker", {"localhost:12345", "localhost:23456"}}}));
    CHECK(r.task_type() == "worker");
    CHECK(r.task_id() == 1);
    CHECK(r.rpc_layer() == "grpc");
    CHECK(r.master() == "grpc://localhost:23456");
    CHECK(r.master("worker", 0, std::string("http")) == "http://localhost:12345");
    resolver::TFConfigClusterResolver overridden("worker", 0, std::string(""));
    CHECK(overridden.master() == "localhost:12345");
  }
  {
    // One job of one task: no master, as TensorFlow's.
    TFConfig config(R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "worker"}})");
    CHECK(resolver::TFConfigClusterResolver().master().empty());
  }
  {
    TFConfig config(R"({"cluster": {"worker": ["a:1"], "ps": ["b:1"]}, "session_master": "m:9"})");
    CHECK(resolver::TFConfigClusterResolver().master() == "m:9");
  }
  {
    TFConfig config(R"({"cluster": {"worker": ["a:1"],})");
    CHECK_THROWS_WITH(resolver::TFConfigClusterResolver().cluster_spec(),
                      Catch::StartsWith("TF_CONFIG is not valid JSON (invalid JSON at offset"));
  }
  {
    TFConfig config(R"({"cluster": {"worker": "a:1"}})");
    CHECK_THROWS_MATCHES(
        resolver::TFConfigClusterResolver().cluster_spec(), eagle::InvalidArgumentError,
        Catch::Message("The tasks for job 'worker' must be a list or a dictionary from integers "
                       "to strings. (TF_CONFIG's cluster: {\"worker\": \"a:1\"})"));
  }
}

TEST_CASE("SimpleClusterResolver: the master given, or a task's address") {
  resolver::SimpleClusterResolver r(seed_cluster(), "localhost:2222", "local", 0, "",
                                    std::string("grpc"));
  CHECK(r.cluster_spec() == seed_cluster());
  CHECK(r.master() == "grpc://localhost:2222");
  CHECK(r.master("local", 1) == "grpc://localhost:2223");
  CHECK(r.task_type() == "local");
  CHECK(r.task_id() == 0);
  r.set_rpc_layer(std::nullopt);
  CHECK(r.master("local", 1) == "localhost:2223");
  CHECK(resolver::format_master_url("h:1", std::nullopt) == "h:1");
}

TEST_CASE("multi_worker_util: TensorFlow's roles") {
  const ClusterSpec with_chief({{"chief", {"c:1"}}, {"worker", {"w0:1", "w1:1"}}, {"ps", {"p:1"}}});
  CHECK(util::is_chief(with_chief, "chief", 0));
  CHECK_FALSE(util::is_chief(with_chief, "worker", 0));
  CHECK(util::worker_count(with_chief, "worker") == 3);
  CHECK(util::id_in_cluster(with_chief, "chief", 0) == 0);
  CHECK(util::id_in_cluster(with_chief, "worker", 1) == 2);
  CHECK(util::collective_leader(with_chief, "worker", 1) == "/job:chief/replica:0/task:0");

  const ClusterSpec workers({{"worker", {"w0:1", "w1:1"}}, {"evaluator", {"e:1"}}});
  CHECK(util::is_chief(workers, "worker", 0));
  CHECK_FALSE(util::is_chief(workers, "worker", 1));
  CHECK(util::is_chief(workers, "evaluator", 0));
  CHECK(util::worker_count(workers, "evaluator") == 1);
  CHECK(util::collective_leader(workers, "worker", 0) == "/job:worker/replica:0/task:0");
  CHECK(util::collective_leader(workers, "evaluator", 0).empty());
  CHECK(util::collective_leader(ClusterSpec(), std::nullopt, 0).empty());
  // An evaluator may be missing from the cluster.
  CHECK(util::is_chief(ClusterSpec({{"worker", {"w:1"}}}), "evaluator", 0));
}

TEST_CASE("multi_worker_util: TensorFlow's validation texts and eagle's suggestions") {
  const ClusterSpec workers({{"worker", {"w0:1", "w1:1"}}, {"ps", {"p:1"}}});
  CHECK_THROWS_MATCHES(
      util::validate_cluster_spec(ClusterSpec({{"ps_hosts", {"p:1"}}, {"worker", {"w:1"}}}),
                                  "worker", 0),
      eagle::InvalidArgumentError,
      Catch::Message("Disallowed task type found in cluster spec. Allowed types are ('chief', "
                     "'worker', 'evaluator', 'ps', None) and the cluster spec is "
                     "ClusterSpec({'ps_hosts': ['p:1'], 'worker': ['w:1']}). \"ps_hosts\" is not "
                     "a job name; did you mean \"ps\"?"));
  CHECK_THROWS_MATCHES(
      util::is_chief(workers, "master", 0), eagle::InvalidArgumentError,
      Catch::Message("Unrecognized task_type: master, valid task types are: ('chief', 'worker', "
                     "'evaluator', 'ps', None). \"master\" is not a task type; did you mean "
                     "\"chief\"?"));
  CHECK_THROWS_MATCHES(util::is_chief(workers, "chief", 0), eagle::InvalidArgumentError,
                       Catch::Message("`task_type` 'chief' not found in cluster_spec."));
  CHECK_THROWS_MATCHES(util::is_chief(workers, "worker", 2), eagle::InvalidArgumentError,
                       Catch::Message("The `task_id` 2 exceeds the maximum id of worker."));
  CHECK_THROWS_MATCHES(
      util::validate_cluster_spec(ClusterSpec({{"chief", {"a:1", "b:1"}}}), "chief", 0),
      eagle::InvalidArgumentError, Catch::Message("There must be at most one 'chief' job."));
  CHECK_THROWS_MATCHES(
      util::validate_cluster_spec(ClusterSpec({{"evaluator", {"a:1", "b:1"}}}), "evaluator", 0),
      eagle::InvalidArgumentError, Catch::Message("There must be at most one 'evaluator' job."));
  CHECK_THROWS_MATCHES(util::worker_count(workers, "ps"), eagle::InvalidArgumentError,
                       Catch::Message("Unexpected `task_type` 'ps'"));
  CHECK_THROWS_MATCHES(util::id_in_cluster(workers, "ps", 0), eagle::InvalidArgumentError,
                       Catch::Message("There is no id for task_type 'ps'"));
}
