#include <catch2/catch.hpp>

#include "attend/bio/alphabet.hpp"

using namespace attend::bio;

TEST_CASE("alphabet codes follow ARNDCQEGHILKMFPSTWYV with the gap last", "[bio]") {
  const std::string order = "ARNDCQEGHILKMFPSTWYV";
  for (std::size_t i = 0; i < order.size(); ++i) {
    CHECK(residue_code(order[i]) == i);
    CHECK(residue_letter(static_cast<uint8_t>(i)) == order[i]);
  }
  CHECK(residue_code('-') == kGapCode);
  CHECK(residue_letter(kGapCode) == '-');
  for (char c : std::string("XBZJUO")) CHECK(residue_code(c) == kGapCode);
  for (char c : std::string("a.*1 ?#")) CHECK(residue_code(c) == kInvalidCode);
}

TEST_CASE("three-letter names map to one letter, MSE to M", "[bio]") {
  CHECK(residue_from_three_letter("ALA") == 'A');
  CHECK(residue_from_three_letter("TRP") == 'W');
  CHECK(residue_from_three_letter("GLY") == 'G');
  CHECK(residue_from_three_letter("MSE") == 'M');
  CHECK(residue_from_three_letter("HOH") == 'X');
  const uint8_t codes[] = {0, 20, 19};
  CHECK(decode_residues(codes, 3) == "A-V");
}
