// The run-time NCCL loader of the CUDA backend (Note [NCCL on demand] in
// backends/cuda/nccl_library.hpp), without a GPU: an absent library is a status, never a throw;
// EAGLE_NCCL_LIBRARY names the library, loaded once per process; an installed NCCL resolves every
// entry point. Each TEST_CASE runs in its own process under ctest, so each sees nccl()'s first
// load.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"
#include "nccl_library.hpp"

namespace {

const char kAbsent[] = "libnccl-eagle-absent.so.2";

}  // namespace

TEST_CASE("an NCCL that does not exist is a status with dlopen's reason, not an exception") {
  const eagle::cuda::NcclLoad load = eagle::cuda::load_nccl(kAbsent);
  CHECK_FALSE(load.library);
  CHECK_THAT(load.error,
             Catch::StartsWith(std::string(kAbsent) + ": cannot open shared object file"));
  // With a fallback directory both attempts are named.
  const eagle::cuda::NcclLoad twice = eagle::cuda::load_nccl(kAbsent, "/nonexistent-dir");
  CHECK_FALSE(twice.library);
  CHECK_THAT(twice.error, Catch::Contains(std::string("; /nonexistent-dir/") + kAbsent));
  // A library without NCCL's entry points.
  const eagle::cuda::NcclLoad not_nccl = eagle::cuda::load_nccl("libm.so.6");
  CHECK_FALSE(not_nccl.library);
  CHECK(not_nccl.error == "libm.so.6: the library has no entry point ncclCommInitAll");
}

TEST_CASE("EAGLE_NCCL_LIBRARY names the library, loaded once per process from any thread") {
  ::setenv("EAGLE_NCCL_LIBRARY", kAbsent, 1);
  std::vector<const eagle::cuda::NcclLoad*> seen(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&seen, i] { seen[i] = &eagle::cuda::nccl(); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto* load : seen) CHECK(load == seen[0]);
  CHECK_FALSE(seen[0]->library);
  CHECK_THAT(seen[0]->error, Catch::StartsWith(kAbsent));
  // Kept: a later change of the variable changes nothing.
  ::setenv("EAGLE_NCCL_LIBRARY", "libnccl.so.2", 1);
  CHECK(&eagle::cuda::nccl() == seen[0]);
  CHECK_FALSE(eagle::cuda::nccl().library);
}

TEST_CASE("NCCL version codes print as NCCL's own version strings") {
  CHECK(eagle::cuda::nccl_version_string(22809) == "2.28.9");
  CHECK(eagle::cuda::nccl_version_string(21803) == "2.18.3");
  CHECK(eagle::cuda::nccl_version_string(2708) == "2.7.8");
}

TEST_CASE("an installed NCCL resolves every entry point, its version, and its error texts") {
  const std::filesystem::path installed = std::filesystem::path(EAGLE_NCCL_DIR) / "libnccl.so.2";
  if (!std::filesystem::exists(installed)) {
    WARN("no NCCL at " << installed << ": nothing to load");
    return;
  }
  const eagle::cuda::NcclLoad load = eagle::cuda::load_nccl("libnccl.so.2", EAGLE_NCCL_DIR);
  REQUIRE(load.library);
  CHECK(load.error.empty());
  const eagle::cuda::NcclLibrary& nccl = *load.library;
  CHECK(nccl.version >= 20000);
  CHECK_THAT(eagle::cuda::nccl_version_string(nccl.version), Catch::StartsWith("2."));
  // The process-wide load finds the same library (no EAGLE_NCCL_LIBRARY in this process).
  ::unsetenv("EAGLE_NCCL_LIBRARY");
  REQUIRE(eagle::cuda::nccl().library);
  CHECK(eagle::cuda::nccl().library->version == nccl.version);
  // Errors: NCCL's text, InvalidArgumentError for misuse, InternalError otherwise.
  const std::string invalid = nccl.error_string(eagle::cuda::kNcclInvalidArgument);
  CHECK_FALSE(invalid.empty());
  CHECK_THROWS_MATCHES(eagle::cuda::check_nccl(nccl, eagle::cuda::kNcclInvalidArgument, "call"),
                       eagle::InvalidArgumentError, Catch::Message("call failed: " + invalid));
  CHECK_THROWS_MATCHES(
      eagle::cuda::check_nccl(nccl, 1, "ncclCommInitAll"), eagle::InternalError,
      Catch::Message(std::string("ncclCommInitAll failed: ") + nccl.error_string(1)));
  CHECK_NOTHROW(eagle::cuda::check_nccl(nccl, eagle::cuda::kNcclSuccess, "call"));
}
