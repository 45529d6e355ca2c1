#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/bio/alignment.hpp"
#include "attend/core/error.hpp"

using namespace attend;
using namespace attend::bio;
namespace fs = std::filesystem;

namespace {
const std::string kFixtures = ATTEND_BIO_FIXTURES "/fixtures/";

// The three sequences every tiny fixture encodes, after insertions are removed.
// X and B read as gaps (CCMpred's convention).
const std::vector<std::string> kTinyRows = {"ARNDCQEG", "AR-DCQ-G", "-RND-QEG"};

std::vector<std::string> rows(const Alignment& a) {
  std::vector<std::string> out;
  for (int64_t n = 0; n < a.num_sequences(); ++n) out.push_back(a.sequence(n));
  return out;
}

fs::path temp_copy(const std::string& fixture, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "attend_test_alignment_readers";
  fs::create_directories(dir);
  fs::copy_file(kFixtures + fixture, dir / name, fs::copy_options::overwrite_existing);
  return dir / name;
}
}  // namespace

TEST_CASE("every alignment format reads the tiny fixture alike", "[bio][io]") {
  for (const std::string file : {"tiny.a3m", "tiny.fasta", "tiny_packed.fasta.gz", "tiny.a2m", "tiny.sto"}) {
    INFO(file);
    const Alignment a = read_alignment(kFixtures + file);
    CHECK(a.length == 8);
    REQUIRE(a.num_sequences() == 3);
    CHECK(a.codes.size() == 24);
    CHECK(a.query == 0);
    CHECK(rows(a) == kTinyRows);
    CHECK(a.names == std::vector<std::string>{"query", "s1", "s2"});
  }
  const Alignment aln = read_alignment(kFixtures + "tiny.aln");
  CHECK(rows(aln) == kTinyRows);
  CHECK(aln.names == std::vector<std::string>{"1", "2", "3"});
  // Codes, not just letters: A R N D C Q E G are codes 0..7 in attend's order.
  const Alignment a = read_alignment(kFixtures + "tiny.fasta");
  CHECK(std::vector<uint8_t>(a.row(0), a.row(0) + 8) == std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("the query can be chosen by name and becomes row 0", "[bio][io]") {
  const Alignment a = read_alignment(kFixtures + "tiny.sto", AlignmentFormat::kAuto, "s2");
  CHECK(a.names == std::vector<std::string>{"s2", "query", "s1"});
  CHECK(rows(a) == std::vector<std::string>{kTinyRows[2], kTinyRows[0], kTinyRows[1]});
  const Alignment b = read_alignment(kFixtures + "tiny.aln", AlignmentFormat::kPsicov, "2");
  CHECK(b.sequence(0) == kTinyRows[1]);
  CHECK_THROWS_WITH(read_alignment(kFixtures + "tiny.a3m", AlignmentFormat::kAuto, "nope"),
                    Catch::Contains("tiny.a3m: no sequence named 'nope'"));
}

TEST_CASE("the alignment format comes from the extension, else from the content", "[bio][io]") {
  CHECK(detect_alignment_format("x.a3m") == AlignmentFormat::kA3m);
  CHECK(detect_alignment_format("x.A2M") == AlignmentFormat::kFasta);
  CHECK(detect_alignment_format("x.fa.gz") == AlignmentFormat::kFasta);
  CHECK(detect_alignment_format("x.aln.gz") == AlignmentFormat::kPsicov);
  CHECK(detect_alignment_format("x.sto") == AlignmentFormat::kStockholm);
  CHECK(detect_alignment_format(temp_copy("tiny.sto", "sto_noext").string()) == AlignmentFormat::kStockholm);
  CHECK(detect_alignment_format(temp_copy("tiny.a3m", "a3m_noext").string()) == AlignmentFormat::kA3m);
  CHECK(detect_alignment_format(temp_copy("tiny.a2m", "fasta_noext").string()) == AlignmentFormat::kFasta);
  CHECK(detect_alignment_format(temp_copy("tiny.aln", "aln_noext.txt").string()) == AlignmentFormat::kPsicov);
  CHECK(rows(read_alignment(temp_copy("tiny.sto", "sto_noext").string())) == kTinyRows);

  CHECK(parse_alignment_format("Stockholm") == AlignmentFormat::kStockholm);
  CHECK(parse_alignment_format("a2m") == AlignmentFormat::kFasta);
  CHECK_THROWS_AS(parse_alignment_format("clustal"), InputError);
}

TEST_CASE("a format forced on the wrong file fails with file and line", "[bio][io]") {
  // The Stockholm header read as a PSICOV row: '#' is not a residue.
  CHECK_THROWS_WITH(read_alignment(kFixtures + "tiny.sto", AlignmentFormat::kPsicov),
                    Catch::Contains("tiny.sto:1: unknown residue character '#'"));
}
