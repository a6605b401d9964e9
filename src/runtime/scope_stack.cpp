#include "runtime/scope_stack.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "eagle/errors.hpp"
#include "eagle/scope.hpp"
#include "runtime/context.hpp"
#include "runtime/device.hpp"

namespace eagle::runtime {
namespace {

// Note [Scope nesting errors]
// A DeviceScope cannot be copied or moved, yet it can still end out of order: a guard held in a
// std::optional or on the heap may be destroyed while an inner scope lives, possibly on another
// thread. Destructors must not throw (that would terminate), so the guard's entry is removed
// right away when it lives on the destroying thread's stack, or marked abandoned for its owner
// thread to drop, and a violation is recorded. The next scope operation or op on the affected
// thread throws FailedPreconditionError. DeviceScope::exit() reports it immediately instead.
// No thread ever touches another thread's stack.

std::mutex g_abandoned_mutex;
std::unordered_set<std::uint64_t> g_abandoned;  // tokens of guards destroyed on a foreign thread
std::atomic<int> g_abandoned_count{0};
std::atomic<std::uint64_t> g_next_token{1};

std::mutex g_intern_mutex;
std::unordered_map<std::string, std::uint32_t> g_spec_ids;

std::uint32_t intern_spec(const DeviceName& spec) {
  if (spec.empty()) return 0;
  std::lock_guard<std::mutex> lock(g_intern_mutex);
  auto [it, inserted] =
      g_spec_ids.emplace(spec.to_string(), static_cast<std::uint32_t>(g_spec_ids.size() + 1));
  return it->second;
}

void drop_abandoned_entries(ScopeStack& stack) {
  std::lock_guard<std::mutex> lock(g_abandoned_mutex);
  auto& entries = stack.entries;
  for (auto it = entries.begin(); it != entries.end();) {
    if (g_abandoned.erase(it->token)) {
      g_abandoned_count.fetch_sub(1);
      stack.nesting_violated = true;
      it = entries.erase(it);
    } else {
      ++it;
    }
  }
}

constexpr const char* kNestingMessage = "Exiting device scope without proper scope nesting";

// Removes the entry owned by `token`. Returns false when the exit was out of order.
bool remove_entry(std::uint64_t token) {
  ScopeStack& stack = this_thread_scopes();
  auto& entries = stack.entries;
  if (!entries.empty() && entries.back().token == token) {
    entries.pop_back();
    return true;
  }
  auto it = std::find_if(entries.begin(), entries.end(),
                         [token](const ScopeEntry& e) { return e.token == token; });
  if (it != entries.end()) {
    entries.erase(it);
  } else {
    std::lock_guard<std::mutex> lock(g_abandoned_mutex);
    g_abandoned.insert(token);
    g_abandoned_count.fetch_add(1);
  }
  stack.nesting_violated = true;
  return false;
}

std::uint64_t push_scope(const std::optional<DeviceName>& requested) {
  check_scope_nesting();
  Context::get();  // a scope initializes the runtime (docs/guide.md, "Configuring devices")
  ScopeStack& stack = this_thread_scopes();
  DeviceName merged;
  if (requested) {
    const DeviceName* outer = stack.top_spec();
    if (outer) {
      merged = outer->merged_with(*requested);
    } else if (!requested->empty()) {
      // At top level a spec is completed from the host device, as TensorFlow does:
      // "/GPU:1" -> "/job:localhost/replica:0/task:0/device:GPU:1".
      merged = Context::get().host_device().parsed_name().merged_with(*requested);
    }
  }
  const std::uint64_t token = g_next_token.fetch_add(1);
  stack.entries.push_back(ScopeEntry{merged, intern_spec(merged), token});
  return token;
}

}  // namespace

ScopedDevice::ScopedDevice(Device& device) {
  check_scope_nesting();
  ScopeStack& stack = this_thread_scopes();
  std::uint32_t id = device.scope_spec_id_.load(std::memory_order_acquire);
  if (id == 0) {  // first use of this device in a scope: intern once, under the lock
    id = intern_spec(device.parsed_name());
    device.scope_spec_id_.store(id, std::memory_order_release);
  }
  token_ = g_next_token.fetch_add(1, std::memory_order_relaxed);
  stack.entries.push_back(ScopeEntry{device.parsed_name(), id, token_});
}

ScopedDevice::~ScopedDevice() { remove_entry(token_); }

namespace {
// The thread's stack, once made: a constant-initialized initial-exec pointer, read with one
// %fs-relative load by every op (the stack itself, a thread_local with a destructor in a shared
// library, cost a __tls_get_addr call per access).
__attribute__((tls_model("initial-exec"))) thread_local ScopeStack* t_scopes = nullptr;

struct ThreadScopes {
  ScopeStack stack;
  ~ThreadScopes() { t_scopes = nullptr; }
};

ScopeStack& make_this_thread_scopes() {
  thread_local ThreadScopes scopes;  // destroyed at the thread's exit
  t_scopes = &scopes.stack;
  return scopes.stack;
}
}  // namespace

ScopeStack& this_thread_scopes() {
  if (ScopeStack* stack = t_scopes) return *stack;
  return make_this_thread_scopes();
}

void check_scope_nesting() {
  ScopeStack& stack = this_thread_scopes();
  if (g_abandoned_count.load(std::memory_order_relaxed) != 0) drop_abandoned_entries(stack);
  if (stack.nesting_violated) {
    stack.nesting_violated = false;
    throw FailedPreconditionError(kNestingMessage);
  }
}

}  // namespace eagle::runtime

namespace eagle {

DeviceScope::DeviceScope(std::string_view spec)
    : token_(runtime::push_scope(DeviceName::parse(spec))) {}

DeviceScope::DeviceScope(std::nullopt_t) : token_(runtime::push_scope(std::nullopt)) {}

DeviceScope::~DeviceScope() {
  if (!exited_) runtime::remove_entry(token_);
}

void DeviceScope::exit() {
  if (exited_) return;
  exited_ = true;
  if (!runtime::remove_entry(token_)) runtime::check_scope_nesting();
}

std::string current_device_spec() {
  runtime::check_scope_nesting();
  const DeviceName* spec = runtime::this_thread_scopes().top_spec();
  return spec ? spec->to_string() : std::string();
}

}  // namespace eagle
