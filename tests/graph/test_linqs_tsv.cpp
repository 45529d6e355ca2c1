#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/graph/linqs.hpp"
#include "attend/graph/tsv_triples.hpp"

using namespace attend;
using namespace attend::graph;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
std::string write(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "attend_test_linqs_tsv";
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("LINQS content and cites load", "[graph][io]") {
  const auto content = write("tiny.content", "p1\t0\t1\t0\tB\np2\t1\t0\t0\tA\np3\t0\t0\t1\tB\n");
  const auto cites = write("tiny.cites", "p1\tp2\np3\tp1\nzz\tp1\n");
  const NodeDataset d = load_linqs(content, cites);
  CHECK(d.num_nodes == 3);
  CHECK(d.num_features() == 3);
  CHECK(d.labels == std::vector<int64_t>{1, 0, 1});
  CHECK(d.edge_src == std::vector<int64_t>{1, 0});  // citing -> cited
  CHECK(d.edge_dst == std::vector<int64_t>{0, 2});
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Contains("1 citations"));
}

TEST_CASE("broken LINQS files name file and line", "[graph][io]") {
  const auto cites = write("ok.cites", "p1\tp2\n");
  CHECK_THAT(error_of([&] { load_linqs(write("w.content", "p1\t0\t1\tA\np2\t1\tA\n"), cites); }),
             Contains("w.content:2: expected 2 features"));
  CHECK_THAT(error_of([&] { load_linqs(write("d.content", "p1\t0\tA\np1\t1\tA\n"), cites); }),
             Contains("d.content:2: paper id 'p1' appears twice"));
  CHECK_THAT(error_of([&] { load_linqs(write("v.content", "p1\tx\tA\n"), cites); }),
             Contains("v.content:1: expected a feature value"));
  CHECK_THAT(error_of([&] { load_linqs(write("e.content", ""), cites); }), Contains("no papers"));
  CHECK_THAT(error_of([&] { load_linqs(write("ok.content", "p1\t0\tA\np2\t1\tA\n"), write("b.cites", "p1 p2 p3\n")); }),
             Contains("b.cites:1: expected 'cited<TAB>citing'"));
}

TEST_CASE("TSV triples load and report bad lines", "[graph][io]") {
  const NodeDataset d = load_tsv_triples({write("a.tsv", "x\tr1\ty\ny\tr2\tz\n"), write("b.tsv", "z\tr1\tx\n")});
  CHECK(d.num_nodes == 3);
  CHECK(d.num_relations() == 2);
  CHECK(d.edge_type == std::vector<int64_t>{0, 1, 0});
  CHECK_THAT(error_of([&] { load_tsv_triples({write("c.tsv", "x\tr1\ty\nx r1 y\n")}); }),
             Contains("c.tsv:2: expected 'head<TAB>relation<TAB>tail'"));
}

TEST_CASE("an empty TSV triples file is refused, also beside a full one", "[graph][io]") {
  // Issue #18: an empty triples file was accepted (a graph of nothing, exit 0).
  const std::string empty = write("empty.tsv", "");
  const std::string blank = write("blank.tsv", "\n\n");
  CHECK(error_of([&] { load_tsv_triples({empty}); }) == empty + ": no triples (an empty file?)");
  CHECK(error_of([&] { load_tsv_triples({write("full.tsv", "x\tr\ty\n"), blank}); }) ==
        blank + ": no triples (an empty file?)");
}
