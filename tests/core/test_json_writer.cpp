// write_json_file: complete files or none, never a partial one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/json_writer.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("write_json_file writes the value and leaves no temporary file", "[core]") {
  attend::testing::TempDir dir;
  const fs::path target = dir.path() / "out.json";
  const nlohmann::json value = {{"layers", {{{"name", "gat"}, {"origin", "built-in"}}}}, {"n", 3}};
  attend::write_json_file(target.string(), value);
  CHECK(read_json(target) == value);
  CHECK(dir.entries().size() == 1);
}

TEST_CASE("write_json_file replaces an existing file whole", "[core]") {
  attend::testing::TempDir dir;
  const fs::path target = dir.path() / "out.json";
  attend::write_json_file(target.string(), {{"long", std::string(10000, 'x')}});
  const nlohmann::json small = {{"short", 1}};
  attend::write_json_file(target.string(), small);
  CHECK(read_json(target) == small);
  CHECK(dir.entries().size() == 1);
}

TEST_CASE("write_json_file reports an unwritable path as an input error", "[core]") {
  attend::testing::TempDir dir;
  // The target's directory does not exist: nothing may be created anywhere.
  const fs::path target = dir.path() / "missing" / "out.json";
  CHECK_THROWS_AS(attend::write_json_file(target.string(), {{"a", 1}}), attend::InputError);
  CHECK(dir.entries().size() == 0);
  // The target is a directory: the rename fails and the temporary file is removed.
  fs::create_directories(dir.path() / "taken");
  CHECK_THROWS_AS(attend::write_json_file((dir.path() / "taken").string(), {{"a", 1}}),
                  attend::InputError);
  CHECK(dir.entries().size() == 1);
  CHECK(fs::is_empty(dir.path() / "taken"));
}
