// JSON reading and writing (src/io/json.hpp).
#include "eagle/io/json.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "eagle/errors.hpp"

namespace eagle::io {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Json document() {
    Json value = parse_value(0);
    skip_space();
    if (at_ != text_.size()) fail("trailing characters after the document");
    return value;
  }

 private:
  // Deeper nesting than this is refused, so a hostile file cannot overflow the stack.
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail(const std::string& what) const {
    throw DataLossError(fmt::format("invalid JSON at offset {}: {}", at_, what));
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool consume(const char* word) {
    const std::size_t n = std::char_traits<char>::length(word);
    if (text_.compare(at_, n, word) != 0) return false;
    at_ += n;
    return true;
  }

  Json parse_value(int depth) {
    if (depth > kMaxDepth) fail("nested deeper than 512 levels");
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end of the text");
    const char c = text_[at_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return Json(parse_string());
    if (consume("true")) return Json(true);
    if (consume("false")) return Json(false);
    if (consume("null")) return Json();
    // Python's json writes these for float('nan') and float('inf').
    if (consume("NaN")) return Json(std::numeric_limits<double>::quiet_NaN());
    if (consume("Infinity")) return Json(std::numeric_limits<double>::infinity());
    if (consume("-Infinity")) return Json(-std::numeric_limits<double>::infinity());
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    fail(fmt::format("unexpected character '{}'", c));
  }

  Json parse_object(int depth) {
    ++at_;  // {
    Json::Object members;
    skip_space();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return Json(std::move(members));
    }
    while (true) {
      skip_space();
      if (at_ >= text_.size() || text_[at_] != '"') fail("expected a string key");
      std::string key = parse_string();
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':') fail("expected ':'");
      ++at_;
      Json value = parse_value(depth + 1);
      // A repeated key keeps the last value, as Python's json does.
      bool replaced = false;
      for (auto& member : members) {
        if (member.first == key) {
          member.second = std::move(value);
          replaced = true;
          break;
        }
      }
      if (!replaced) members.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return Json(std::move(members));
      }
      fail("expected ',' or '}'");
    }
  }

  Json parse_array(int depth) {
    ++at_;  // [
    Json::Array items;
    skip_space();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return Json(std::move(items));
    }
    while (true) {
      items.push_back(parse_value(depth + 1));
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return Json(std::move(items));
      }
      fail("expected ',' or ']'");
    }
  }

  unsigned hex4() {
    if (at_ + 4 > text_.size()) fail("truncated \\u escape");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      value <<= 4;
      if (h >= '0' && h <= '9') {
        value |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        value |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        value |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        --at_;
        fail("invalid hexadecimal digit in a \\u escape");
      }
    }
    return value;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    ++at_;  // "
    std::string out;
    while (true) {
      if (at_ >= text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --at_;
        fail("control character in a string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) fail("unterminated string");
      const char e = text_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.compare(at_, 2, "\\u") == 0) {
            const std::size_t before = at_;
            at_ += 2;
            const unsigned low = hex4();
            if (low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else {
              at_ = before;  // a lone high surrogate, then another escape
            }
          }
          append_utf8(out, code);
          break;
        }
        default:
          --at_;
          fail(fmt::format("invalid escape '\\{}'", e));
      }
    }
  }

  Json parse_number() {
    const std::size_t start = at_;
    if (text_[at_] == '-') ++at_;
    const auto digits = [&] {
      const std::size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ - from;
    };
    if (digits() == 0) fail("expected a digit");
    bool integer = true;
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      integer = false;
      if (digits() == 0) fail("expected a digit after '.'");
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      integer = false;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (digits() == 0) fail("expected a digit in the exponent");
    }
    const std::string number = text_.substr(start, at_ - start);
    if (integer) {
      errno = 0;
      const long long value = std::strtoll(number.c_str(), nullptr, 10);
      if (errno != ERANGE) return Json(static_cast<std::int64_t>(value));
    }
    return Json(std::strtod(number.c_str(), nullptr));  // past int64: a float, as JavaScript
  }

  const std::string& text_;
  std::size_t at_ = 0;
};

