#pragma once
/// Filters applied to an alignment before weighting and featurisation: drop gappy sequences,
/// cap the depth, drop gappy columns. The query (row 0) is never dropped.

#include <cstdint>
#include <vector>

#include "attend/bio/alignment.hpp"
#include "attend/core/option_list.hpp"

namespace attend::bio {

/// What `filter_alignment` removes; the defaults remove nothing.
struct AlignmentFilterOptions {
  /// Drop a sequence (never the query) whose gap count is above this fraction of L.
  double max_sequence_gap_fraction = 1.0;
  /// Keep at most this many sequences: the query and the next ones in file order (0: no cap).
  int64_t max_depth = 0;
  /// Drop a column whose gap count, over the sequences kept, is above this fraction of them.
  double max_column_gap_fraction = 1.0;

  static const OptionList<AlignmentFilterOptions>& option_list();
};

/// A filtered alignment and where its rows and columns came from.
struct FilteredAlignment {
  Alignment alignment;
  /// Original row of each kept sequence, [N'] (rows[0] = 0, the query).
  std::vector<int64_t> rows;
  /// Original column of each kept column, [L'] increasing.
  std::vector<int64_t> columns;
};

/// Apply, in this order: the sequence gap filter (gap fractions over all L columns), the
/// depth cap, then the column gap filter (over the sequences left). Gap = code kGapCode, so
/// X/B/Z/J/U/O count as gaps. Throws attend::InputError when every column is removed.
FilteredAlignment filter_alignment(const Alignment& alignment, const AlignmentFilterOptions& options);

}  // namespace attend::bio
