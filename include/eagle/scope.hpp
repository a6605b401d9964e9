// Device scopes (docs/guide.md, "Devices"): a thread-local stack of merged device specifications.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace eagle {

// RAII guard returned by eagle::device(). It cannot be copied or moved: the scope ends where it
// was opened. See Note [Scope nesting errors] in src/runtime/scope_stack.cpp.
class [[nodiscard]] DeviceScope {
 public:
  explicit DeviceScope(std::string_view spec);
  explicit DeviceScope(std::nullopt_t);  // automatic placement inside the extent
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  DeviceScope(DeviceScope&&) = delete;
  DeviceScope& operator=(DeviceScope&&) = delete;

  // Leaves the scope now; throws FailedPreconditionError when an inner scope is still open.
  // The destructor does the same without throwing (the error surfaces at the next scope or op).
  void exit();

 private:
  std::uint64_t token_;  // identifies this guard's entry on its thread's stack
  bool exited_ = false;
};

inline DeviceScope device(std::string_view spec) { return DeviceScope(spec); }
inline DeviceScope device(const char* spec) {
  return spec ? DeviceScope(std::string_view(spec)) : DeviceScope(std::nullopt);
}
inline DeviceScope device(std::nullptr_t) { return DeviceScope(std::nullopt); }
inline DeviceScope device(std::nullopt_t) { return DeviceScope(std::nullopt); }

// Runs fn inside a device scope and returns what it returns.
template <class Fn>
decltype(auto) with_device(std::string_view spec, Fn&& fn) {
  DeviceScope scope(spec);
  return std::forward<Fn>(fn)();
}

// The current thread's merged device specification, canonical ("" when there is no scope).
std::string current_device_spec();

}  // namespace eagle
