// eagle::io::Json (include/eagle/io/json.hpp): what Keras's config.json files hold, read and
// written back in Python's json form, and malformed text as DataLossError with the offset.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "eagle/errors.hpp"
#include "eagle/io/json.hpp"

namespace {

using eagle::io::Json;

std::string parse_error(const std::string& text) {
  try {
    Json::parse(text);
  } catch (const eagle::DataLossError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("json parses Keras's config values with their types") {
  const Json v = Json::parse(
      R"( {"name": "conv2d", "filters": 32, "kernel_size": [3, 3], "momentum": 0.99,
           "use_bias": true, "seed": null, "epsilon": 1e-3, "big": -9223372036854775808,
           "huge": 1e30, "nested": {"a": []}} )");
  REQUIRE(v.is_object());
  CHECK(v.find("name")->as_string() == "conv2d");
  CHECK(v.find("filters")->is_integer());
  CHECK(v.find("filters")->as_integer() == 32);
  CHECK(v.find("filters")->as_number() == 32.0);
  CHECK(v.find("kernel_size")->as_array().size() == 2);
  CHECK_FALSE(v.find("momentum")->is_integer());
  CHECK(v.find("momentum")->as_number() == 0.99);
  CHECK(v.find("use_bias")->as_bool());
  CHECK(v.find("seed")->is_null());
  CHECK(v.find("epsilon")->as_number() == 0.001);
  CHECK(v.find("big")->as_integer() == INT64_MIN);
  CHECK(v.find("huge")->as_number() == 1e30);
  CHECK(v.find("nested")->find("a")->as_array().empty());
  CHECK(v.find("missing") == nullptr);
  // Members keep the file's order.
  CHECK(v.as_object()[0].first == "name");
  CHECK(v.as_object()[9].first == "nested");
}

TEST_CASE("json strings: escapes and UTF-8") {
  const Json v = Json::parse(R"(["a\"b\\c\/d\n\t\r\b\f", "\u00e9\u20ac", "\ud83d\ude00", "é"])");
  const Json::Array& a = v.as_array();
  CHECK(a[0].as_string() == "a\"b\\c/d\n\t\r\b\f");
  CHECK(a[1].as_string() == "\xc3\xa9\xe2\x82\xac");
  CHECK(a[2].as_string() == "\xf0\x9f\x98\x80");
  CHECK(a[3].as_string() == "\xc3\xa9");
  CHECK(Json(std::string("q\"\\\n\x01")).dump() == R"("q\"\\\n\u0001")");
}

TEST_CASE("json dump writes Python's json.dumps form and reads back equal") {
  Json config = Json::object()
                    .set("name", "dense")
                    .set("units", 10)
                    .set("rate", 0.25)
                    .set("momentum", 1.0)
                    .set("use_bias", false)
                    .set("seed", nullptr)
                    .set("shape", Json(Json::Array{Json(), 28, 28, 1}));
  CHECK(config.dump() ==
        R"({"name": "dense", "units": 10, "rate": 0.25, "momentum": 1.0, "use_bias": false, )"
        R"("seed": null, "shape": [null, 28, 28, 1]})");
  CHECK(Json::parse(config.dump()) == config);
  CHECK(Json(0.1).dump() == "0.1");
  CHECK(Json(1e-7).dump() == "1e-07");
  CHECK(Json(std::nan("")).dump() == "NaN");
  CHECK(std::isinf(Json::parse("-Infinity").as_number()));
  // set replaces a member in place; a copy keeps the old value.
  const Json before = config;
  config.set("units", 3);
  CHECK(config.find("units")->as_integer() == 3);
  CHECK(before.find("units")->as_integer() == 10);
  CHECK(config.as_object().size() == 7);
  CHECK(Json(1) != Json(1.0));  // Python's 1 and 1.0 are written differently
}

TEST_CASE("json errors: malformed text and wrong types") {
  CHECK(parse_error("") == "invalid JSON at offset 0: unexpected end of the text");
  CHECK(parse_error("{\"a\": 1,}") == "invalid JSON at offset 8: expected a string key");
  CHECK(parse_error("{\"a\" 1}") == "invalid JSON at offset 5: expected ':'");
  CHECK(parse_error("[1 2]") == "invalid JSON at offset 3: expected ',' or ']'");
  CHECK(parse_error("{\"a\": 1 \"b\"}") == "invalid JSON at offset 8: expected ',' or '}'");
  CHECK(parse_error("\"abc") == "invalid JSON at offset 4: unterminated string");
  CHECK(parse_error("\"\\x\"") == "invalid JSON at offset 2: invalid escape '\\x'");
  CHECK(parse_error("tru") == "invalid JSON at offset 0: unexpected character 't'");
  CHECK(parse_error("-") == "invalid JSON at offset 1: expected a digit");
  CHECK(parse_error("1.") == "invalid JSON at offset 2: expected a digit after '.'");
  CHECK(parse_error("[] x") == "invalid JSON at offset 3: trailing characters after the document");
  CHECK(parse_error(std::string(600, '[')) ==
        "invalid JSON at offset 513: nested deeper than 512 levels");
  CHECK_THROWS_MATCHES(Json::parse("\"s\"").as_integer(), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("JSON: expected an integer, got a string"));
  CHECK_THROWS_MATCHES(Json::parse("2.5").as_integer(), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("JSON: expected an integer, got a number"));
  CHECK_THROWS_MATCHES(Json(3).as_array(), eagle::InvalidArgumentError,
                       Catch::Matchers::Message("JSON: expected an array, got an integer"));
  CHECK_THROWS_AS(Json(3).set("a", 1), eagle::InvalidArgumentError);
}
