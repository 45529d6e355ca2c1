#include <catch2/catch.hpp>

#include "attend/bio/structure_mapping.hpp"

using namespace attend::bio;

TEST_CASE("a structure covering the middle of the query maps with free end gaps", "[bio]") {
  const StructureMapping m = map_structure_to_query("MKAGSMLKWW", "AGSMLK");
  CHECK(m.residue == std::vector<int64_t>{-1, -1, 0, 1, 2, 3, 4, 5, -1, -1});
  CHECK(m.aligned == 6);
  CHECK(m.identical == 6);
}

TEST_CASE("residues missing from the structure are left out", "[bio]") {
  // T (query position 3) has no residue in the structure.
  const StructureMapping m = map_structure_to_query("AGSTMLK", "AGSMLK");
  CHECK(m.residue == std::vector<int64_t>{0, 1, 2, -1, 3, 4, 5});
  CHECK(m.identical == 6);
}

TEST_CASE("a structure longer than the query and a mutation map as expected", "[bio]") {
  const StructureMapping longer = map_structure_to_query("GSML", "HHAGSMLKE");
  CHECK(longer.residue == std::vector<int64_t>{3, 4, 5, 6});
  // A point mutation stays aligned (mapped) but is not identical.
  const StructureMapping mutant = map_structure_to_query("AGSWLK", "AGSMLK");
  CHECK(mutant.residue == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(mutant.aligned == 6);
  CHECK(mutant.identical == 5);
}

TEST_CASE("query gaps are never mapped", "[bio]") {
  const StructureMapping m = map_structure_to_query("AG-SML-K", "AGSMLK");
  CHECK(m.residue == std::vector<int64_t>{0, 1, -1, 2, 3, 4, -1, 5});
}
