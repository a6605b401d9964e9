// eagle's checkpoint files: what eagle::train::Checkpoint writes and reads (docs/guide.md,
// "Checkpoints").
#pragma once

#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"

namespace eagle::io {

// Note [Checkpoint format]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A checkpoint is one file, "<prefix>.eaglecheckpoint", little-endian:
//   "EAGLECKP"                       8 bytes
//   version                          u32, 1
//   count                            u64, the number of entries
//   count entries, in key order:
//     key length, key               u32, UTF-8 bytes ("model/weights/0", "optimizer/iteration")
//     dtype name length, name       u32, "float32", "int64", ... (eagle's dtype names)
//     rank, dims                    u32, i64 x rank
//     byte count, bytes             u64, the values row-major, the dtype's width each
//   crc                              u32, zlib's CRC-32 of every byte before it
//   "EAGLEEND"                       8 bytes
// A reader checks both magics, the version, that every length stays inside the file and agrees
// with dtype and shape, and the CRC: a truncated or damaged file is DataLossError, never a
// partial restore. Writes are atomic: the bytes go to "<file>.tmp-<pid>-<n>" in the same
// directory, are flushed to disk (fsync), then renamed over the final name, so a crash at any
// point leaves either the old file or the new one (and at worst a stray temporary).
struct CheckpointEntry {
  std::string key;
  DType dtype;
  Shape shape;
  std::string bytes;
};

inline constexpr const char* kCheckpointSuffix = ".eaglecheckpoint";

// Writes `entries` (sorted here by key) to path atomically. A directory that does not exist is
// created. I/O failures: the errno's error (io/file_error.hpp).
void write_checkpoint_file(const std::string& path, std::vector<CheckpointEntry> entries);
// Reads a file written above: NotFoundError when it is missing, DataLossError naming the path
// and what is wrong when it is not a complete checkpoint.
std::vector<CheckpointEntry> read_checkpoint_file(const std::string& path);

// Writes `text` to path atomically (the same temporary, fsync and rename).
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace eagle::io
