// What the file-reading tests share: a temporary directory removed with its contents, and the
// text of the eagle::Error a call raises.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "eagle/errors.hpp"

namespace eagle_test {

// A fresh directory under the system's temporary directory, named <prefix>_XXXXXX.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The message of the eagle::Error fn raises, "<no error>" when it raises none.
template <class Fn>
std::string error_text(Fn&& fn) {
  try {
    fn();
  } catch (const eagle::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace eagle_test
