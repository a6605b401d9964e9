// One Catch2 test case per OpInfo entry, so that each op is its own ctest entry
// ("backend_ops_test: AddV2 on every GPU gives the CPU's results").
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

using OpInfoTest = void (*)(const OpInfo&);

class OpInfoInvoker : public Catch::ITestInvoker {
 public:
  OpInfoInvoker(OpInfoTest test, opdefs::OpId op) : test_(test), op_(op) {}
  void invoke() const override { test_(*find_op_info(op_)); }

 private:
  OpInfoTest test_;
  opdefs::OpId op_;
};

// Registers "<Op><suffix>" for each entry that `wanted` selects. Called from a namespace-scope
// initializer: the entries are built then (Note [OpInfo table]).
template <class Wanted>
bool register_op_info_tests(const char* suffix, const char* tags, OpInfoTest test, Wanted wanted) {
  for (const OpInfo& e : op_db()) {
    if (!wanted(e)) continue;
    const std::string name = str(e.op) + suffix;
    Catch::AutoReg(new OpInfoInvoker(test, e.op), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                   Catch::NameAndTags{name, tags});
  }
  return true;
}

}  // namespace eagle_test
