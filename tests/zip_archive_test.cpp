// eagle::io::ZipReader and ZipWriter (src/io/zip_archive.hpp): a zip Python's zipfile wrote
// (deflated and stored entries, tests/tools/gen_keras_model_fixture.py), archives eagle writes
// read back, and damaged files as typed errors naming the file.
#include <stdlib.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "eagle/errors.hpp"
#include "io/zip_archive.hpp"
#include "temp_files.hpp"

namespace {

using eagle_test::error_text;
using eagle_test::TempDir;

namespace fs = std::filesystem;
using eagle::io::ZipReader;
using eagle::io::ZipWriter;

const std::string kDeflated = std::string(EAGLE_FIXTURE_DIR) + "/deflated.zip";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string all_bytes() {
  std::string out;
  for (int i = 0; i < 256; ++i) out += static_cast<char>(i);
  return out;
}

}  // namespace

TEST_CASE("zip reader: the entries Python's zipfile deflated and stored") {
  const ZipReader zip(kDeflated);
  CHECK(zip.names() == std::vector<std::string>{"text/repeated.txt", "stored.bin", "empty.txt"});
  CHECK(zip.contains("stored.bin"));
  CHECK_FALSE(zip.contains("stored"));
  CHECK(zip.read("text/repeated.txt") == repeated("eagle reads deflated entries. ", 40));
  CHECK(zip.read("stored.bin") == all_bytes());
  CHECK(zip.read("empty.txt").empty());
  CHECK_THROWS_AS(zip.read("nothing"), eagle::NotFoundError);
  CHECK(error_text([&] { zip.read("nothing"); }) ==
        kDeflated + ": There is no item named 'nothing' in the archive");
}

TEST_CASE("zip writer: stored and deflated entries read back") {
  TempDir dir("eagle_zip_test");
  const std::string path = dir.file("out.zip");
  ZipWriter zip(path);
  const std::string text = repeated("abcdefgh", 1000);
  zip.add("a/stored.txt", text);
  zip.add("deflated.txt", text, ZipWriter::Method::kDeflated);
  zip.add("binary.bin", all_bytes(), ZipWriter::Method::kDeflated);
  zip.add("empty", "");
  zip.finish();
  CHECK(fs::file_size(path) < 2 * text.size() + 1000);  // one stored copy, one deflated
  const ZipReader back(path);
  CHECK(back.names() ==
        std::vector<std::string>{"a/stored.txt", "deflated.txt", "binary.bin", "empty"});
  CHECK(back.read("a/stored.txt") == text);
  CHECK(back.read("deflated.txt") == text);
  CHECK(back.read("binary.bin") == all_bytes());
  CHECK(back.read("empty").empty());
  // The same entries give the same bytes (a fixed modification time).
  const std::string again = dir.file("again.zip");
  ZipWriter second(again);
  second.add("a/stored.txt", text);
  second.add("deflated.txt", text, ZipWriter::Method::kDeflated);
  second.add("binary.bin", all_bytes(), ZipWriter::Method::kDeflated);
  second.add("empty", "");
  second.finish();
  CHECK(slurp(again) == slurp(path));
}

TEST_CASE("zip errors: missing, not a zip, truncated, damaged") {
  TempDir dir("eagle_zip_test");
  const std::string missing = dir.file("missing.zip");
  CHECK_THROWS_AS(ZipReader(missing), eagle::NotFoundError);
  CHECK(error_text([&] { ZipReader{missing}; }) == missing + "; No such file or directory");

  const std::string text = dir.file("text.zip");
  spit(text, "this is not a zip archive, only some text that is long enough");
  CHECK_THROWS_AS(ZipReader(text), eagle::DataLossError);
  CHECK(error_text([&] { ZipReader{text}; }) == text + ": File is not a zip file");
  const std::string empty = dir.file("empty.zip");
  spit(empty, "");
  CHECK(error_text([&] { ZipReader{empty}; }) == empty + ": File is not a zip file");

  const std::string whole = slurp(kDeflated);
  const std::string truncated = dir.file("truncated.zip");
  spit(truncated, whole.substr(0, whole.size() / 2));
  CHECK_THROWS_AS(ZipReader(truncated), eagle::DataLossError);
  CHECK(error_text([&] { ZipReader{truncated}; }) ==
        truncated +
            ": truncated zip archive: it starts as one but has no end of central "
            "directory record (" +
            std::to_string(whole.size() / 2) + " bytes)");

  // A byte of the stored entry changed: its CRC-32 no longer matches (Python's text).
  std::string flipped = whole;
  const std::size_t at = flipped.find(all_bytes());
  REQUIRE(at != std::string::npos);
  flipped[at + 100] = 'X';
  const std::string bad_crc = dir.file("bad_crc.zip");
  spit(bad_crc, flipped);
  const ZipReader damaged(bad_crc);
  CHECK(damaged.read("text/repeated.txt").size() == 1200);
  CHECK_THROWS_AS(damaged.read("stored.bin"), eagle::DataLossError);
  CHECK(error_text([&] { damaged.read("stored.bin"); }) ==
        bad_crc + ": Bad CRC-32 for file 'stored.bin'");

  // The directory points past the data that is left: the entry's local header is gone.
  const std::string cut = dir.file("cut.zip");
  const std::size_t directory = whole.find("PK\x01\x02");
  REQUIRE(directory != std::string::npos);
  spit(cut, whole.substr(0, 40) + whole.substr(directory));
  CHECK_THROWS_AS(ZipReader(cut), eagle::DataLossError);

  const std::string no_folder = dir.file("nowhere/out.zip");
  ZipWriter writer(no_folder);
  writer.add("a", "b");
  CHECK_THROWS_AS(writer.finish(), eagle::NotFoundError);
}
