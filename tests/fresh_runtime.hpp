// Scenario tests configure devices and then initialize the runtime, which a process does once
// (docs/guide.md, "Configuring devices"). ctest runs every TEST_CASE in its own process
// (catch_discover_tests), so each scenario starts fresh; there is deliberately no hidden global
// reset. A scenario therefore has no SECTIONs, and run by hand with several cases in one process,
// every case after the first fails with a message saying so (never a silent pass).
#pragma once

#include <cstdlib>

#include <catch2/catch.hpp>

namespace eagle_test {

inline bool claim_fresh_process() {
  static bool claimed = false;
  const bool first = !claimed;
  claimed = true;
  return first;
}

}  // namespace eagle_test

// Starts a scenario: returns from the test case unless this process is fresh, then sets
// EAGLE_SIMULATED_GPUS (nullptr: unset) before anything can read it.
#define EAGLE_FRESH_RUNTIME(simulated_gpus)                                          \
  do {                                                                               \
    if (!eagle_test::claim_fresh_process()) {                                        \
      FAIL("this scenario needs its own process: run it through ctest, or by name"); \
    }                                                                                \
    if (const char* spec_ = (simulated_gpus)) {                                      \
      ::setenv("EAGLE_SIMULATED_GPUS", spec_, 1);                                    \
    } else {                                                                         \
      ::unsetenv("EAGLE_SIMULATED_GPUS");                                            \
    }                                                                                \
  } while (false)
