#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/io/npy_array.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/core/io/zip_archive.hpp"
#include "temp_dir.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
fs::path temp_file(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "attend_test_line_reader";
  fs::create_directories(dir);
  return dir / name;
}

/// The progress cases: a plain-mode ReadProgress that writes a line per MiB of every file
/// (or member) from 1 MiB, for as long as it lives, into `shown`.
struct ShownProgress {
  std::ostringstream shown;
  attend::ProgressOptions options() {
    attend::ProgressOptions o;
    o.mode = attend::ProgressMode::kPlain;
    o.every = 1;
    o.out = &shown;
    return o;
  }
  std::string text() const { return shown.str(); }
  int64_t lines() const {
    const std::string t = text();
    return std::count(t.begin(), t.end(), '\n');
  }
};

/// The bytes of a .npy file of float32 [rows, 1], each element's bytes from `byte(i)`.
template <class Byte>
std::string npy_f32_column(int64_t rows, Byte byte) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", 1), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
                      static_cast<char>(header.size() >> 8) + header;
  for (int64_t i = 0; i < rows * 4; ++i) bytes += static_cast<char>(byte(i));
  return bytes;
}

void put_le(std::string& out, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

/// A ZIP archive as numpy.savez writes it (no ZIP64): each member stored (method 0) or raw
/// deflated (method 8).
std::string zip_of(const std::vector<std::tuple<std::string, std::string, int>>& members) {
  std::string local, directory;
  for (const auto& [name, data, method] : members) {
    std::string packed = data;
    if (method == 8) {
      z_stream z{};
      REQUIRE(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
      packed.resize(deflateBound(&z, static_cast<uLong>(data.size())));
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
      z.avail_in = static_cast<uInt>(data.size());
      z.next_out = reinterpret_cast<Bytef*>(packed.data());
      z.avail_out = static_cast<uInt>(packed.size());
      REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
      packed.resize(z.total_out);
      deflateEnd(&z);
    }
    const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    const uint64_t offset = local.size();
    // signature, version, flags, method, time, date, CRC, sizes, name length, extra length
    put_le(local, 0x04034b50, 4), put_le(local, 20, 2), put_le(local, 0, 2), put_le(local, method, 2);
    put_le(local, 0, 4), put_le(local, crc, 4), put_le(local, packed.size(), 4), put_le(local, data.size(), 4);
    put_le(local, name.size(), 2), put_le(local, 0, 2);
    local += name + packed;
    // the same, with the versions, comment length, disk, attributes and the local header's offset
    put_le(directory, 0x02014b50, 4), put_le(directory, 20, 2), put_le(directory, 20, 2), put_le(directory, 0, 2);
    put_le(directory, method, 2), put_le(directory, 0, 4), put_le(directory, crc, 4), put_le(directory, packed.size(), 4);
    put_le(directory, data.size(), 4), put_le(directory, name.size(), 2), put_le(directory, 0, 2);
    put_le(directory, 0, 2), put_le(directory, 0, 2), put_le(directory, 0, 2), put_le(directory, 0, 4);
    put_le(directory, offset, 4);
    directory += name;
  }
  std::string end;
  put_le(end, 0x06054b50, 4), put_le(end, 0, 4), put_le(end, members.size(), 2), put_le(end, members.size(), 2);
  put_le(end, directory.size(), 4), put_le(end, local.size(), 4), put_le(end, 0, 2);
  return local + directory + end;
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

TEST_CASE("line reader reads a line longer than its chunks, and refuses one above kMaxLineBytes", "[core][io]") {
  // Issue #18: /dev/zero, or a 9 MB gzip that inflates to one 9.4 GiB line, hung the reader,
  // which searched its whole buffer again after every 64 KB read.
  const std::string long_line(3 * (1 << 16) + 17, 'x');
  const fs::path p = temp_file("long.txt");
  std::ofstream(p, std::ios::binary) << "a\n" << long_line << "\nb";
  io::LineReader reader(p.string());
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "a");
  REQUIRE(reader.next(line));
  CHECK(line == long_line);
  REQUIRE(reader.next(line));
  CHECK(line == "b");
  CHECK_FALSE(reader.next(line));

  const fs::path endless = temp_file("endless.txt");
  std::ofstream(endless, std::ios::binary) << "first\n" << std::string(io::kMaxLineBytes + 1, 'y') << "\n";
  io::LineReader too_long(endless.string());
  REQUIRE(too_long.next(line));
  CHECK_THROWS_WITH(too_long.next(line), Catch::StartsWith(endless.string() + ":2: a line longer than 16 MiB"));
  // /dev/zero: no line break ever (and NULs); stops at the bound instead of reading forever.
  if (fs::exists("/dev/zero")) {
    io::LineReader zeros("/dev/zero");
    CHECK_THROWS_WITH(zeros.next(line), Catch::Contains("a line longer than 16 MiB"));
  }
}

TEST_CASE("line reader refuses a truncated gzip file instead of reading it as complete", "[core][io]") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
  const fs::path whole = temp_file("whole.txt.gz");
  gzFile gz = gzopen(whole.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::ifstream in(whole, std::ios::binary);
  const std::string packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path cut = temp_file("cut.txt.gz");
  std::ofstream(cut, std::ios::binary) << packed.substr(0, packed.size() / 2);

  io::LineReader reader(cut.string());
  std::string line;
  std::size_t lines = 0;
  try {
    while (reader.next(line)) ++lines;
    FAIL("the truncated file was read as complete, " << lines << " lines");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(cut.string()) && Catch::Contains("truncated"));
  }
}

TEST_CASE("line reader: a folder or a symlink loop is an input error, a long token is quoted short", "[core][io]") {
  const fs::path dir = temp_file("a_folder");
  fs::create_directories(dir);
  CHECK_THROWS_WITH(io::LineReader(dir.string()), dir.string() + ": is a folder, expected a file");
  const fs::path loop = temp_file("loop");
  fs::remove(loop);
  fs::create_symlink(loop, loop);
  CHECK_THROWS_AS(io::LineReader(loop.string()), InputError);

  const fs::path p = temp_file("token.txt");
  std::ofstream(p) << "1\n";
  io::LineReader reader(p.string());
  std::string line;
  reader.next(line);
  try {
    reader.parse_int(std::string(5'000'000, '7') + "x", "a node id");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).size() < 300);
    CHECK_THAT(e.what(), Catch::Contains("(5000001 bytes)"));
  }
}

