// Device names (docs/guide.md, "Device names"): parse, merge, match and print
// "/job:x/replica:0/task:0/device:GPU:0".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace eagle {

// A parsed, possibly partial device specification. Unset fields (std::nullopt) match anything.
struct DeviceName {
  std::optional<std::string> job;
  std::optional<std::int64_t> replica;
  std::optional<std::int64_t> task;
  std::optional<std::string> type;  // "CPU", "GPU" (upper-cased), or another spelling kept as is
  std::optional<std::int64_t> id;

  // Throws InvalidArgumentError "Malformed device specification '<text>'".
  static DeviceName parse(std::string_view text);
  // The same grammar without exceptions: std::nullopt for a malformed text.
  static std::optional<DeviceName> try_parse(std::string_view text) noexcept;

  // A full name: "/job:localhost/replica:0/task:0/device:<type>:<id>".
  static DeviceName local(std::string_view type, std::int64_t id);

  bool empty() const { return !job && !replica && !task && !type && !id; }
  bool fully_specified() const { return job && replica && task && type && id; }

  // Canonical text: only the set fields, in the order job, replica, task, device.
  // A type without id prints as "/device:GPU:*"; nothing set prints as "".
  std::string to_string() const;

  // This spec with every field that `inner` sets replaced by inner's value (scope nesting).
  DeviceName merged_with(const DeviceName& inner) const;

  // True when every field set in `spec` equals this name's field.
  bool matches(const DeviceName& spec) const;

  friend bool operator==(const DeviceName& a, const DeviceName& b) {
    return a.job == b.job && a.replica == b.replica && a.task == b.task && a.type == b.type &&
           a.id == b.id;
  }
  friend bool operator!=(const DeviceName& a, const DeviceName& b) { return !(a == b); }
};

// Prints to_string(), the canonical text (fmt: include eagle/format.hpp).
std::ostream& operator<<(std::ostream& os, const DeviceName& name);

}  // namespace eagle
