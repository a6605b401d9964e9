// The IDX reader (eagle/data/idx.hpp): zlib's gz* functions read gzip and plain files alike.
#include "eagle/data/idx.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "data/host_tensor.hpp"
#include "eagle/errors.hpp"
#include "io/file_error.hpp"

namespace eagle::data {
namespace {

// The IDX element type codes (the third magic byte) and the NumPy names of their types.
const char* idx_type_name(unsigned code) {
  switch (code) {
    case 0x08:
      return "uint8";
    case 0x09:
      return "int8";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return nullptr;
  }
}

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path) {
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) io::throw_file_error(path, errno ? errno : ENOMEM);
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Reads up to `bytes` bytes and returns how many there were; a damaged stream is DataLossError.
  std::size_t read(void* dst, std::size_t bytes) {
    auto* out = static_cast<unsigned char*>(dst);
    std::size_t done = 0;
    while (done < bytes) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(bytes - done, 1u << 30));
      const int got = gzread(file_, out + done, chunk);
      if (got < 0) throw_stream_error();
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    // A gzip stream cut short reads as a short count with Z_BUF_ERROR set.
    int code = Z_OK;
    gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END) throw_stream_error();
    return done;
  }

 private:
  [[noreturn]] void throw_stream_error() {
    int code = Z_OK;
    std::string text = gzerror(file_, &code);
    // zlib puts the path first ("<path>: unexpected end of file"); the message puts it once.
    if (text.compare(0, path_.size() + 2, path_ + ": ") == 0) text.erase(0, path_.size() + 2);
    if (code == Z_ERRNO) throw DataLossError(fmt::format("{}: {}", path_, std::strerror(errno)));
    if (code == Z_BUF_ERROR) {
      throw DataLossError(fmt::format("{}: truncated gzip data: {}", path_, text));
    }
    throw DataLossError(fmt::format("{}: corrupt gzip data: {}", path_, text));
  }

  std::string path_;
  gzFile file_ = nullptr;
};

}  // namespace

IdxArray read_idx(const std::string& path) {
  GzFile file(path);
  std::array<unsigned char, 4> magic{};
  const std::size_t magic_read = file.read(magic.data(), magic.size());
  if (magic_read < magic.size()) {
    throw DataLossError(
        fmt::format("{}: truncated IDX file: expected a 4-byte magic number, found {} bytes", path,
                    magic_read));
  }
  const unsigned magic_number = (magic[0] << 24) | (magic[1] << 16) | (magic[2] << 8) | magic[3];
  if (magic[0] != 0 || magic[1] != 0 || idx_type_name(magic[2]) == nullptr) {
    throw DataLossError(fmt::format(
        "{}: bad IDX magic number 0x{:08X}: expected 0x0000 followed by a type byte (0x08 for "
        "unsigned bytes) and the rank, as 0x00000803 for images and 0x00000801 for labels",
        path, magic_number));
  }
  if (magic[2] != 0x08) {
    throw UnimplementedError(fmt::format(
        "{}: IDX element type 0x{:02X} ({}) is not supported: eagle reads unsigned-byte IDX "
        "files (type 0x08)",
        path, magic[2], idx_type_name(magic[2])));
  }
  const int rank = magic[3];
  if (rank > Shape::kMaxRank) {
    throw UnimplementedError(fmt::format(
        "{}: an IDX file of rank {} exceeds eagle's maximum rank {}", path, rank, Shape::kMaxRank));
  }
  std::vector<unsigned char> header(static_cast<std::size_t>(rank) * 4);
  const std::size_t header_read = file.read(header.data(), header.size());
  if (header_read < header.size()) {
    throw DataLossError(
        fmt::format("{}: truncated IDX file: expected a {}-byte header for rank {}, found {} bytes",
                    path, 4 + header.size(), rank, 4 + header_read));
  }
  IdxArray array;
  std::size_t count = 1;
  for (int axis = 0; axis < rank; ++axis) {
    const unsigned char* b = &header[static_cast<std::size_t>(axis) * 4];
    const std::uint32_t dim = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                              (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
    array.shape.push_back(dim);
    if (__builtin_mul_overflow(count, std::size_t{dim}, &count) || count > (std::size_t{1} << 40)) {
      throw DataLossError(fmt::format("{}: IDX header declares an impossible shape {}", path,
                                      array.shape.to_tuple_string()));
    }
  }
  array.values.resize(count);
  const std::size_t values_read = file.read(array.values.data(), count);
  if (values_read < count) {
    throw DataLossError(
        fmt::format("{}: truncated IDX file: expected {} bytes of values for shape {}, found {}",
                    path, count, array.shape.to_tuple_string(), values_read));
  }
  unsigned char extra = 0;
  if (file.read(&extra, 1) != 0) {
    throw DataLossError(fmt::format(
        "{}: IDX file longer than its header says: expected {} bytes of values for shape {}, "
        "found more",
        path, count, array.shape.to_tuple_string()));
  }
  return array;
}

Tensor IdxArray::to_tensor(DType dtype) const {
  return visit_dtype(dtype, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw InvalidArgumentError(
          "IdxArray::to_tensor: a bool tensor is not a conversion of unsigned bytes; use "
          "float32, float64, float16, bfloat16, int32 or int64");
    } else {
      return make_host_tensor(shape, dtype, [&](unsigned char* out) {
        T* dst = reinterpret_cast<T*>(out);
        for (std::size_t i = 0; i < values.size(); ++i) {
          if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>) {
            dst[i] = static_cast<T>(values[i]);
          } else {
            dst[i] = T(static_cast<float>(values[i]));
          }
        }
      });
    }
  });
}

Tensor IdxArray::to_tensor(DType dtype, double divisor) const {
  if (!is_floating(dtype)) {
    throw InvalidArgumentError(
        fmt::format("IdxArray::to_tensor: dividing by {} needs a floating dtype, got {}", divisor,
                    dtype_name(dtype)));
  }
  return visit_dtype(dtype, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return make_host_tensor(shape, dtype, [&](unsigned char* out) {
      T* dst = reinterpret_cast<T*>(out);
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double value = static_cast<double>(values[i]) / divisor;
        if constexpr (std::is_floating_point_v<T> || std::is_integral_v<T>) {
          dst[i] = static_cast<T>(value);
        } else {
          // float16 and bfloat16 round through float (their only constructor); NumPy rounds
          // the double directly, which differs only where the float lands on a half-way point.
          dst[i] = T(static_cast<float>(value));
        }
      }
    });
  });
}

}  // namespace eagle::data