void dump_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Python's repr of a float: the shortest text that reads back the same, with ".0" on integers.
std::string float_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void dump_value(std::string& out, const Json& value) {
  if (value.is_null()) {
    out += "null";
  } else if (value.is_bool()) {
    out += value.as_bool() ? "true" : "false";
  } else if (value.is_integer()) {
    out += std::to_string(value.as_integer());
  } else if (value.is_number()) {
    out += float_text(value.as_number());
  } else if (value.is_string()) {
    dump_string(out, value.as_string());
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const Json& item : value.as_array()) {
      if (!first) out += ", ";
      first = false;
      dump_value(out, item);
    }
    out += ']';
  } else {
    out += '{';
    bool first = true;
    for (const auto& [key, item] : value.as_object()) {
      if (!first) out += ", ";
      first = false;
      dump_string(out, key);
      out += ": ";
      dump_value(out, item);
    }
    out += '}';
  }
}

}  // namespace

Json Json::parse(const std::string& text) { return Parser(text).document(); }

std::string Json::dump() const {
  std::string out;
  dump_value(out, *this);
  return out;
}

const char* Json::type_name() const {
  if (is_null()) return "null";
  if (is_bool()) return "boolean";
  if (is_integer()) return "integer";
  if (is_number()) return "number";
  if (is_string()) return "string";
  if (is_array()) return "array";
  return "object";
}

void Json::require(bool ok, const char* expected) const {
  if (!ok) {
    throw InvalidArgumentError(fmt::format("JSON: expected {}, got {} {}", expected,
                                           is_integer() || is_array() || is_object() ? "an" : "a",
                                           type_name()));
  }
}

bool Json::as_bool() const {
  require(is_bool(), "a boolean");
  return std::get<bool>(value_);
}

std::int64_t Json::as_integer() const {
  require(is_integer(), "an integer");
  return std::get<std::int64_t>(value_);
}

double Json::as_number() const {
  require(is_number(), "a number");
  return is_integer() ? static_cast<double>(std::get<std::int64_t>(value_))
                      : std::get<double>(value_);
}

const std::string& Json::as_string() const {
  require(is_string(), "a string");
  return std::get<std::string>(value_);
}

const Json::Array& Json::as_array() const {
  require(is_array(), "an array");
  return *std::get<std::shared_ptr<Array>>(value_);
}

const Json::Object& Json::as_object() const {
  require(is_object(), "an object");
  return *std::get<std::shared_ptr<Object>>(value_);
}

const Json* Json::find(const std::string& key) const {
  if (!is_object()) return nullptr;
  for (const auto& member : as_object()) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

Json& Json::set(const std::string& key, Json value) {
  require(is_object(), "an object");
  auto& members = std::get<std::shared_ptr<Object>>(value_);
  // Copies share their members until one is changed.
  if (members.use_count() > 1) members = std::make_shared<Object>(*members);
  for (auto& member : *members) {
    if (member.first == key) {
      member.second = std::move(value);
      return *this;
    }
  }
  members->emplace_back(key, std::move(value));
  return *this;
}

Json& Json::push_back(Json value) {
  require(is_array(), "an array");
  auto& items = std::get<std::shared_ptr<Array>>(value_);
  if (items.use_count() > 1) items = std::make_shared<Array>(*items);
  items->push_back(std::move(value));
  return *this;
}

bool operator==(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number() && a.is_integer() != b.is_integer()) return false;
  if (a.value_.index() != b.value_.index()) return false;
  if (a.is_array()) return a.as_array() == b.as_array();
  if (a.is_object()) return a.as_object() == b.as_object();
  return a.value_ == b.value_;
}

}  // namespace eagle::io
