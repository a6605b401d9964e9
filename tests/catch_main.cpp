#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "eagle/random_seed.hpp"
#include "task_process.hpp"

// Every test case starts from TensorFlow's test seed, as tf.test.TestCase.setUp sets it (Note
// [Global and op seeds]): unseeded initializers, Dropout and shuffles repeat from run to run, so a
// test's outcome never depends on the weights a run happened to draw, and seeded draws keep their
// values (kDefaultGlobalSeed mixes to the op seed itself).
class GlobalSeedListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    eagle::random::set_seed(eagle::random::kDefaultGlobalSeed);
  }
};
CATCH_REGISTER_LISTENER(GlobalSeedListener)

namespace eagle_test {

namespace {
std::map<std::string, TaskRole>& task_roles() {
  static std::map<std::string, TaskRole> roles;
  return roles;
}
}  // namespace

bool register_task_role(const std::string& name, TaskRole role) {
  return task_roles().emplace(name, std::move(role)).second;
}

}  // namespace eagle_test

// "--eagle-task <role> <arguments...>": this binary plays a task of a test's cluster in another
// process (tests/task_process.hpp); otherwise it runs the test cases.
int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--eagle-task") {
    auto& roles = eagle_test::task_roles();
    auto role = roles.find(argv[2]);
    if (role == roles.end()) {
      std::cerr << "unknown task role " << argv[2] << "\n";
      return 2;
    }
    return role->second(std::vector<std::string>(argv + 3, argv + argc));
  }
  return Catch::Session().run(argc, argv);
}
