// Device names (docs/guide.md, "Device names"): parse table, printing, round trips, merge, match.
#include "eagle/device_name.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "eagle/errors.hpp"

namespace {

using eagle::DeviceName;
using std::nullopt;

// Every field spelled out, so a failing CHECK shows which one differs.
std::string dump(const DeviceName& n) {
  auto str = [](const auto& v) -> std::string {
    if (!v) return "<unset>";
    if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, std::string>) {
      return "'" + *v + "'";
    } else {
      return std::to_string(*v);
    }
  };
  return "job=" + str(n.job) + " replica=" + str(n.replica) + " task=" + str(n.task) +
         " type=" + str(n.type) + " id=" + str(n.id);
}

DeviceName name(std::optional<std::string> job, std::optional<std::int64_t> replica,
                std::optional<std::int64_t> task, std::optional<std::string> type,
                std::optional<std::int64_t> id) {
  return DeviceName{std::move(job), replica, task, std::move(type), id};
}

struct Case {
  std::string text;
  std::optional<DeviceName> expected;  // nullopt: malformed
  std::string printed;                 // canonical to_string() of a valid entry
};

Case valid(std::string text, DeviceName expected, std::string printed) {
  return Case{std::move(text), std::move(expected), std::move(printed)};
}
Case malformed(std::string text) { return Case{std::move(text), nullopt, ""}; }

const std::string kFull = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr std::int64_t kInt64Max = 9223372036854775807;

