#include <catch2/catch.hpp>

#include "attend/bio/pdb_reader.hpp"
#include "attend/core/error.hpp"

using namespace attend;
using namespace attend::bio;

namespace {
const std::string kSmall = ATTEND_BIO_FIXTURES "/fixtures/small.pdb";

void check_point(const Point3& p, double x, double y, double z) {
  CHECK(p.x == Approx(x));
  CHECK(p.y == Approx(y));
  CHECK(p.z == Approx(z));
}
}  // namespace

TEST_CASE("the PDB reader handles altloc, insertion codes, MSE, GLY and missing CB", "[bio][io]") {
  const PdbChain chain = read_pdb_chain(kSmall);  // first chain: A, model 1 only
  CHECK(chain.id == 'A');
  CHECK(chain.sequence() == "AGSMLK");  // HOH ignored, MSE read as M, 5A is its own residue
  REQUIRE(chain.residues.size() == 6);
  CHECK(chain.residues[3].name == "MSE");
  CHECK(chain.residues[4].number == 5);
  CHECK(chain.residues[4].insertion_code == ' ');
  CHECK(chain.residues[5].number == 5);
  CHECK(chain.residues[5].insertion_code == 'A');

  check_point(chain.residues[0].position(), 1.0, 0.0, 0.0);    // ALA: C-beta (model 2 ignored)
  check_point(chain.residues[1].position(), 3.8, 0.0, 0.0);    // GLY: C-alpha
  check_point(chain.residues[2].position(), 7.6, 2.0, 0.0);    // SER: C-beta of altloc A
  check_point(chain.residues[2].ca, 7.6, 0.0, 0.0);            // C-alpha of altloc A
  check_point(chain.residues[3].position(), 11.4, 1.5, 0.0);   // MSE: C-beta
  CHECK_FALSE(chain.residues[4].has_cb);
  check_point(chain.residues[4].position(), 15.2, 0.0, 0.0);   // LEU without CB: C-alpha
  check_point(chain.residues[5].position(), 19.0, 1.0, 0.0);   // LYS 5A: C-beta
}

TEST_CASE("the PDB reader selects a chain by id", "[bio][io]") {
  const PdbChain b = read_pdb_chain(kSmall, "B");
  CHECK(b.id == 'B');
  CHECK(b.sequence() == "V");
  check_point(b.residues[0].position(), 0.0, 11.0, 0.0);
  CHECK_THROWS_WITH(read_pdb_chain(kSmall, "C"),
                    Catch::Contains("small.pdb: no chain 'C' (chains present: 'A', 'B')"));
  CHECK_THROWS_AS(read_pdb_chain(kSmall, "AB"), InputError);
}
