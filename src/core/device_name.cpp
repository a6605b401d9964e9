// Device names (docs/guide.md, "Device names"). A small hand-written scanner rather than
// std::regex: the grammar is tiny, try_parse must be noexcept and survive arbitrary bytes, and
// error cases stay explicit.
#include "eagle/device_name.hpp"

#include <limits>
#include <ostream>
#include <utility>

#include "eagle/errors.hpp"

namespace eagle {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// cpu/gpu in the two exact casings are canonicalised; anything else is kept so that it simply
// matches no device later instead of being silently rewritten.
std::string canonical_type(std::string_view type) {
  if (type == "cpu" || type == "CPU") return "CPU";
  if (type == "gpu" || type == "GPU") return "GPU";
  return std::string(type);
}

// A cursor over the text. Every consume_* either advances past what it accepted and returns true,
// or returns false; callers give up on the first false, so a failed call's position never matters.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ == text_.size(); }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  bool consume(std::string_view prefix) {
    if (text_.substr(pos_).substr(0, prefix.size()) != prefix) return false;
    pos_ += prefix.size();
    return true;
  }

  // NAME or TYPE: a letter, then letters, digits or '_'; "*" leaves `out` unset.
  bool consume_identifier(std::optional<std::string>& out) {
    if (consume("*")) {
      out.reset();
      return true;
    }
    if (!(pos_ < text_.size() && is_letter(text_[pos_]))) return false;
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (is_letter(text_[pos_]) || is_digit(text_[pos_]) || text_[pos_] == '_')) {
      ++pos_;
    }
    out = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  // N or ID: unsigned decimal that fits int64 (overflow is malformed, not wrapped); "*" = unset.
  bool consume_number(std::optional<std::int64_t>& out) {
    if (consume("*")) {
      out.reset();
      return true;
    }
    if (!(pos_ < text_.size() && is_digit(text_[pos_]))) return false;
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::int64_t value = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      const int digit = text_[pos_] - '0';
      if (value > (kMax - digit) / 10) return false;
      value = value * 10 + digit;
      ++pos_;
    }
    out = value;
    return true;
  }

  // TYPE then an optional ":ID"; the device field sets type and id together, so a later
  // "/device:CPU" also clears an id given earlier (later field wins as a whole).
  bool consume_type_and_id(DeviceName& name) {
    if (!consume_identifier(name.type)) return false;
    if (name.type) name.type = canonical_type(*name.type);
    name.id.reset();
    if (consume(":")) return consume_number(name.id);
    return true;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// Bare local form without a leading slash: TYPE, TYPE:ID or TYPE:* (e.g. "GPU:1").
bool parse_local(std::string_view text, DeviceName& name) {
  Scanner s(text);
  if (s.at('*')) return false;  // a bare "*" names nothing; only a real type may start it
  return s.consume_type_and_id(name) && s.at_end();
}

// Full form: a sequence of "/field:value", any order, each optional, later wins.
bool parse_full(std::string_view text, DeviceName& name) {
  Scanner s(text);
  while (!s.at_end()) {
    if (!s.consume("/")) return false;
    bool ok;
    if (s.consume("job:")) {
      ok = s.consume_identifier(name.job);
    } else if (s.consume("replica:")) {
      ok = s.consume_number(name.replica);
    } else if (s.consume("task:")) {
      ok = s.consume_number(name.task);
    } else if (s.consume("device:")) {
      ok = s.consume_type_and_id(name);
    } else {
      // Legacy "/cpu:N" etc., only in these four exact spellings; N is required (or "*").
      ok = false;
      for (std::string_view legacy : {"cpu:", "CPU:", "gpu:", "GPU:"}) {
        if (s.consume(legacy)) {
          name.type = canonical_type(legacy.substr(0, 3));
          ok = s.consume_number(name.id);
          break;
        }
      }
    }
    // Each field must end exactly where the next '/' (or the text) begins.
    if (!ok || !(s.at_end() || s.at('/'))) return false;
  }
  return true;
}

std::string malformed_message(std::string_view text) {
  return "Malformed device specification '" + std::string(text) + "'";
}

}  // namespace

std::optional<DeviceName> DeviceName::try_parse(std::string_view text) noexcept {
  // Only allocation can throw below; report it as "not parsed" to keep the noexcept promise.
  try {
    DeviceName name;
    if (text.empty() || text == "/") return name;
    const bool ok = text.front() == '/' ? parse_full(text, name) : parse_local(text, name);
    if (!ok) return std::nullopt;
    return name;
  } catch (...) {
    return std::nullopt;
  }
}

DeviceName DeviceName::parse(std::string_view text) {
  std::optional<DeviceName> name = try_parse(text);
  if (!name) throw InvalidArgumentError(malformed_message(text));
  return *std::move(name);
}

DeviceName DeviceName::local(std::string_view type, std::int64_t id) {
  DeviceName name;
  name.job = "localhost";
  name.replica = 0;
  name.task = 0;
  name.type = canonical_type(type);  // so local("gpu", 0) equals parse("/gpu:0")
  name.id = id;
  return name;
}

std::string DeviceName::to_string() const {
  std::string out;
  if (job) out += "/job:" + *job;
  if (replica) out += "/replica:" + std::to_string(*replica);
  if (task) out += "/task:" + std::to_string(*task);
  // The device field always prints both parts so that it parses back to the same fields.
  if (type || id) {
    out += "/device:" + (type ? *type : std::string("*"));
    out += ":" + (id ? std::to_string(*id) : std::string("*"));
  }
  return out;
}

DeviceName DeviceName::merged_with(const DeviceName& inner) const {
  DeviceName out = *this;
  if (inner.job) out.job = inner.job;
  if (inner.replica) out.replica = inner.replica;
  if (inner.task) out.task = inner.task;
  if (inner.type) out.type = inner.type;
  if (inner.id) out.id = inner.id;
  return out;
}

bool DeviceName::matches(const DeviceName& spec) const {
  return (!spec.job || spec.job == job) && (!spec.replica || spec.replica == replica) &&
         (!spec.task || spec.task == task) && (!spec.type || spec.type == type) &&
         (!spec.id || spec.id == id);
}

std::ostream& operator<<(std::ostream& os, const DeviceName& name) {
  return os << name.to_string();
}

}  // namespace eagle
