#include "attend/bio/structure_mapping.hpp"

#include <algorithm>

namespace attend::bio {

namespace {
constexpr int kMatch = 2;
constexpr int kMismatch = -1;
constexpr int kGap = -1;
}  // namespace

// Needleman & Wunsch (1970) global alignment with free end gaps, linear gap cost.
StructureMapping map_structure_to_query(const std::string& query, const std::string& structure) {
  std::vector<int64_t> positions;  // query positions that hold a residue
  for (std::size_t i = 0; i < query.size(); ++i) {
    if (query[i] != '-') positions.push_back(static_cast<int64_t>(i));
  }
  const std::size_t n = positions.size(), m = structure.size();
  const std::size_t width = m + 1;
  // score[i][j]: best score of query residues 0..i-1 against structure residues 0..j-1.
  std::vector<int> score((n + 1) * width, 0);
  auto at = [&](std::size_t i, std::size_t j) -> int& { return score[i * width + j]; };
  auto pair_score = [&](std::size_t i, std::size_t j) {
    return query[static_cast<std::size_t>(positions[i])] == structure[j] ? kMatch : kMismatch;
  };
  // Row 0 and column 0 stay 0: leading gaps are free.
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int up_gap = (j == m) ? 0 : kGap;    // skipping query residue i-1; free at the end
      const int left_gap = (i == n) ? 0 : kGap;  // skipping structure residue j-1; free at the end
      at(i, j) = std::max({at(i - 1, j - 1) + pair_score(i - 1, j - 1), at(i - 1, j) + up_gap,
                           at(i, j - 1) + left_gap});
    }
  }

  StructureMapping out;
  out.structure_residues = static_cast<int64_t>(m);
  out.residue.assign(query.size(), -1);
  std::size_t i = n, j = m;
  while (i > 0 && j > 0) {
    const int up_gap = (j == m) ? 0 : kGap;
    if (at(i, j) == at(i - 1, j - 1) + pair_score(i - 1, j - 1)) {
      out.residue[static_cast<std::size_t>(positions[i - 1])] = static_cast<int64_t>(j - 1);
      ++out.aligned;
      out.identical += pair_score(i - 1, j - 1) == kMatch;
      --i;
      --j;
    } else if (at(i, j) == at(i - 1, j) + up_gap) {
      --i;
    } else {
      --j;
    }
  }
  return out;
}

}  // namespace attend::bio
