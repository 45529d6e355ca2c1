#include <catch2/catch.hpp>

#include <stdexcept>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::read_text_file;
using attend::testing::TempDir;
using attend::testing::write_text_file;

TEST_CASE("AtomicOutput replaces the destination only on commit", "[core][io]") {
  TempDir dir;
  const std::string dest = dir.file("out.txt");
  write_text_file(dest, "old");
  AtomicOutput output(dest);
  CHECK(output.destination() == dest);
  CHECK(output.temp_path().rfind(dest + ".tmp.", 0) == 0);
  write_text_file(output.temp_path(), "new");
  CHECK(read_text_file(dest) == "old");
  output.commit();
  CHECK(output.committed());
  CHECK(read_text_file(dest) == "new");
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("AtomicOutput removes its temporary file when not committed", "[core][io]") {
  TempDir dir;
  const std::string dest = dir.file("out.txt");
  SECTION("no previous file") {
    CHECK_THROWS_AS(
        [&] {
          AtomicOutput output(dest);
          write_text_file(output.temp_path(), "partial");
          throw std::runtime_error("failure while writing");
        }(),
        std::runtime_error);
    CHECK(dir.entries().empty());
  }
  SECTION("the previous file survives") {
    write_text_file(dest, "old");
    {
      AtomicOutput output(dest);
      write_text_file(output.temp_path(), "partial");
    }
    CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
    CHECK(read_text_file(dest) == "old");
  }
}

TEST_CASE("AtomicOutput temporary paths are distinct", "[core][io]") {
  TempDir dir;
  AtomicOutput a(dir.file("x"));
  AtomicOutput b(dir.file("x"));
  CHECK(a.temp_path() != b.temp_path());
}

TEST_CASE("AtomicOutput reports a missing directory and an empty commit", "[core][io]") {
  TempDir dir;
  CHECK_THROWS_AS(AtomicOutput(dir.file("missing/out.txt")), InputError);
  AtomicOutput output(dir.file("out.txt"));
  CHECK_THROWS_AS(output.commit(), InputError);
  CHECK(dir.entries().empty());
}
