#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "temp_dir.hpp"

using namespace attend;
namespace fs = std::filesystem;

TEST_CASE("input paths: kinds, and loops, folders and missing files as input errors", "[core][io]") {
  // Issue #18: a symlink loop as --data threw std::filesystem_error (an internal error).
  attend::testing::TempDir tmp;
  std::ofstream(tmp.file("f.txt")) << "x\n";
  fs::create_symlink(tmp.file("b"), tmp.file("a"));
  fs::create_symlink(tmp.file("a"), tmp.file("b"));
  CHECK(io::path_kind(tmp.file("f.txt")) == io::PathKind::kFile);
  CHECK(io::path_kind(tmp.path().string()) == io::PathKind::kDirectory);
  CHECK(io::path_kind(tmp.file("none")) == io::PathKind::kMissing);
  if (fs::exists("/dev/null")) CHECK(io::path_kind("/dev/null") == io::PathKind::kOther);
  CHECK_THROWS_WITH(io::path_kind(tmp.file("a")), Catch::StartsWith(tmp.file("a") + ": cannot look at this path: "));
  CHECK_THROWS_WITH(io::require_input_file(tmp.path().string()), tmp.path().string() + ": is a folder, expected a file");
  CHECK_THROWS_WITH(io::require_input_file(tmp.file("none")), tmp.file("none") + ": no such file");
  CHECK_NOTHROW(io::require_input_file(tmp.file("f.txt")));
  CHECK(io::folder_entries(tmp.path().string()) ==
        std::vector<std::string>{tmp.file("a"), tmp.file("b"), tmp.file("f.txt")});
  CHECK_THROWS_AS(io::folder_entries(tmp.file("f.txt")), InputError);
}
