// Zip archives: reading and writing (Note [Zip archives]).
#include "io/zip_archive.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <memory>

#include "eagle/errors.hpp"
#include "io/file_error.hpp"

namespace eagle::io {
namespace {

constexpr std::uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr std::uint32_t kDirectorySignature = 0x02014b50;
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kDirectoryRecordSize = 46;
constexpr std::size_t kEndRecordSize = 22;
constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
constexpr std::uint16_t kVersion20 = 20;                         // 2.0: deflate, folders

std::uint16_t u16(const std::string& b, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                    (static_cast<unsigned char>(b[at + 1]) << 8));
}

std::uint32_t u32(const std::string& b, std::size_t at) {
  return static_cast<std::uint32_t>(u16(b, at)) |
         (static_cast<std::uint32_t>(u16(b, at + 2)) << 16);
}

void put16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v & 0xFF);
  out += static_cast<char>(v >> 8);
}

void put32(std::string& out, std::uint32_t v) {
  put16(out, static_cast<std::uint16_t>(v & 0xFFFF));
  put16(out, static_cast<std::uint16_t>(v >> 16));
}

std::uint32_t crc_of(const std::string& data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t at = 0;
  while (at < data.size()) {  // zlib takes uInt lengths
    const std::size_t n = std::min<std::size_t>(data.size() - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string read_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw_file_error(path, errno);
  std::string bytes;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) bytes.append(buffer, n);
  if (std::ferror(file.get())) throw_file_error(path, errno);
  return bytes;
}

std::string inflate_raw(const std::string& path, const std::string& name, const char* data,
                        std::uint64_t compressed_size, std::uint64_t size) {
  std::string out(static_cast<std::size_t>(size), '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
    throw InternalError(fmt::format("{}: zlib could not start inflating '{}'", path, name));
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  stream.avail_in = static_cast<uInt>(compressed_size);
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(size);
  const int result = inflate(&stream, Z_FINISH);
  const uLong produced = stream.total_out;
  const std::string zlib_message =
      result == Z_STREAM_END ? "wrong size" : (stream.msg != nullptr ? stream.msg : "error");
  inflateEnd(&stream);
  if (result != Z_STREAM_END || produced != size) {
    throw DataLossError(fmt::format(
        "{}: damaged zip archive: entry '{}' does not inflate to its {} bytes (zlib: {})", path,
        name, size, zlib_message));
  }
  return out;
}

std::string deflate_raw(const std::string& data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw InternalError("zlib could not start deflating");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) throw InternalError("zlib could not deflate a zip entry");
  return out;
}

}  // namespace