std::vector<Case> cases() {
  using namespace std::string_literals;
  return {
      // Full names and every subset, any order.
      valid(kFull, name("localhost", 0, 0, "GPU", 0), kFull),
      valid("/job:worker/replica:2/task:3/device:CPU:7", name("worker", 2, 3, "CPU", 7),
            "/job:worker/replica:2/task:3/device:CPU:7"),
      valid("/device:GPU:0/task:0/replica:0/job:localhost", name("localhost", 0, 0, "GPU", 0),
            kFull),
      valid("/task:1/job:worker", name("worker", nullopt, 1, nullopt, nullopt),
            "/job:worker/task:1"),
      valid("/job:worker", name("worker", nullopt, nullopt, nullopt, nullopt), "/job:worker"),
      valid("/replica:5", name(nullopt, 5, nullopt, nullopt, nullopt), "/replica:5"),
      valid("/task:12", name(nullopt, nullopt, 12, nullopt, nullopt), "/task:12"),
      valid("/job:w_1/replica:0", name("w_1", 0, nullopt, nullopt, nullopt), "/job:w_1/replica:0"),
      valid("/job:A9_", name("A9_", nullopt, nullopt, nullopt, nullopt), "/job:A9_"),
      valid("/device:GPU:1", name(nullopt, nullopt, nullopt, "GPU", 1), "/device:GPU:1"),
      valid("/device:CPU:0", name(nullopt, nullopt, nullopt, "CPU", 0), "/device:CPU:0"),
      // Type only, and '*' for any value.
      valid("/device:GPU", name(nullopt, nullopt, nullopt, "GPU", nullopt), "/device:GPU:*"),
      valid("/device:GPU:*", name(nullopt, nullopt, nullopt, "GPU", nullopt), "/device:GPU:*"),
      valid("/device:*:3", name(nullopt, nullopt, nullopt, nullopt, 3), "/device:*:3"),
      valid("/device:*", DeviceName{}, ""),
      valid("/device:*:*", DeviceName{}, ""),
      valid("/job:*", DeviceName{}, ""),
      valid("/replica:*/task:*", DeviceName{}, ""),
      valid("/job:*/replica:1/task:*/device:GPU:*", name(nullopt, 1, nullopt, "GPU", nullopt),
            "/replica:1/device:GPU:*"),
      // Type spelling: only cpu/CPU/gpu/GPU are canonical; others are kept as written.
      valid("/device:gpu:2", name(nullopt, nullopt, nullopt, "GPU", 2), "/device:GPU:2"),
      valid("/device:cpu:0", name(nullopt, nullopt, nullopt, "CPU", 0), "/device:CPU:0"),
      valid("/device:Gpu:0", name(nullopt, nullopt, nullopt, "Gpu", 0), "/device:Gpu:0"),
      valid("/device:TPU:0", name(nullopt, nullopt, nullopt, "TPU", 0), "/device:TPU:0"),
      valid("/device:XLA_GPU:1", name(nullopt, nullopt, nullopt, "XLA_GPU", 1),
            "/device:XLA_GPU:1"),
      // Legacy forms, alone and as a field of a full name.
      valid("/cpu:0", name(nullopt, nullopt, nullopt, "CPU", 0), "/device:CPU:0"),
      valid("/CPU:1", name(nullopt, nullopt, nullopt, "CPU", 1), "/device:CPU:1"),
      valid("/gpu:0", name(nullopt, nullopt, nullopt, "GPU", 0), "/device:GPU:0"),
      valid("/GPU:3", name(nullopt, nullopt, nullopt, "GPU", 3), "/device:GPU:3"),
      valid("/GPU:*", name(nullopt, nullopt, nullopt, "GPU", nullopt), "/device:GPU:*"),
      valid("/job:localhost/replica:0/task:0/gpu:0", name("localhost", 0, 0, "GPU", 0), kFull),
      valid("/job:localhost/replica:0/task:0/CPU:1", name("localhost", 0, 0, "CPU", 1),
            "/job:localhost/replica:0/task:0/device:CPU:1"),
      // Bare local forms.
      valid("CPU:0", name(nullopt, nullopt, nullopt, "CPU", 0), "/device:CPU:0"),
      valid("GPU:1", name(nullopt, nullopt, nullopt, "GPU", 1), "/device:GPU:1"),
      valid("GPU", name(nullopt, nullopt, nullopt, "GPU", nullopt), "/device:GPU:*"),
      valid("GPU:*", name(nullopt, nullopt, nullopt, "GPU", nullopt), "/device:GPU:*"),
      valid("gpu:4", name(nullopt, nullopt, nullopt, "GPU", 4), "/device:GPU:4"),
      valid("TPU:0", name(nullopt, nullopt, nullopt, "TPU", 0), "/device:TPU:0"),
      // Empty specs.
      valid("", DeviceName{}, ""),
      valid("/", DeviceName{}, ""),
      // Repeated fields: the later one wins; the device field sets type and id together.
      valid("/job:a/job:b", name("b", nullopt, nullopt, nullopt, nullopt), "/job:b"),
      valid("/job:a/job:*", DeviceName{}, ""),
      valid("/device:GPU:0/device:CPU", name(nullopt, nullopt, nullopt, "CPU", nullopt),
            "/device:CPU:*"),
      valid("/gpu:1/device:*:2", name(nullopt, nullopt, nullopt, nullopt, 2), "/device:*:2"),
      valid("/task:1/task:2", name(nullopt, nullopt, 2, nullopt, nullopt), "/task:2"),
      // Numbers: leading zeros are plain decimal; int64 max fits.
      valid("/replica:007", name(nullopt, 7, nullopt, nullopt, nullopt), "/replica:7"),
      valid("/task:9223372036854775807", name(nullopt, nullopt, kInt64Max, nullopt, nullopt),
            "/task:9223372036854775807"),
      valid("GPU:9223372036854775807", name(nullopt, nullopt, nullopt, "GPU", kInt64Max),
            "/device:GPU:9223372036854775807"),

      // Malformed.
      malformed("GPU:0x"),
      malformed("/device:GPU:"),
      malformed("/job:1abc"),
      malformed("/bogus:3"),
      malformed("/job:"),
      malformed("//"),
      malformed("/device:GPU:-1"),
      malformed("/replica:1.5"),
      malformed("/job:localhost/"),
      malformed("/device:GPU:0/"),
      malformed("/job:a\0b"s),
      malformed("\0"s),
      malformed("/device:GPU:\xc3\xa9"),
      malformed("/job:caf\xc3\xa9"),
      malformed("/task:9223372036854775808"),
      malformed("GPU:99999999999999999999999"),
      malformed("/replica:+1"),
      malformed("/replica:"),
      malformed("/replica:a"),
      malformed("/device:"),
      malformed("/device:0"),
      malformed("/device:_GPU:0"),
      malformed("/device:GPU:0:1"),
      malformed("/device:GPU-1"),
      malformed("/job:a-b"),
      malformed("/job:a b"),
      malformed(" /job:a"),
      malformed("/job:a "),
      malformed("/JOB:a"),
      malformed("/Job:a"),
      malformed("/job"),
      malformed("job:a/"),
      malformed("/Cpu:0"),
      malformed("/Gpu:0"),
      malformed("/gpu"),
      malformed("/GPU"),
      malformed("/gpu:"),
      malformed("/gpu:x"),
      malformed("/tpu:0"),
      malformed("/device:GPU:0job:a"),
      malformed("/job:a//task:1"),
      malformed("device:GPU:0"),
      malformed("GPU:"),
      malformed("GPU:0:1"),
      malformed("*"),
      malformed("*:0"),
      malformed(":0"),
      malformed("0"),
      malformed("1GPU"),
      malformed("GPU/"),
      malformed("CPU:0/job:a"),
      malformed("/job:a*"),
      malformed("/job:**"),
      malformed("/replica:**"),
      malformed("/device:GPU:*0"),
  };
}

}  // namespace

