// Note [Checkpoint format] (io/checkpoint_file.hpp): writing and checking checkpoint files.
#include "io/checkpoint_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "io/file_error.hpp"

namespace eagle::io {
namespace {

constexpr char kMagic[] = "EAGLECKP";
constexpr char kEndMagic[] = "EAGLEEND";
constexpr std::uint32_t kVersion = 1;

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian hosts only (checked at build)
  out.append(bytes, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

std::uint32_t crc_of(const char* data, std::size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t at = 0;
  while (at < size) {
    const std::size_t n = std::min<std::size_t>(size - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<std::uint32_t>(crc);
}

// A cursor over the file's bytes that refuses to read past the end.
class Reader {
 public:
  Reader(const std::string& path, const std::string& bytes, std::size_t end)
      : path_(path), bytes_(bytes), end_(end) {}
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string get_bytes(std::uint64_t n, const char* what) {
    need(n, what);
    std::string out = bytes_.substr(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return out;
  }
  std::string get_string(const char* what) { return get_bytes(get<std::uint32_t>(what), what); }
  std::size_t at() const { return at_; }
  [[noreturn]] void corrupt(const std::string& what) const {
    throw DataLossError(fmt::format("Checkpoint {} is truncated or corrupted: {}", path_, what));
  }

 private:
  void need(std::uint64_t n, const char* what) const {
    if (n > end_ - at_) corrupt(fmt::format("the file ends inside {}", what));
  }
  const std::string& path_;
  const std::string& bytes_;
  std::size_t end_;
  std::size_t at_ = 0;
};

DType dtype_named(const std::string& name, const Reader& reader) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    if (dtype_name(d) == name) return d;
  }
  reader.corrupt(fmt::format("unknown dtype '{}'", name));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  static std::atomic<std::uint64_t> counter{0};
  const std::filesystem::path target(path);
  if (target.has_parent_path()) {
    std::error_code ignored;
    std::filesystem::create_directories(target.parent_path(), ignored);
  }
  const std::string temporary =
      fmt::format("{}.tmp-{}-{}", path, static_cast<long>(::getpid()), counter++);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error(temporary, errno);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw_file_error(temporary, error);
    }
    written += static_cast<std::size_t>(n);
  }
  // On disk before the rename makes it the file: a crash after the rename finds it whole.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw_file_error(temporary, error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw_file_error(path, error);
  }
  // The directory entry too (the rename itself), where the system allows it.
  const std::string directory =
      target.has_parent_path() ? target.parent_path().string() : std::string(".");
  const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_checkpoint_file(const std::string& path, std::vector<CheckpointEntry> entries) {
  static_assert(sizeof(std::uint32_t) == 4 && sizeof(std::int64_t) == 8);
  std::sort(entries.begin(), entries.end(),
            [](const CheckpointEntry& a, const CheckpointEntry& b) { return a.key < b.key; });
  std::string out(kMagic, 8);
  put<std::uint32_t>(out, kVersion);
  put<std::uint64_t>(out, entries.size());
  for (const CheckpointEntry& e : entries) {
    put_string(out, e.key);
    put_string(out, std::string(dtype_name(e.dtype)));
    put<std::uint32_t>(out, static_cast<std::uint32_t>(e.shape.rank()));
    for (int d = 0; d < e.shape.rank(); ++d) put<std::int64_t>(out, e.shape[d]);
    put<std::uint64_t>(out, e.bytes.size());
    out += e.bytes;
  }
  put<std::uint32_t>(out, crc_of(out.data(), out.size()));
  out.append(kEndMagic, 8);
  write_file_atomically(path, out);
}

std::vector<CheckpointEntry> read_checkpoint_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw NotFoundError(fmt::format("Failed to find any matching files for {}",
                                    path.substr(0, path.size() - std::strlen(kCheckpointSuffix))));
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader whole(path, bytes, bytes.size());
  if (bytes.size() < 8 + 4 + 8 + 4 + 8 || bytes.compare(0, 8, kMagic, 8) != 0) {
    whole.corrupt("not an eagle checkpoint (no EAGLECKP header)");
  }
  if (bytes.compare(bytes.size() - 8, 8, kEndMagic, 8) != 0) {
    whole.corrupt("the end marker is missing (the write did not finish)");
  }
  const std::size_t crc_at = bytes.size() - 8 - 4;
  std::uint32_t stored;
  std::memcpy(&stored, bytes.data() + crc_at, 4);
  if (stored != crc_of(bytes.data(), crc_at)) whole.corrupt("the CRC-32 does not match");
  Reader r(path, bytes, crc_at);
  r.get_bytes(8, "the header");
  const auto version = r.get<std::uint32_t>("the version");
  if (version != kVersion) {
    throw UnimplementedError(
        fmt::format("Checkpoint {} has format version {}; this eagle reads version {}", path,
                    version, kVersion));
  }
  const auto count = r.get<std::uint64_t>("the entry count");
  std::vector<CheckpointEntry> entries;
  for (std::uint64_t i = 0; i < count; ++i) {
    CheckpointEntry e;
    e.key = r.get_string("a key");
    e.dtype = dtype_named(r.get_string("a dtype"), r);
    const auto rank = r.get<std::uint32_t>("a rank");
    if (rank > 64) r.corrupt(fmt::format("entry '{}' has rank {}", e.key, rank));
    std::vector<std::int64_t> dims;
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < rank; ++d) {
      const auto dim = r.get<std::int64_t>("a dimension");
      if (dim < 0) r.corrupt(fmt::format("entry '{}' has a negative dimension", e.key));
      dims.push_back(dim);
      elements *= static_cast<std::uint64_t>(dim);
    }
    e.shape = Shape(dims);
    const auto size = r.get<std::uint64_t>("a byte count");
    if (size != elements * dtype_size(e.dtype)) {
      r.corrupt(fmt::format("entry '{}' holds {} bytes for {} elements of {}", e.key, size,
                            elements, dtype_name(e.dtype)));
    }
    e.bytes = r.get_bytes(size, "a value");
    entries.push_back(std::move(e));
  }
  if (r.at() != crc_at) r.corrupt("bytes after the last entry");
  return entries;
}

}  // namespace eagle::io
