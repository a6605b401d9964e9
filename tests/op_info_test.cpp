// The OpInfo table (tests/op_info/, Note [OpInfo table]) against the op table: every op has an
// entry or a reason, and each entry's error cases raise exactly their class and text, on the CPU.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <typeinfo>

#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"
#include "op_info/register_tests.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::opdefs::OpId;
using eagle_test::ErrorCase;
using eagle_test::OpInfo;
using eagle_test::str;

// Runs `c` and checks the exception's exact class and message.
void expect_error(const ErrorCase& c) {
  INFO("expected " << c.type_name << ": " << c.message);
  try {
    c.run();
  } catch (const std::exception& e) {
    CHECK(typeid(e).name() == c.type_name);
    CHECK(std::string(e.what()) == c.message);
    return;
  }
  FAIL_CHECK("nothing was thrown");
}

// The first sample of the op's first CPU dtype (float32 where it has one), on the CPU.
std::vector<eagle_test::Sample> first_samples(const OpInfo& e) {
  const auto dtypes = eagle_test::cpu_dtypes(e.op);
  if (dtypes.empty() || !e.samples) return {};
  return eagle::with_device("/CPU:0", [&] { return e.samples(dtypes.front()); });
}

void check_errors(const OpInfo& e) {
  auto scope = eagle::device("/CPU:0");
  int checked = 0;
  if (e.errors) {
    for (const ErrorCase& c : e.errors()) {
      expect_error(c);
      ++checked;
    }
  }
  if (e.check_undefined_inputs) {
    const auto samples = first_samples(e);
    REQUIRE_FALSE(samples.empty());
    const auto& s = samples.front();
    const eagle_test::Call call = s.call ? s.call : e.call;
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      auto inputs = s.inputs;
      inputs[i] = eagle::Tensor();
      INFO("sample " << s.what << ", input " << i << " undefined");
      expect_error(eagle_test::raises<eagle::InvalidArgumentError>(
          [call, inputs] { call(inputs); },
          eagle_test::undefined_input(static_cast<int>(i), str(e.op))));
      ++checked;
    }
  }
  CHECK(checked > 0);
}

const bool registered = eagle_test::register_op_info_tests(
    ": error cases raise their exact class and text", "[ops][errors][opinfo]", check_errors,
    [](const OpInfo& e) { return e.errors || e.check_undefined_inputs; });

}  // namespace

TEST_CASE("every op of the op table has an OpInfo entry or a reason", "[opinfo]") {
  CHECK(registered);
  std::set<opdefs::OpId> excluded;
  for (const auto& [op, why] : eagle_test::op_info_exclusions()) {
    INFO(str(op) << ": " << why);
    CHECK(!why.empty());
    CHECK(excluded.insert(op).second);
  }
  std::set<opdefs::OpId> seen;
  for (const OpInfo& e : eagle_test::op_db()) {
    INFO(str(e.op) << " (" << e.family << ")");
    CHECK(seen.insert(e.op).second);  // one entry per op
    CHECK_FALSE(excluded.count(e.op));
    CHECK(static_cast<bool>(e.samples));
    CHECK_FALSE(e.family.empty());
  }
  std::string missing;
  for (int i = 0; i < eagle::opdefs::kNumOps; ++i) {
    const auto op = static_cast<opdefs::OpId>(i);
    if (!seen.count(op) && !excluded.count(op)) missing += " " + str(op);
  }
  INFO("ops without an OpInfo entry (tests/op_info/) or an exclusion (op_info.cpp):" << missing);
  CHECK(missing.empty());
}

TEST_CASE("every differentiable op has finite-difference cases or a reason", "[opinfo]") {
  for (const OpInfo& e : eagle_test::op_db()) {
    INFO(str(e.op));
    const bool differentiable =
        eagle::opdefs::op_def(e.op).gradient == eagle::opdefs::Gradient::kDifferentiable;
    if (differentiable) {
      CHECK((!e.gradients.empty() || !e.no_gradient_check.empty()));
    } else {
      CHECK(e.gradients.empty());  // the tape gives no gradient through it
    }
    CHECK((e.gradients.empty() || e.no_gradient_check.empty()));
  }
}
