#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "eagle/random_seed.hpp"

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