ZipReader::ZipReader(const std::string& path) : path_(path), bytes_(read_file(path)) {
  const auto damaged = [&](const std::string& what) {
    return DataLossError(fmt::format("{}: damaged zip archive: {}", path_, what));
  };
  // The EOCD is the last 22 bytes, or earlier by a comment of up to 65535 bytes.
  std::size_t end = std::string::npos;
  if (bytes_.size() >= kEndRecordSize) {
    const std::size_t lowest =
        bytes_.size() > kEndRecordSize + 0xFFFF ? bytes_.size() - kEndRecordSize - 0xFFFF : 0;
    for (std::size_t at = bytes_.size() - kEndRecordSize + 1; at-- > lowest;) {
      if (u32(bytes_, at) == kEndSignature) {
        end = at;
        break;
      }
    }
  }
  if (end == std::string::npos) {
    if (bytes_.size() >= 4 && u32(bytes_, 0) == kLocalHeaderSignature) {
      throw DataLossError(fmt::format(
          "{}: truncated zip archive: it starts as one but has no end of central directory "
          "record ({} bytes)",
          path_, bytes_.size()));
    }
    throw DataLossError(fmt::format("{}: File is not a zip file", path_));  // Python's zipfile
  }
  const std::uint16_t disk = u16(bytes_, end + 4);
  const std::uint16_t count = u16(bytes_, end + 10);
  const std::uint32_t directory_size = u32(bytes_, end + 12);
  const std::uint32_t directory_offset = u32(bytes_, end + 16);
  if (count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    throw UnimplementedError(
        fmt::format("{}: a ZIP64 archive (over 4 GiB or 65535 entries): eagle reads zip "
                    "archives without ZIP64 only",
                    path_));
  }
  if (disk != 0) {
    throw UnimplementedError(fmt::format("{}: a multi-disk zip archive", path_));
  }
  if (std::uint64_t{directory_offset} + directory_size > end) {
    throw damaged(fmt::format("the central directory ({} bytes at {}) runs past its end record",
                              directory_size, directory_offset));
  }
  std::size_t at = directory_offset;
  for (std::uint16_t i = 0; i < count; ++i) {
    if (at + kDirectoryRecordSize > end || u32(bytes_, at) != kDirectorySignature) {
      throw damaged(fmt::format("central directory record {} is missing", i));
    }
    Entry entry;
    const std::uint16_t flags = u16(bytes_, at + 8);
    entry.method = u16(bytes_, at + 10);
    entry.crc32 = u32(bytes_, at + 16);
    entry.compressed_size = u32(bytes_, at + 20);
    entry.size = u32(bytes_, at + 24);
    const std::uint16_t name_length = u16(bytes_, at + 28);
    const std::uint16_t extra_length = u16(bytes_, at + 30);
    const std::uint16_t comment_length = u16(bytes_, at + 32);
    entry.local_header_offset = u32(bytes_, at + 42);
    if (at + kDirectoryRecordSize + name_length > end) {
      throw damaged(fmt::format("central directory record {} is cut off", i));
    }
    entry.name = bytes_.substr(at + kDirectoryRecordSize, name_length);
    if (flags & 1) {
      throw UnimplementedError(
          fmt::format("{}: entry '{}' is encrypted: eagle reads unencrypted zip archives only",
                      path_, entry.name));
    }
    if (entry.compressed_size == 0xFFFFFFFF || entry.size == 0xFFFFFFFF ||
        entry.local_header_offset == 0xFFFFFFFF) {
      throw UnimplementedError(fmt::format(
          "{}: entry '{}' uses ZIP64 (over 4 GiB): eagle reads zip archives without ZIP64 only",
          path_, entry.name));
    }
    entries_.push_back(std::move(entry));
    at += kDirectoryRecordSize + name_length + extra_length + comment_length;
  }
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

bool ZipReader::contains(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.name == name; });
}

std::string ZipReader::read(const std::string& name) const {
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.name == name; });
  if (it == entries_.end()) {
    // Python's zipfile: KeyError("There is no item named 'x' in the archive").
    throw NotFoundError(fmt::format("{}: There is no item named '{}' in the archive", path_, name));
  }
  const Entry& e = *it;
  const std::uint64_t header = e.local_header_offset;
  if (header + kLocalHeaderSize > bytes_.size() || u32(bytes_, header) != kLocalHeaderSignature) {
    throw DataLossError(fmt::format(
        "{}: damaged zip archive: entry '{}' has no local header at offset {} (truncated?)", path_,
        name, header));
  }
  const std::uint64_t data =
      header + kLocalHeaderSize + u16(bytes_, header + 26) + u16(bytes_, header + 28);
  if (data + e.compressed_size > bytes_.size()) {
    throw DataLossError(fmt::format(
        "{}: damaged zip archive: entry '{}' ({} bytes at offset {}) runs past the end of the "
        "file ({} bytes): truncated",
        path_, name, e.compressed_size, data, bytes_.size()));
  }
  std::string out;
  if (e.method == 0) {
    if (e.compressed_size != e.size) {
      throw DataLossError(
          fmt::format("{}: damaged zip archive: stored entry '{}' has {} bytes but records {}",
                      path_, name, e.compressed_size, e.size));
    }
    out = bytes_.substr(static_cast<std::size_t>(data), static_cast<std::size_t>(e.size));
  } else if (e.method == 8) {
    out = inflate_raw(path_, name, bytes_.data() + data, e.compressed_size, e.size);
  } else {
    // Python's zipfile: NotImplementedError("That compression method is not supported").
    throw UnimplementedError(fmt::format(
        "{}: entry '{}' uses compression method {}: eagle reads stored (0) and deflated (8) "
        "entries",
        path_, name, e.method));
  }
  if (crc_of(out) != e.crc32) {
    // Python's zipfile: BadZipFile("Bad CRC-32 for file 'x'").
    throw DataLossError(fmt::format("{}: Bad CRC-32 for file '{}'", path_, name));
  }
  return out;
}

