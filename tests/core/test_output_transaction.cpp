#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/output_transaction.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::read_text_file;
using attend::testing::TempDir;
using attend::testing::write_text_file;
namespace fs = std::filesystem;

namespace {

// Write `text` to `path` through an AtomicOutput (as every writer of attend does).
void write_atomically(const std::string& path, const std::string& text) {
  AtomicOutput output(path);
  write_text_file(output.temp_path(), text);
  output.commit();
}

}  // namespace

TEST_CASE("OutputTransaction: the files appear together at commit", "[core][io]") {
  TempDir dir;
  write_text_file(dir.file("a.txt"), "old a");
  {
    OutputTransaction outputs;
    CHECK(OutputTransaction::current() == &outputs);
    write_atomically(dir.file("a.txt"), "new a");
    write_atomically(dir.file("b.txt"), "new b");
    CHECK(read_text_file(dir.file("a.txt")) == "old a");
    CHECK_FALSE(fs::exists(dir.file("b.txt")));
    outputs.commit();
    CHECK(read_text_file(dir.file("a.txt")) == "new a");
    CHECK(read_text_file(dir.file("b.txt")) == "new b");
    // Committed, the transaction collects the next set.
    write_atomically(dir.file("b.txt"), "newer b");
    outputs.commit();
  }
  CHECK(OutputTransaction::current() == nullptr);
  CHECK(read_text_file(dir.file("b.txt")) == "newer b");
  CHECK(dir.entries() == std::vector<std::string>{"a.txt", "b.txt"});
}

TEST_CASE("OutputTransaction: a failure before commit leaves every previous file", "[core][io]") {
  TempDir dir;
  write_text_file(dir.file("a.txt"), "old a");
  CHECK_THROWS_AS(
      [&] {
        OutputTransaction outputs;
        write_atomically(dir.file("a.txt"), "new a");
        write_atomically(dir.file("b.txt"), "new b");
        AtomicOutput third(dir.file("c.txt"));
        write_text_file(third.temp_path(), "partial");
        throw std::runtime_error("the third writer fails");
      }(),
      std::runtime_error);
  CHECK(read_text_file(dir.file("a.txt")) == "old a");
  CHECK(dir.entries() == std::vector<std::string>{"a.txt"});
}

TEST_CASE("OutputTransaction: a destination that turned into a directory stops the whole set", "[core][io]") {
  TempDir dir;
  OutputTransaction outputs;
  write_atomically(dir.file("a.txt"), "new a");
  write_atomically(dir.file("b.txt"), "new b");
  fs::create_directory(dir.file("b.txt"));
  CHECK_THROWS_AS(outputs.commit(), InputError);
  CHECK_FALSE(fs::exists(dir.file("a.txt")));
  CHECK(fs::is_empty(dir.file("b.txt")));
}

TEST_CASE("OutputTransaction: a destination written twice keeps the later file", "[core][io]") {
  TempDir dir;
  {
    OutputTransaction outputs;
    write_atomically(dir.file("a.txt"), "first");
    write_atomically(dir.file("a.txt"), "second");
    outputs.commit();
  }
  CHECK(read_text_file(dir.file("a.txt")) == "second");
  CHECK(dir.entries() == std::vector<std::string>{"a.txt"});
}

TEST_CASE("OutputTransaction: one at a time per thread", "[core][io]") {
  OutputTransaction outputs;
  CHECK_THROWS_AS(OutputTransaction(), Error);
}

TEST_CASE("OutputTransaction: concurrent processes never interleave their sets", "[core][io]") {
  // Two processes commit sets {a, b} of their own content in a loop; whoever holds the
  // directory's lock (as a commit does) must see a and b from one set, and so must the end.
  TempDir dir;
  const std::string a = dir.file("a.txt"), b = dir.file("b.txt");
  constexpr int kCommits = 40;
  std::vector<pid_t> writers;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 0;
      try {
        for (int i = 0; i < kCommits; ++i) {
          const std::string text = std::to_string(w) + ":" + std::to_string(i);
          OutputTransaction outputs;
          write_atomically(a, text);
          write_atomically(b, text);
          outputs.commit();
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    writers.push_back(pid);
  }
  int mixed = 0, seen = 0;
  std::vector<int> statuses(writers.size(), -1);
  const int directory = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(directory >= 0);
  for (bool running = true; running;) {
    running = false;
    for (std::size_t w = 0; w < writers.size(); ++w) {
      if (statuses[w] == -1 && ::waitpid(writers[w], &statuses[w], WNOHANG) == 0) {
        statuses[w] = -1;
        running = true;
      }
    }
    REQUIRE(::flock(directory, LOCK_EX) == 0);
    if (fs::exists(a) && fs::exists(b)) {
      ++seen;
      mixed += read_text_file(a) != read_text_file(b);
    }
    ::flock(directory, LOCK_UN);
  }
  ::close(directory);
  for (const int status : statuses) CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  INFO(seen << " looks");
  CHECK(mixed == 0);
  CHECK(read_text_file(a) == read_text_file(b));
  CHECK(dir.entries() == std::vector<std::string>{"a.txt", "b.txt"});
}