TEST_CASE("device name table: parse and try_parse give the exact fields or the exact error",
          "[device_name]") {
  const std::vector<Case> table = cases();
  REQUIRE(table.size() >= 40);
  for (const Case& c : table) {
    INFO("text: '" << c.text << "' (" << c.text.size() << " bytes)");
    if (c.expected) {
      const std::optional<DeviceName> tried = DeviceName::try_parse(c.text);
      REQUIRE(tried.has_value());
      CHECK(dump(*tried) == dump(*c.expected));
      CHECK(*tried == *c.expected);
      CHECK(dump(DeviceName::parse(c.text)) == dump(*c.expected));
      CHECK(tried->to_string() == c.printed);
    } else {
      CHECK_FALSE(DeviceName::try_parse(c.text).has_value());
      try {
        DeviceName::parse(c.text);
        FAIL_CHECK("parse accepted a malformed text");
      } catch (const eagle::InvalidArgumentError& e) {
        // The text is quoted as given; what() is a C string, so it ends at an embedded NUL.
        const std::string message = "Malformed device specification '" + c.text + "'";
        CHECK(std::string(e.what()) == std::string(message.c_str()));
        CHECK(e.code() == eagle::ErrorCode::kInvalidArgument);
      }
    }
  }
}

TEST_CASE("the documented malformed examples throw InvalidArgumentError with the exact message",
          "[device_name]") {
  CHECK_THROWS_MATCHES(DeviceName::parse("GPU:0x"), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification 'GPU:0x'"));
  CHECK_THROWS_MATCHES(DeviceName::parse("/device:GPU:"), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification '/device:GPU:'"));
  CHECK_THROWS_MATCHES(DeviceName::parse("/job:1abc"), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification '/job:1abc'"));
  CHECK_THROWS_MATCHES(DeviceName::parse("/bogus:3"), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification '/bogus:3'"));
}

TEST_CASE("printing round trips: parse(to_string(x)) == x for every valid entry", "[device_name]") {
  for (const Case& c : cases()) {
    if (!c.expected) continue;
    INFO("text: '" << c.text << "'");
    const DeviceName x = DeviceName::parse(c.text);
    const std::string printed = x.to_string();
    CHECK(DeviceName::parse(printed) == x);
    CHECK(DeviceName::parse(printed).to_string() == printed);  // canonical text is a fixed point
  }
}

TEST_CASE("to_string prints only the set fields in canonical order", "[device_name]") {
  CHECK(DeviceName{}.to_string() == "");
  CHECK(DeviceName{}.empty());
  CHECK(DeviceName::local("GPU", 0).to_string() == kFull);
  CHECK(name(nullopt, nullopt, nullopt, "GPU", nullopt).to_string() == "/device:GPU:*");
  CHECK(name(nullopt, nullopt, nullopt, nullopt, 3).to_string() == "/device:*:3");
  CHECK(name("w", nullopt, 2, nullopt, nullopt).to_string() == "/job:w/task:2");
}

TEST_CASE("local builds a fully specified localhost name", "[device_name]") {
  const DeviceName gpu1 = DeviceName::local("GPU", 1);
  CHECK(dump(gpu1) == dump(name("localhost", 0, 0, "GPU", 1)));
  CHECK(gpu1.fully_specified());
  CHECK_FALSE(gpu1.empty());
  CHECK(DeviceName::local("CPU", 0).to_string() == "/job:localhost/replica:0/task:0/device:CPU:0");
  // The same spelling rule as parsing, so local("gpu", 0) is the device "/gpu:0" names.
  CHECK(DeviceName::local("gpu", 0) == DeviceName::local("GPU", 0));
  CHECK(DeviceName::local("TPU", 2).type == std::optional<std::string>("TPU"));
}

TEST_CASE("merging: inner fields override, unset inner fields keep the outer ones",
          "[device_name]") {
  const DeviceName cpu0 = DeviceName::local("CPU", 0);

  // "§2" in these section names: the merging of nested scopes (docs/guide.md, "Device names").
  SECTION("SEMANTICS §2: GPU inside GPU:1 stays GPU:1") {
    const DeviceName merged = DeviceName::parse("GPU:1").merged_with(DeviceName::parse("GPU"));
    CHECK(dump(merged) == dump(name(nullopt, nullopt, nullopt, "GPU", 1)));
    CHECK(merged.to_string() == "/device:GPU:1");
  }
  SECTION("SEMANTICS §2: /job:worker/task:1 at top level") {
    const DeviceName merged = cpu0.merged_with(DeviceName::parse("/job:worker/task:1"));
    CHECK(merged.to_string() == "/job:worker/replica:0/task:1/device:CPU:0");
  }
  SECTION("type and id merge independently") {
    CHECK(DeviceName::parse("GPU:1").merged_with(DeviceName::parse("CPU")).to_string() ==
          "/device:CPU:1");
    CHECK(cpu0.merged_with(DeviceName::parse("/device:*:3")) == DeviceName::local("CPU", 3));
    CHECK(cpu0.merged_with(DeviceName::parse("/gpu:1")) == DeviceName::local("GPU", 1));
  }
  SECTION("an inner spec sets every field it names") {
    CHECK(DeviceName::parse("/job:a/replica:1").merged_with(DeviceName::local("GPU", 2)) ==
          DeviceName::local("GPU", 2));
  }
  SECTION("empty specs are identities") {
    CHECK(cpu0.merged_with(DeviceName{}) == cpu0);
    CHECK(DeviceName{}.merged_with(cpu0) == cpu0);
    CHECK(cpu0.merged_with(DeviceName::parse("")) == cpu0);
    CHECK(cpu0.merged_with(DeviceName::parse("/job:*/device:*")) == cpu0);
  }
  SECTION("nested three deep") {
    const DeviceName merged = DeviceName::parse("/job:worker")
                                  .merged_with(DeviceName::parse("/GPU:0"))
                                  .merged_with(DeviceName::parse("/device:*:2"));
    CHECK(merged.to_string() == "/job:worker/device:GPU:2");
  }
  SECTION("merging a name with itself changes nothing") {
    for (const Case& c : cases()) {
      if (!c.expected) continue;
      INFO("text: '" << c.text << "'");
      CHECK(c.expected->merged_with(*c.expected) == *c.expected);
    }
  }
}

TEST_CASE("matches: every field set in the spec must be equal", "[device_name]") {
  const DeviceName gpu0 = DeviceName::local("GPU", 0);
  const DeviceName gpu1 = DeviceName::local("GPU", 1);
  const DeviceName cpu0 = DeviceName::local("CPU", 0);

  SECTION("every device answers to four names") {
    for (const char* spelling : {"/job:localhost/replica:0/task:0/device:GPU:0", "/device:GPU:0",
                                 "GPU:0", "/job:localhost/replica:0/task:0/gpu:0"}) {
      INFO("spec: " << spelling);
      const DeviceName spec = DeviceName::parse(spelling);
      CHECK(gpu0.matches(spec));
      CHECK_FALSE(gpu1.matches(spec));
      CHECK_FALSE(cpu0.matches(spec));
    }
  }
  SECTION("partial specs") {
    CHECK(gpu0.matches(DeviceName{}));
    CHECK(gpu0.matches(DeviceName::parse("GPU")));
    CHECK(gpu1.matches(DeviceName::parse("/GPU:*")));
    CHECK_FALSE(cpu0.matches(DeviceName::parse("GPU")));
    CHECK(gpu1.matches(DeviceName::parse("/device:*:1")));
    CHECK(cpu0.matches(DeviceName::parse("/device:*:0")));
    CHECK(gpu0.matches(DeviceName::parse("/job:localhost")));
    CHECK_FALSE(gpu0.matches(DeviceName::parse("/job:worker")));
    CHECK_FALSE(gpu0.matches(DeviceName::parse("/task:1")));
    CHECK_FALSE(gpu0.matches(DeviceName::parse("/replica:1")));
  }
  SECTION("other type spellings match no local device") {
    for (const char* spelling : {"/device:Gpu:0", "/device:TPU:0", "XLA_GPU:0"}) {
      INFO("spec: " << spelling);
      const DeviceName spec = DeviceName::parse(spelling);
      CHECK_FALSE(gpu0.matches(spec));
      CHECK_FALSE(cpu0.matches(spec));
    }
  }
  SECTION("a field set in the spec but unset in the name does not match") {
    CHECK_FALSE(DeviceName::parse("GPU").matches(DeviceName::parse("GPU:0")));
    CHECK(DeviceName::parse("GPU:0").matches(DeviceName::parse("GPU")));
  }
  SECTION("every parsed name matches itself") {
    for (const Case& c : cases()) {
      if (!c.expected) continue;
      INFO("text: '" << c.text << "'");
      CHECK(c.expected->matches(*c.expected));
    }
  }
}

TEST_CASE("try_parse survives arbitrary bytes without throwing", "[device_name]") {
  static_assert(noexcept(DeviceName::try_parse(std::string_view())));
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  // Every single byte, and every byte appended to a valid prefix.
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    const std::optional<DeviceName> single = DeviceName::try_parse(one);
    const bool letter = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
    CHECK(single.has_value() == (letter || b == '/'));  // a bare type, or the empty "/"
    (void)DeviceName::try_parse("/device:GPU:" + one);
    (void)DeviceName::try_parse("/job:a" + one);
  }
  CHECK_FALSE(DeviceName::try_parse(bytes).has_value());
}
