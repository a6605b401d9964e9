// Zip archives (PKWARE APPNOTE 6.3), as much of the format as Keras's .keras files use: stored
// and deflated entries, no ZIP64, no encryption, one disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace eagle::io {

// Note [Zip archives]
// ~~~~~~~~~~~~~~~~~~~
// A zip file is its entries' local headers and data, then a central directory (one record per
// entry: name, method, CRC-32, sizes, the local header's offset), then an end-of-central-directory
// record (EOCD: the directory's offset and count, and an archive comment of at most 64 KiB). A
// reader finds the EOCD by its signature searching back from the end, and trusts the central
// directory rather than the local headers (which may defer their sizes to a data descriptor).
// Python's zipfile (what Keras writes with) stores entries by default; zlib's raw deflate reads
// ZIP_DEFLATED ones. Every entry read is checked against its CRC-32. Values 0xFFFF / 0xFFFFFFFF
// in the EOCD or a record mean ZIP64, which eagle does not read (UnimplementedError): .keras
// files need it only past 4 GiB.

// The entries of a zip file, read into memory when opened. Errors name the file: a missing one
// NotFoundError ("<path>; No such file or directory"), one that is not a zip file or is
// damaged (truncated, an entry past the end, a wrong CRC) DataLossError.
class ZipReader {
 public:
  explicit ZipReader(const std::string& path);

  // The entry names, in the central directory's order.
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const;
  // The uncompressed bytes of entry `name`; a name not in the archive is NotFoundError.
  std::string read(const std::string& name) const;

  const std::string& path() const { return path_; }

 private:
  struct Entry {
    std::string name;
    std::uint16_t method;
    std::uint32_t crc32;
    std::uint64_t compressed_size;
    std::uint64_t size;
    std::uint64_t local_header_offset;
  };
  std::string path_;
  std::string bytes_;
  std::vector<Entry> entries_;
};

// Builds a zip file entry by entry and writes it whole (replacing `path`) at finish().
class ZipWriter {
 public:
  enum class Method : std::uint16_t { kStored = 0, kDeflated = 8 };

  explicit ZipWriter(std::string path) : path_(std::move(path)) {}
  // Adds an entry; names repeat at the caller's risk (readers take the first, as zipfile warns).
  // The modification time written is 1980-01-01 00:00, so the same contents give the same file.
  void add(const std::string& name, const std::string& data, Method method = Method::kStored);
  // Writes the archive. A missing folder is NotFoundError, other failures the errno's error.
  void finish();

 private:
  std::string path_;
  std::string body_;       // local headers and data
  std::string directory_;  // central directory records
  std::uint64_t count_ = 0;
};

}  // namespace eagle::io
