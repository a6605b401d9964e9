// When the elementwise loop writes its output with streaming (non-temporal) stores: Note
// [Streaming stores] in streaming_stores.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace eagle::cpu {

// True when an op whose inputs and output span `bytes` in all should stream its output. The
// first call with a large enough `bytes` decides the threshold for the process (from
// EAGLE_STREAMING_THRESHOLD, else by calibration); smaller ops never pay for that.
bool streaming_stores_pay_off(std::int64_t bytes);

// The working-set size (bytes) from which outputs are streamed, deciding it now if undecided;
// kNeverStream when they never are. Throws InvalidArgumentError for a bad
// EAGLE_STREAMING_THRESHOLD.
inline constexpr std::int64_t kNeverStream = INT64_MAX;
std::int64_t streaming_threshold_bytes();
// How the threshold was chosen, for benchmarks and logs: "EAGLE_STREAMING_THRESHOLD=...", or the
// calibration's timings.
std::string streaming_threshold_origin();

// The host's cache sizes in bytes as sysfs (else sysconf) reports them for CPU 0; 0 if unknown.
// `*_shared` is how many logical CPUs share one instance.
struct CacheSizes {
  std::int64_t l1d = 0, l2 = 0, l3 = 0;
  int l2_shared = 0, l3_shared = 0;
};
CacheSizes host_cache_sizes();

namespace detail {
// Parses EAGLE_STREAMING_THRESHOLD's value: a byte count with an optional K/KiB/M/MiB/G/GiB
// suffix, or "never". Throws InvalidArgumentError otherwise.
std::int64_t parse_streaming_threshold(const std::string& value);
}  // namespace detail

}  // namespace eagle::cpu
