#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
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
  // Hidden, beside the destination, named after it.
  CHECK(output.temp_path().rfind(dir.file(".out.txt.tmp."), 0) == 0);
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

TEST_CASE("AtomicOutput refuses a directory or a device as its destination", "[core][io]") {
  TempDir dir;
  CHECK_THROWS_AS(AtomicOutput(dir.path().string()), InputError);
  CHECK_THROWS_AS(AtomicOutput("/dev/null"), InputError);
  CHECK(dir.entries().empty());
}

TEST_CASE("AtomicOutput shortens the temporary name of a long destination name", "[core][io]") {
  TempDir dir;
  const std::string dest = dir.file(std::string(250, 'n'));
  AtomicOutput output(dest);
  CHECK(std::filesystem::path(output.temp_path()).filename().string().size() <= 255);
  write_text_file(output.temp_path(), "long");
  output.commit();
  CHECK(read_text_file(dest) == "long");
}

TEST_CASE("AtomicOutput removes the temporary files of killed writers, not of running ones", "[core][io]") {
  TempDir dir;
  const std::string dest = dir.file("out.txt");
  // A writer killed (SIGKILL) in the middle of its write leaves its temporary file.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      AtomicOutput output(dest);
      write_text_file(output.temp_path(), "partial");
      ::raise(SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(dir.entries().size() == 1);
  const std::string killed = dir.entries().front();
  CHECK(killed.rfind(".out.txt.tmp.", 0) == 0);
  // This process writes another file there, and its temporary file must survive...
  AtomicOutput running(dir.file("other.txt"));
  write_text_file(running.temp_path(), "in progress");
  // ...the next writer of the directory removes the dead writer's.
  AtomicOutput next(dest);
  CHECK(dir.entries() == std::vector<std::string>{std::filesystem::path(running.temp_path()).filename().string()});
}

TEST_CASE("AtomicOutput removes the temporary files that earlier versions left beside its destination", "[core][io]") {
  // Issue #18 (a gap left open): versions before the hidden temporaries wrote
  // `<name>.tmp.<pid>.<n>` next to the output, and a killed writer's file stayed for good.
  TempDir dir;
  const pid_t dead = ::fork();  // a process id that no longer runs
  REQUIRE(dead >= 0);
  if (dead == 0) ::_exit(0);
  int status = 0;
  REQUIRE(::waitpid(dead, &status, 0) == dead);
  const std::string gone = std::to_string(dead), alive = std::to_string(::getpid());
  for (const std::string& name : std::vector<std::string>{
           "out.txt.tmp." + gone + ".0",    // a killed writer of out.txt: removed
           "out.txt.tmp." + alive + ".3",   // a running writer: kept
           "other.txt.tmp." + gone + ".0",  // another destination: kept
           "out.txt.tmp.notes",             // no writer's number: kept
           "out.txt.tmp." + gone}) {        // no counter: kept
    write_text_file(dir.file(name), "old temporary");
  }
  AtomicOutput output(dir.file("out.txt"));
  std::vector<std::string> kept = {"other.txt.tmp." + gone + ".0", "out.txt.tmp." + alive + ".3", "out.txt.tmp." + gone,
                                   "out.txt.tmp.notes"};
  std::sort(kept.begin(), kept.end());
  CHECK(dir.entries() == kept);
}
