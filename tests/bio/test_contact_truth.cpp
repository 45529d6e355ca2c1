#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "attend/bio/contact_truth.hpp"
#include "attend/core/error.hpp"

using namespace attend::bio;
namespace fs = std::filesystem;

TEST_CASE("contacts from the small PDB follow C-beta / C-alpha distances below 8 A", "[bio]") {
  // Query with an extra residue (W) that the structure lacks; chain A is AGSMLK with
  // points ALA (1,0,0), GLY (3.8,0,0), SER (7.6,2,0), MSE (11.4,1.5,0), LEU (15.2,0,0),
  // LYS (19,1,0).
  const ContactMap map = contacts_from_pdb(ATTEND_BIO_FIXTURES "/fixtures/small.pdb", "AGSMWLK");
  REQUIRE(map.length() == 7);
  for (int64_t j = 0; j < 7; ++j) {
    if (j != 4) CHECK_FALSE(map.evaluable(4, j));  // W: no structure
  }
  CHECK(map.distance(0, 1) == Approx(2.8));
  CHECK(map.contact(0, 1));
  CHECK(map.distance(0, 2) == Approx(std::sqrt(6.6 * 6.6 + 4.0)));  // 6.90 A
  CHECK(map.contact(0, 2));
  CHECK(map.distance(0, 3) == Approx(std::sqrt(10.4 * 10.4 + 1.5 * 1.5)));  // 10.5 A
  CHECK_FALSE(map.contact(0, 3));
  CHECK(map.distance(5, 6) == Approx(std::sqrt(3.8 * 3.8 + 1.0)));  // LEU - LYS
  CHECK(map.contact(6, 5));  // symmetric
  CHECK(std::isnan(map.distance(4, 5)));
}

TEST_CASE("a structure that matches the query nowhere is an input error, and a weak match is reported", "[bio]") {
  const std::string pdb = ATTEND_BIO_FIXTURES "/fixtures/small.pdb";  // chain A: AGSMLK
  try {
    contacts_from_pdb(pdb, "PPPPPPP");
    FAIL("an unrelated query was accepted");
  } catch (const attend::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("small.pdb") && Catch::Contains("no residue of chain 'A'") &&
                             Catch::Contains("is it the structure of this protein?"));
  }
  StructureMapping mapping;
  contacts_from_pdb(pdb, "AGSMWLK", "", kContactCutoff, &mapping);
  CHECK(mapping.aligned == 6);
  CHECK(mapping.identical == 6);
  CHECK(mapping.structure_residues == 6);
  contacts_from_pdb(pdb, "AGTTTK", "", kContactCutoff, &mapping);  // A, G and K of 6 identical
  CHECK(mapping.aligned == 6);
  CHECK(mapping.identical == 3);
}

TEST_CASE("the cutoff is strict", "[bio]") {
  const std::vector<std::optional<Point3>> points = {Point3{0, 0, 0}, Point3{8, 0, 0}, std::nullopt,
                                                     Point3{0, 7.5, 0}};
  const ContactMap map = contacts_from_points(points);
  CHECK(map.evaluable(0, 1));
  CHECK_FALSE(map.contact(0, 1));  // exactly 8 A
  CHECK(map.contact(0, 3));
  CHECK_FALSE(map.evaluable(1, 2));
  CHECK_FALSE(map.evaluable(0, 0));
}

TEST_CASE("the contacts TSV reader keeps only the listed pairs", "[bio][io]") {
  const fs::path path = fs::temp_directory_path() / "attend_test_contacts.tsv";
  std::ofstream(path) << "#id test\n#L 6\n#columns i j dist contact\n1\t2\t3.800\t1\n"
                         "2 5 NA 0\n\n4\t1\t7.250\t1\n";
  const ContactMap map = read_contacts_tsv(path.string());
  CHECK(map.length() == 6);
  CHECK(map.contact(0, 1));
  CHECK(map.distance(1, 0) == 3.8f);
  CHECK(map.evaluable(1, 4));
  CHECK_FALSE(map.contact(1, 4));
  CHECK(std::isnan(map.distance(1, 4)));
  CHECK(map.contact(0, 3));  // written as 4 1
  CHECK_FALSE(map.evaluable(0, 2));
  CHECK_FALSE(map.evaluable(4, 5));

  std::ofstream(path) << "1\t3\tNA\t1\n";  // no #L: L is the largest index
  CHECK(read_contacts_tsv(path.string()).length() == 3);
}

TEST_CASE("a structure without C-alpha or C-beta atoms is an input error, not a table of zeros", "[bio]") {
  // Issue #18: a PDB with no CA/CB atoms gave an all-zero precision table with no warning.
  std::ifstream in(ATTEND_BIO_FIXTURES "/fixtures/small.pdb");
  std::string without, one_left, line;
  int kept = 0;
  while (std::getline(in, line)) {
    std::string renamed = line;
    if (line.size() > 16 && (line.compare(12, 4, " CA ") == 0 || line.compare(12, 4, " CB ") == 0)) {
      renamed.replace(12, 4, " O  ");
    }
    without += renamed + "\n";
    // Residues 1 and 2 (ALA, GLY) keep their atoms in the second file.
    const bool first_two = line.size() > 26 && (line.compare(22, 4, "   1") == 0 || line.compare(22, 4, "   2") == 0);
    one_left += (first_two ? line : renamed) + "\n";
    kept += renamed != line;
  }
  REQUIRE(kept > 0);
  const fs::path dir = fs::temp_directory_path() / "attend_test_contact_truth";
  fs::create_directories(dir);
  const std::string none = (dir / "no_ca_cb.pdb").string(), two = (dir / "two_located.pdb").string();
  std::ofstream(none) << without;
  std::ofstream(two) << one_left;
  CHECK_THROWS_WITH(contacts_from_pdb(none, "AGSMLK"),
                    Catch::Contains("no_ca_cb.pdb") && Catch::Contains("0 of the 6 residues aligned to the query have a CA or CB atom"));
  StructureMapping mapping;
  contacts_from_pdb(two, "AGSMLK", "", kContactCutoff, &mapping);
  CHECK(mapping.aligned == 6);
  CHECK(mapping.with_coordinates == 2);  // the command line warns: fewer than half
}
