#include <catch2/catch.hpp>

#include "attend/bio/alignment_filter.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"

using namespace attend;
using namespace attend::bio;

namespace {
Alignment from_rows(const std::vector<std::string>& rows) {
  Alignment a;
  a.length = static_cast<int64_t>(rows[0].size());
  for (std::size_t n = 0; n < rows.size(); ++n) {
    a.names.push_back("s" + std::to_string(n));
    for (char c : rows[n]) a.codes.push_back(residue_code(c));
  }
  return a;
}

std::vector<std::string> rows_of(const Alignment& a) {
  std::vector<std::string> out;
  for (int64_t n = 0; n < a.num_sequences(); ++n) out.push_back(a.sequence(n));
  return out;
}
}  // namespace

// Gap counts (L = 5): s0 3 (the query, always kept), s1 0, s2 3, s3 2, s4 1.
const std::vector<std::string> kRows = {"A---C", "ARNDC", "A--D-", "-RN-C", "ARND-"};

TEST_CASE("filters with default options keep everything", "[bio]") {
  const FilteredAlignment f = filter_alignment(from_rows(kRows), {});
  CHECK(rows_of(f.alignment) == kRows);
  CHECK(f.rows == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(f.columns == std::vector<int64_t>{0, 1, 2, 3, 4});
}

TEST_CASE("the sequence gap filter drops gappy rows but never the query", "[bio]") {
  AlignmentFilterOptions options;
  options.max_sequence_gap_fraction = 0.4;  // at most 2 gaps of 5
  const FilteredAlignment f = filter_alignment(from_rows(kRows), options);
  CHECK(f.rows == std::vector<int64_t>{0, 1, 3, 4});
  CHECK(f.alignment.names == std::vector<std::string>{"s0", "s1", "s3", "s4"});
  CHECK(f.alignment.length == 5);
}

TEST_CASE("the depth cap keeps the first rows, then columns are filtered on them", "[bio]") {
  AlignmentFilterOptions options;
  options.max_sequence_gap_fraction = 0.4;
  options.max_depth = 3;                 // rows 0, 1, 3
  options.max_column_gap_fraction = 0.34;  // at most 1 gap of 3 rows
  // Column gaps over rows {A---C, ARNDC, -RN-C}: 1, 1, 1, 2, 0 -> column 3 goes.
  const FilteredAlignment f = filter_alignment(from_rows(kRows), options);
  CHECK(f.rows == std::vector<int64_t>{0, 1, 3});
  CHECK(f.columns == std::vector<int64_t>{0, 1, 2, 4});
  CHECK(rows_of(f.alignment) == std::vector<std::string>{"A--C", "ARNC", "-RNC"});
  CHECK(f.alignment.query == 0);
}

TEST_CASE("a column filter that removes everything is an input error", "[bio]") {
  AlignmentFilterOptions options;
  options.max_column_gap_fraction = -1.0;
  CHECK_THROWS_AS(filter_alignment(from_rows(kRows), options), InputError);
}