TEST_CASE("a ReadProgress reports the MiB read of large files, and only while it lives", "[core][io]") {
  attend::testing::TempDir dir;
  const std::string path = dir.file("big.txt");
  {
    std::ofstream out(path);
    const std::string line(1023, 'x');
    for (int i = 0; i < 3 * 1024; ++i) out << line << '\n';  // 3 MiB
  }
  const auto read_all = [&] {
    attend::io::LineReader reader(path);
    std::string line;
    int64_t lines = 0;
    while (reader.next(line)) ++lines;
    return lines;
  };
  ShownProgress shown;
  {
    attend::io::ReadProgress progress(shown.options(), int64_t{1} << 20);
    CHECK(attend::io::ReadProgress::active() == &progress);
    CHECK(read_all() == 3 * 1024);
    {
      attend::io::ReadProgress larger(shown.options(), int64_t{4} << 20);  // the innermost decides: too small to show
      CHECK(read_all() == 3 * 1024);
    }
  }
  CHECK(attend::io::ReadProgress::active() == nullptr);
  const std::string text = shown.text();
  CHECK(text.find("reading big.txt (MiB) 1/3") != std::string::npos);
  CHECK(text.find("reading big.txt (MiB) 3/3") != std::string::npos);
  CHECK(shown.lines() == 3);  // one reader reported, 1, 2 and 3 MiB
  CHECK(read_all() == 3 * 1024);
  CHECK(shown.text() == text);
}

TEST_CASE("a ReadProgress reports the MiB read of a large .npy file", "[core][io]") {
  attend::testing::TempDir dir;
  const std::string path = dir.file("big.npy");
  const int64_t rows = 3 * 1024 * 256;  // float32 [rows, 1]: 3 MiB of data
  std::ofstream(path, std::ios::binary) << npy_f32_column(rows, [](int64_t) { return 0; });
  ShownProgress shown;
  {
    attend::io::ReadProgress progress(shown.options(), int64_t{1} << 20);
    CHECK(attend::io::read_npy(path).numel() == rows);
  }
  const std::string text = shown.text();
  CHECK(text.find("reading big.npy (MiB) 1/4") != std::string::npos);
  CHECK(text.find("reading big.npy (MiB) 4/4") != std::string::npos);  // the header's bytes make a 4th MiB
  CHECK(shown.lines() == 4);
  CHECK(attend::io::read_npy(path).numel() == rows);  // no ReadProgress: nothing shown
  CHECK(shown.text() == text);
}

TEST_CASE("a ReadProgress reports the MiB read of each large .npz member, stored or deflated", "[core][io]") {
  attend::testing::TempDir dir;
  const std::string path = dir.file("big.npz");
  uint64_t state = 12345;  // bytes deflate cannot shrink: its member stays over 2 MiB as stored
  const auto noise = [&state](int64_t) { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 56; };
  const std::string x = npy_f32_column(3 * 1024 * 256, [](int64_t i) { return i % 7; });  // 3 MiB of data, stored
  const std::string y = npy_f32_column(2 * 1024 * 256, noise);                           // 2 MiB, deflated
  const std::string small = npy_f32_column(16, [](int64_t i) { return i; });             // below 1 MiB: no line
  std::ofstream(path, std::ios::binary) << zip_of({{"x.npy", x, 0}, {"y.npy", y, 8}, {"small.npy", small, 8}});
  ShownProgress shown;
  {
    attend::io::ReadProgress progress(shown.options(), int64_t{1} << 20);
    attend::io::ZipArchive archive(path);
    CHECK(archive.read("x.npy") == x);  // read in pieces, each a step
    CHECK(archive.read("y.npy") == y);  // inflated piece by piece as read
    CHECK(archive.read("small.npy") == small);
  }
  const std::string text = shown.text();
  INFO(text);
  for (const char* step : {"1/4", "2/4", "3/4", "4/4"}) {  // the header's bytes make a 4th MiB
    CHECK(text.find(std::string("reading big.npz:x.npy (MiB) ") + step) != std::string::npos);
  }
  CHECK(text.find("reading big.npz:y.npy (MiB) 3/3") != std::string::npos);  // 2 MiB and a little, as stored
  CHECK(text.find("small.npy") == std::string::npos);
  CHECK(shown.lines() == 4 + 3);
  attend::io::ZipArchive quiet(path);
  CHECK(quiet.read("y.npy") == y);  // no ReadProgress: nothing shown
  CHECK(shown.text() == text);
}
