// eagle against TensorFlow itself: every case of tests/fixtures/tf_ops.json (written by
// tests/tools/gen_tf_fixture.py from tensorflow-cpu) is run on the CPU and, where the process
// has one, on GPU:0, and must give TensorFlow's dtype, shape and values (signed zeros and NaN
// included), or TensorFlow's error class and text.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "fixture_ops.hpp"

namespace {

using eagle::Tensor;
using eagle_test::Inputs;
using eagle_test::Json;
using eagle_test::ops;

void run_case(const Json& c) {
  INFO(c["name"].str());
  const auto it = ops().find(c["op"].str());
  REQUIRE(it != ops().end());
  Inputs inputs;
  for (const Json& j : c["inputs"].array()) inputs.push_back(eagle_test::make_tensor(j));
  if (c.has("error")) {
    try {
      (void)it->second(inputs, c["attrs"]);
      FAIL("TensorFlow raised " << c["error"]["type"].str() << ", eagle did not");
    } catch (const eagle::Error& e) {
      CHECK(std::string(eagle::error_code_name(e.code())) ==
            eagle_test::code_spelling(c["error"]["type"].str()));
      CHECK(std::string(e.what()) == c["error"]["message"].str());
    }
  } else {
    eagle_test::check_values(it->second(inputs, c["attrs"]), c["result"], c["tolerance"].number());
  }
}

const Json& fixture() {
  static const Json json = Json::parse_file(EAGLE_FIXTURE_DIR "/tf_ops.json");
  return json;
}

}  // namespace

TEST_CASE("the fixture was written by TensorFlow and covers the issue's cases") {
  CHECK(fixture()["generator"].str() == "tests/tools/gen_tf_fixture.py");
  CHECK(fixture()["tensorflow"].str() == "2.21.0");
  CHECK(fixture()["cases"].array().size() >= 260u);
}

TEST_CASE("eagle gives TensorFlow's values and errors on the CPU") {
  auto scope = eagle::device("/CPU:0");
  for (const Json& c : fixture()["cases"].array()) run_case(c);
}

TEST_CASE("eagle gives TensorFlow's values and errors on GPU:0") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");  // soft placement: ops without a GPU kernel run on the CPU
  for (const Json& c : fixture()["cases"].array()) run_case(c);
}

TEST_CASE("the JSON reader reads what the generator writes, and refuses what it cannot") {
  const Json j = Json::parse(R"({"a": [1, -2.5e3, "x\"y", true, null], "b": {}})");
  CHECK(j["a"].array().size() == 5u);
  CHECK(j["a"].array()[1].number() == -2500);
  CHECK(j["a"].array()[2].str() == "x\"y");
  CHECK(j["a"].array()[4].is_null());
  CHECK(Json::parse("-9223372036854775808").integer() == std::numeric_limits<long long>::min());
  CHECK_THROWS_AS(Json::parse("[1, 2"), std::runtime_error);
  CHECK_THROWS_AS(Json::parse("{\"a\" 1}"), std::runtime_error);
}
