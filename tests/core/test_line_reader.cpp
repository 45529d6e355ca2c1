#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
fs::path temp_file(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "attend_test_line_reader";
  fs::create_directories(dir);
  return dir / name;
}
}  // namespace

TEST_CASE("line reader reads plain and gzip text alike", "[core][io]") {
  const std::string text = "first line\r\nsecond\tline\n\nlast without newline";
  const fs::path plain = temp_file("plain.txt");
  std::ofstream(plain) << text;
  const fs::path packed = temp_file("packed.txt.gz");
  gzFile gz = gzopen(packed.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);

  for (const fs::path& p : {plain, packed}) {
    io::LineReader reader(p.string());
    std::vector<std::string> lines;
    std::string line;
    while (reader.next(line)) lines.push_back(line);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "first line");
    CHECK(io::split_whitespace(lines[1]) == std::vector<std::string>{"second", "line"});
    CHECK(lines[2].empty());
    CHECK(lines[3] == "last without newline");
    CHECK(reader.line_number() == 4);
  }
}

TEST_CASE("line reader errors name the file and the line", "[core][io]") {
  const fs::path p = temp_file("numbers.txt");
  std::ofstream(p) << "1 2.5\nx 3\n";
  io::LineReader reader(p.string());
  std::string line;
  reader.next(line);
  auto fields = io::split_whitespace(line);
  CHECK(reader.parse_int(fields[0], "a node id") == 1);
  CHECK(reader.parse_float(fields[1], "a weight") == 2.5f);
  CHECK_THROWS_AS(reader.parse_int(fields[1], "a node id"), InputError);
  reader.next(line);
  try {
    reader.parse_int(io::split_whitespace(line)[0], "a node id");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == p.string() + ":2: expected a node id (an integer), got 'x'");
  }
  CHECK_THROWS_AS(io::LineReader("/nonexistent/attend/file.txt"), InputError);
  CHECK(io::split_on("a\t\tb", '\t') == std::vector<std::string>{"a", "", "b"});
}

TEST_CASE("line reader refuses a NUL byte with the file, line and column", "[core][io]") {
  // Found by scripts/fuzz_inputs.py: a binary blob passed as TSV triples reached the HDF5
  // writer, which cannot store NUL, and failed as an internal error.
  const fs::path p = temp_file("binary.tsv");
  std::ofstream(p, std::ios::binary) << std::string("a\tb\tc\nd\te\0f\tg\n", 14);
  io::LineReader reader(p.string());
  std::string line;
  CHECK(reader.next(line));
  CHECK_THROWS_WITH(reader.next(line), p.string() + ":2: a NUL byte at column 4 (binary data in a text file?)");
}
