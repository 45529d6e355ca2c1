#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/bio/alignment.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/bio/pdb_reader.hpp"
#include "attend/core/io/line_reader.hpp"

using namespace attend;
using namespace attend::bio;

namespace {
const std::string kProteins = ATTEND_DATA_DIR "/proteins/";

// One row of a FAMILIES.tsv: L, N and the long-range counts documented for a family.
struct FamilyCounts {
  int64_t length, depth, long_range_contacts, long_range_pairs;
};

std::map<std::string, FamilyCounts> read_families(const std::string& set) {
  io::LineReader reader(kProteins + set + "/FAMILIES.tsv");
  std::map<std::string, FamilyCounts> out;
  std::string line;
  reader.next(line);  // header
  while (reader.next(line)) {
    const auto f = io::split_on(line, '\t');
    out[f[0]] = {reader.parse_int(f[1], "L"), reader.parse_int(f[2], "N"), reader.parse_int(f[3], "contacts"),
                 reader.parse_int(f[4], "pairs")};
  }
  return out;
}

// Long-range counts of a truth map through the metric's own candidate selection.
void check_long_range_counts(const ContactMap& truth, const FamilyCounts& expected) {
  const Tensor zeros({truth.length(), truth.length()});
  const ContactPrecision p = evaluate_contacts(zeros, truth);
  CHECK(p.long_range.evaluable_pairs == expected.long_range_pairs);
  CHECK(p.long_range.true_contacts == expected.long_range_contacts);
}
}  // namespace

TEST_CASE("the shipped PSICOV alignments and contacts have the documented counts", "[bio][io]") {
  const auto families = read_families("psicov_subset");
  REQUIRE(families.size() == 2);
  for (const std::string id : {"1atzA", "1guuA"}) {
    INFO(id);
    const FamilyCounts& counts = families.at(id);
    const Alignment a = read_alignment(kProteins + "psicov_subset/aln/" + id + ".aln.gz");
    CHECK(a.length == counts.length);
    CHECK(a.num_sequences() == counts.depth);
    CHECK(a.sequence(0).find('-') == std::string::npos);  // the query row is gap-free
    const ContactMap truth = read_contacts_tsv(kProteins + "psicov_subset/contacts/" + id + ".tsv.gz");
    CHECK(truth.length() == counts.length);
    check_long_range_counts(truth, counts);
  }
}

TEST_CASE("the shipped Pfam family has the documented counts", "[bio][io]") {
  const FamilyCounts counts = read_families("pfam_attentiondca").at("PF00014");
  const Alignment a = read_alignment(kProteins + "pfam_attentiondca/msa/PF00014.fasta.gz");
  CHECK(a.length == counts.length);
  CHECK(a.num_sequences() == counts.depth);
  CHECK(a.names[0] == "A0A0V1MAN1_9BILA/990-1042");
  const ContactMap truth = read_contacts_tsv(kProteins + "pfam_attentiondca/contacts/PF00014.tsv.gz");
  CHECK(truth.length() == counts.length);
  check_long_range_counts(truth, counts);
}

TEST_CASE("1atzA contacts computed from the shipped PDB equal the shipped TSV", "[bio][io]") {
  const std::string base = kProteins + "psicov_subset/";
  const Alignment a = read_alignment(base + "aln/1atzA.aln.gz");
  const PdbChain chain = read_pdb_chain(base + "pdb/1atzA.pdb.gz");
  CHECK(chain.id == ' ');
  CHECK(chain.sequence() == a.sequence(0));

  const ContactMap computed = contacts_from_pdb(base + "pdb/1atzA.pdb.gz", a.sequence(0));
  const ContactMap shipped = read_contacts_tsv(base + "contacts/1atzA.tsv.gz");
  REQUIRE(computed.length() == shipped.length());
  int64_t pairs = 0, contacts = 0, mismatches = 0;
  float worst = 0.0f;
  for (int64_t i = 0; i < computed.length(); ++i) {
    for (int64_t j = 0; j < computed.length(); ++j) {
      if (i == j) continue;
      mismatches += computed.evaluable(i, j) != shipped.evaluable(i, j);
      mismatches += computed.contact(i, j) != shipped.contact(i, j);
      if (!shipped.evaluable(i, j)) continue;
      ++pairs;
      contacts += shipped.contact(i, j);
      worst = std::max(worst, std::abs(computed.distance(i, j) - shipped.distance(i, j)));
    }
  }
  CHECK(mismatches == 0);
  CHECK(pairs == 75 * 74);  // every ordered pair: the model covers all 75 positions
  CHECK(contacts > 0);
  CHECK(worst <= 0.0006f);  // the TSV rounds distances to 3 decimals
}