void ZipWriter::add(const std::string& name, const std::string& data, Method method) {
  const std::string compressed = method == Method::kDeflated ? deflate_raw(data) : data;
  if (data.size() >= 0xFFFFFFFFu || compressed.size() >= 0xFFFFFFFFu ||
      body_.size() >= 0xFFFFFFFFu || name.size() > 0xFFFF || count_ >= 0xFFFF) {
    throw UnimplementedError(fmt::format(
        "{}: entry '{}' would need ZIP64 (over 4 GiB): eagle writes zip archives without ZIP64",
        path_, name));
  }
  const std::uint32_t crc = crc_of(data);
  const auto offset = static_cast<std::uint32_t>(body_.size());
  const auto fields = [&](std::string& out) {  // shared by both headers, from "version needed"
    put16(out, kVersion20);
    put16(out, 0x0800);  // flags: bit 11, the name is UTF-8
    put16(out, static_cast<std::uint16_t>(method));
    put16(out, 0);  // time 00:00
    put16(out, kDosDate1980);
    put32(out, crc);
    put32(out, static_cast<std::uint32_t>(compressed.size()));
    put32(out, static_cast<std::uint32_t>(data.size()));
    put16(out, static_cast<std::uint16_t>(name.size()));
    put16(out, 0);  // extra field length
  };
  put32(body_, kLocalHeaderSignature);
  fields(body_);
  body_ += name;
  body_ += compressed;

  put32(directory_, kDirectorySignature);
  put16(directory_, static_cast<std::uint16_t>((3 << 8) | kVersion20));  // made by: Unix, 2.0
  fields(directory_);
  put16(directory_, 0);               // comment length
  put16(directory_, 0);               // disk
  put16(directory_, 0);               // internal attributes
  put32(directory_, 0100644u << 16);  // external: a regular file, rw-r--r--
  put32(directory_, offset);
  directory_ += name;
  ++count_;
}

void ZipWriter::finish() {
  if (body_.size() + directory_.size() >= 0xFFFFFFFFu) {
    throw UnimplementedError(fmt::format(
        "{}: the archive would need ZIP64 (over 4 GiB): eagle writes zip archives without ZIP64",
        path_));
  }
  std::string end;
  put32(end, kEndSignature);
  put16(end, 0);  // this disk
  put16(end, 0);  // the directory's disk
  put16(end, static_cast<std::uint16_t>(count_));
  put16(end, static_cast<std::uint16_t>(count_));
  put32(end, static_cast<std::uint32_t>(directory_.size()));
  put32(end, static_cast<std::uint32_t>(body_.size()));
  put16(end, 0);  // comment length
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path_.c_str(), "wb"),
                                                       &std::fclose);
  if (!file) throw_file_error(path_, errno);
  for (const std::string* part : {&body_, &directory_, &end}) {
    if (std::fwrite(part->data(), 1, part->size(), file.get()) != part->size()) {
      throw_file_error(path_, errno);
    }
  }
  if (std::fclose(file.release()) != 0) throw_file_error(path_, errno);
}

}  // namespace eagle::io
