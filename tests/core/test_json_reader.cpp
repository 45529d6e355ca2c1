#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/json_reader.hpp"
#include "temp_dir.hpp"

using namespace attend;
using Catch::Contains;

TEST_CASE("parse_json reads JSON and names the source of a syntax error", "[core][io]") {
  const Json j = parse_json(R"({"heads": 8, "dropout": 0.6, "layers": [[1], {"a": null}]})", "model.json");
  CHECK(j["heads"] == 8);
  CHECK(j["layers"][1]["a"].is_null());
  CHECK_THROWS_WITH(parse_json("{\"heads\": }", "model.json"), Contains("model.json: not valid JSON: "));
  CHECK_THROWS_WITH(parse_json("[1,", "f.h5", "dataset '/model'"), Contains("f.h5: dataset '/model': not valid JSON"));
}

TEST_CASE("parse_json refuses nesting deeper than kMaxJsonDepth with a short message", "[core][io]") {
  // Issue #18: 200,000 levels overflowed the stack while the error message was built; 20,000
  // levels printed a 40 KB line.
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(parse_json(nested(kMaxJsonDepth), "ok.json").is_array());
  for (int depth : {kMaxJsonDepth + 1, 20'000, 200'000}) {
    try {
      parse_json(nested(depth), "deep.json");
      FAIL("no exception at depth " << depth);
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) == "deep.json: JSON nested deeper than 100 levels, the most attend reads");
    }
  }
}

TEST_CASE("parse_json refuses numbers beyond a double, and quotes a long token short", "[core][io]") {
  // Issue #18: 1e999 became infinity and failed later as an internal error.
  for (const char* text : {"1e999", R"({"lr": -1e400})", "[0, 1E+999]"}) {
    CHECK_THROWS_WITH(parse_json(text, "--options"), Contains("--options: a JSON number too large for a double"));
  }
  CHECK(parse_json("1e300", "x").get<double>() == 1e300);
  try {
    parse_json("\"" + std::string(5'000'000, 'a'), "long.json");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).size() < 400);
  }
}

TEST_CASE("read_json_file: a folder, a missing file and an endless file are input errors", "[core][io]") {
  attend::testing::TempDir tmp;
  std::ofstream(tmp.file("m.json")) << R"({"layers": []})";
  CHECK(read_json_file(tmp.file("m.json")).contains("layers"));
  CHECK_THROWS_AS(read_json_file(tmp.path().string()), InputError);
  CHECK_THROWS_AS(read_json_file(tmp.file("missing.json")), InputError);
  if (std::filesystem::exists("/dev/zero")) {
    CHECK_THROWS_WITH(read_json_file("/dev/zero"), Contains("16 MiB"));
  }
}
