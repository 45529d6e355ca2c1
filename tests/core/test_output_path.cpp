#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "attend/core/output_path.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::TempDir;
using attend::testing::write_text_file;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("output_path_problem accepts new and regular files only", "[core][io]") {
  TempDir dir;
  CHECK(output_path_problem(dir.file("new.txt")).empty());
  write_text_file(dir.file("old.txt"), "old");
  CHECK(output_path_problem(dir.file("old.txt")).empty());
  CHECK_THAT(output_path_problem(dir.path().string()), Contains("it is a directory"));
  CHECK_THAT(output_path_problem("/dev/null"), Contains("it is a device, not a regular file"));
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  CHECK_THAT(output_path_problem(dir.file("fifo")), Contains("it is a fifo"));
  CHECK_THAT(output_path_problem(dir.file("missing/new.txt")), Contains("directory '" + dir.file("missing") + "' does not exist"));
  CHECK_THAT(output_path_problem(dir.file("old.txt/new.txt")), Contains("does not exist"));
  CHECK_THAT(output_path_problem(dir.file(std::string(300, 'x'))), Contains("cannot check it"));
  CHECK_FALSE(output_path_problem("").empty());
  // A symbolic link is judged by what it names.
  fs::create_symlink("/dev/null", dir.file("null-link"));
  CHECK_THAT(output_path_problem(dir.file("null-link")), Contains("a device"));
}

TEST_CASE("same_file sees one file behind different paths", "[core][io]") {
  TempDir dir;
  fs::create_directories(dir.path() / "sub");
  write_text_file(dir.file("a.txt"), "a");
  write_text_file(dir.file("b.txt"), "b");
  CHECK(same_file(dir.file("a.txt"), dir.file("a.txt")));
  CHECK(same_file(dir.file("a.txt"), dir.file("sub/../a.txt")));
  CHECK(same_file(dir.file("a.txt"), dir.file("./a.txt")));
  CHECK_FALSE(same_file(dir.file("a.txt"), dir.file("b.txt")));
  fs::create_symlink(dir.file("a.txt"), dir.file("link.txt"));
  fs::create_hard_link(dir.file("a.txt"), dir.file("hard.txt"));
  CHECK(same_file(dir.file("link.txt"), dir.file("a.txt")));
  CHECK(same_file(dir.file("hard.txt"), dir.file("a.txt")));
  // Files that do not exist yet: the same resolved path, through a linked directory too.
  fs::create_directory_symlink(dir.path() / "sub", dir.path() / "sub-link");
  CHECK(same_file(dir.file("sub/new.txt"), dir.file("sub-link/new.txt")));
  CHECK(same_file(dir.file("new.txt"), dir.file("sub/../new.txt")));
  CHECK_FALSE(same_file(dir.file("new.txt"), dir.file("other.txt")));
  CHECK_FALSE(same_file(dir.file("new.txt"), dir.file("a.txt")));
}
