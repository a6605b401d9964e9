// A small JSON value with a reader and a writer (RFC 8259), for the files inside Keras's .keras
// archives (config.json, metadata.json).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace eagle::io {

// One JSON value. Objects keep their keys in insertion (or file) order, as Python's json module
// does, so a config written back reads like the one Keras wrote. Numbers remember whether they
// were integers, so 32 is written back as 32 and 0.5 as 0.5 (Python's int and float).
class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default;                                                   // null
  Json(std::nullptr_t) {}                                             // NOLINT: implicit by design
  Json(bool b) : value_(b) {}                                         // NOLINT: implicit by design
  Json(int i) : value_(static_cast<std::int64_t>(i)) {}               // NOLINT: implicit by design
  Json(std::int64_t i) : value_(i) {}                                 // NOLINT: implicit by design
  Json(double d) : value_(d) {}                                       // NOLINT: implicit by design
  Json(const char* s) : value_(std::string(s)) {}                     // NOLINT: implicit by design
  Json(std::string s) : value_(std::move(s)) {}                       // NOLINT: implicit by design
  Json(Array a) : value_(std::make_shared<Array>(std::move(a))) {}    // NOLINT: implicit
  Json(Object o) : value_(std::make_shared<Object>(std::move(o))) {}  // NOLINT: implicit
  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  // Parses `text`, a whole JSON document. Malformed text is DataLossError: "invalid JSON at
  // offset 12: expected ',' or '}'".
  static Json parse(const std::string& text);
  // The document in Python's json.dumps form (", " and ": " separators, one line); non-ASCII
  // characters are written as UTF-8. Infinite and NaN numbers are written as Python writes them
  // (Infinity, NaN), which its reader accepts.
  std::string dump() const;

  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_bool() const { return std::holds_alternative<bool>(value_); }
  bool is_integer() const { return std::holds_alternative<std::int64_t>(value_); }
  bool is_number() const { return is_integer() || std::holds_alternative<double>(value_); }
  bool is_string() const { return std::holds_alternative<std::string>(value_); }
  bool is_array() const { return std::holds_alternative<std::shared_ptr<Array>>(value_); }
  bool is_object() const { return std::holds_alternative<std::shared_ptr<Object>>(value_); }
  // "null", "boolean", "integer", "number", "string", "array", "object" (for messages).
  const char* type_name() const;

  // The value as that type; another type is InvalidArgumentError ("expected a string, got an
  // integer"). as_number accepts integers too.
  bool as_bool() const;
  std::int64_t as_integer() const;
  double as_number() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  // The member `key` of an object, nullptr when absent (or when this is not an object).
  const Json* find(const std::string& key) const;
  // Sets `key` of an object (replacing a member of that name, else appending it), and returns
  // *this so members chain. Not an object: InvalidArgumentError.
  Json& set(const std::string& key, Json value);
  // Appends to an array. Not an array: InvalidArgumentError.
  Json& push_back(Json value);

  friend bool operator==(const Json& a, const Json& b);
  friend bool operator!=(const Json& a, const Json& b) { return !(a == b); }

 private:
  void require(bool ok, const char* expected) const;
  std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      value_;
};

}  // namespace eagle::io
