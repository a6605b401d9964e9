// A small JSON reader for the committed test fixtures (tests/fixtures/*.json): objects, arrays,
// strings, numbers, true, false, null. Enough for files our own scripts write; not a general
// library (no \u escapes beyond ASCII).
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace eagle_test {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;

  static Json parse(const std::string& text) {
    std::size_t at = 0;
    Json value = parse_value(text, at);
    skip_space(text, at);
    if (at != text.size()) fail(text, at, "trailing characters");
    return value;
  }
  static Json parse_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parse(buffer.str());
  }

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
  bool is_string() const { return std::holds_alternative<std::string>(value_); }
  bool is_number() const { return std::holds_alternative<double>(value_); }
  bool is_bool() const { return std::holds_alternative<bool>(value_); }
  bool has(const std::string& key) const { return object().count(key) != 0; }

  const std::string& str() const { return get<std::string>("a string"); }
  double number() const { return get<double>("a number"); }
  // Integers exactly, past 2^53 too (int64 extremes).
  long long integer() const {
    get<double>("a number");
    return std::strtoll(number_text_.c_str(), nullptr, 10);
  }
  bool boolean() const { return get<bool>("a boolean"); }
  const Array& array() const { return *get<std::shared_ptr<Array>>("an array"); }
  const Object& object() const { return *get<std::shared_ptr<Object>>("an object"); }
  const Json& operator[](const std::string& key) const {
    const auto it = object().find(key);
    if (it == object().end()) throw std::runtime_error("JSON: no key " + key);
    return it->second;
  }

 private:
  template <class T>
  const T& get(const char* what) const {
    if (const T* v = std::get_if<T>(&value_)) return *v;
    throw std::runtime_error(std::string("JSON: not ") + what);
  }
  [[noreturn]] static void fail(const std::string& text, std::size_t at, const char* why) {
    throw std::runtime_error("JSON: " + std::string(why) + " at offset " + std::to_string(at) +
                             ": " + text.substr(at, 20));
  }
  static void skip_space(const std::string& t, std::size_t& at) {
    while (at < t.size() && (t[at] == ' ' || t[at] == '\n' || t[at] == '\r' || t[at] == '\t')) {
      ++at;
    }
  }
  static void expect(const std::string& t, std::size_t& at, const char* word) {
    const std::string w(word);
    if (t.compare(at, w.size(), w) != 0) fail(t, at, "unexpected token");
    at += w.size();
  }
  static std::string parse_string(const std::string& t, std::size_t& at) {
    std::string out;
    ++at;  // the opening quote
    while (at < t.size() && t[at] != '"') {
      char c = t[at++];
      if (c == '\\') {
        if (at >= t.size()) fail(t, at, "unterminated escape");
        const char e = t[at++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {
            if (at + 4 > t.size()) fail(t, at, "short \\u escape");
            const long code = std::strtol(t.substr(at, 4).c_str(), nullptr, 16);
            if (code > 0x7f) fail(t, at, "non-ASCII \\u escape");
            c = static_cast<char>(code);
            at += 4;
            break;
          }
          default:
            c = e;
            break;  // \" \\ \/
        }
      }
      out.push_back(c);
    }
    if (at >= t.size()) fail(t, at, "unterminated string");
    ++at;  // the closing quote
    return out;
  }
  static Json parse_value(const std::string& t, std::size_t& at) {
    skip_space(t, at);
    if (at >= t.size()) fail(t, at, "unexpected end");
    Json j;
    const char c = t[at];
    if (c == '{') {
      auto object = std::make_shared<Object>();
      ++at;
      skip_space(t, at);
      if (t[at] == '}') {
        ++at;
      } else {
        while (true) {
          skip_space(t, at);
          if (t[at] != '"') fail(t, at, "expected a key");
          std::string key = parse_string(t, at);
          skip_space(t, at);
          expect(t, at, ":");
          (*object)[key] = parse_value(t, at);
          skip_space(t, at);
          if (t[at] == ',') {
            ++at;
          } else {
            expect(t, at, "}");
            break;
          }
        }
      }
      j.value_ = object;
    } else if (c == '[') {
      auto array = std::make_shared<Array>();
      ++at;
      skip_space(t, at);
      if (t[at] == ']') {
        ++at;
      } else {
        while (true) {
          array->push_back(parse_value(t, at));
          skip_space(t, at);
          if (t[at] == ',') {
            ++at;
          } else {
            expect(t, at, "]");
            break;
          }
        }
      }
      j.value_ = array;
    } else if (c == '"') {
      j.value_ = parse_string(t, at);
    } else if (c == 't') {
      expect(t, at, "true");
      j.value_ = true;
    } else if (c == 'f') {
      expect(t, at, "false");
      j.value_ = false;
    } else if (c == 'n') {
      expect(t, at, "null");
      j.value_ = nullptr;
    } else {
      char* end = nullptr;
      const double v = std::strtod(t.c_str() + at, &end);
      if (end == t.c_str() + at) fail(t, at, "expected a value");
      const std::size_t start = at;
      at = static_cast<std::size_t>(end - t.c_str());
      j.value_ = v;
      j.number_text_ = t.substr(start, at - start);
    }
    return j;
  }

  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      value_ = nullptr;
  std::string number_text_;
};

}  // namespace eagle_test
